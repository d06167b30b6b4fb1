"""The function's Logger, Metrics and Tracer, shared by the entry point and the routes."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

NAMESPACE = "Knobelcup"

logger = Logger()
tracer = Tracer()
# explicit, so metrics work however the module is imported (tests import before any env)
metrics = Metrics(namespace=NAMESPACE)
