"""The local stack: the service off AWS, with no account and no Docker.

Not an adapter but a composition root: it wires the real handlers of `functions/` to
moto (the template's table, bus, queues and schedule group, `provision.py`), plays
Lambda's, EventBridge's and Scheduler's part in delivering to them (`delivery.py`),
serves the API over real HTTP (`service.py`, `http_front.py`, `api_workers.py`) with
moto's server and its saved state (`moto_atomic.py`, `moto_state.py`), and gives the
tests and benchmarks bots, fault injection and write counters. So it sits above
`functions/`; only `cli/` and the tests import it: nothing deployed does, and it is
never packaged into the Lambda functions.
"""
