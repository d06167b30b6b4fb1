"""Every function's Logger, Metrics and Tracer (Powertools), named by the environment."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

from infra.retry import Tally

NAMESPACE = "Knobelcup"

logger = Logger()
# DynamoDB, EventBridge and Scheduler calls are the functions' only I/O; patching every
# supported library would import requests and friends on each cold start for nothing
tracer = Tracer(patch_modules=["botocore"])
# explicit, so metrics work however the module is imported (tests import before any env)
metrics = Metrics(namespace=NAMESPACE)


def report_throttles(tally: Tally) -> None:
    """One invocation's throttled AWS calls as metrics: `<name>Throttled` for every
    answer that said slow down, `<name>ThrottledFailed` for every call still refused
    after its retries (names: `Push`, `Scheduler`, `DynamoDB`)."""
    throttled, failed = tally.drain()
    for name, value in throttled.items():
        metrics.add_metric(name=f"{name}Throttled", unit=MetricUnit.Count, value=value)
    for name, value in failed.items():
        metrics.add_metric(name=f"{name}ThrottledFailed", unit=MetricUnit.Count, value=value)
    if failed:
        logger.warning("throttled after retries", failed=dict(failed))
