"""What runs only off AWS: the in-process tournament runner, API Gateway events for
calling handlers directly, tables made from template.yaml, and moto's server with
DynamoDB's atomicity. Never packaged into the Lambda functions."""
