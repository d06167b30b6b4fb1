"""The HTTP API: one Lambda function behind API Gateway's HTTP API (payload v2)."""
