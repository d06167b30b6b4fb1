"""Every function's Logger, Metrics and Tracer (Powertools), named by the environment."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

NAMESPACE = "Knobelcup"

logger = Logger()
# DynamoDB, EventBridge and Scheduler calls are the functions' only I/O; patching every
# supported library would import requests and friends on each cold start for nothing
tracer = Tracer(patch_modules=["botocore"])
# explicit, so metrics work however the module is imported (tests import before any env)
metrics = Metrics(namespace=NAMESPACE)
