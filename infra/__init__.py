"""Adapters around the pure core, in four parts and a root:

- `infra.store`: the DynamoDB table, its items and the stores over them;
- `infra.outbox`: what runs after a write (events and their publisher, push, timers,
  redrive);
- `infra.jobs`: the paged lifecycle jobs (start, finish, cancel) and their runner;
- `infra.services`: what the handlers call (tournaments, turns, organizer, progression,
  sockets, admission, reconcile, sweeper);
- the root: `bootstrap` (every builder: the one place that picks boto3, dice and clock),
  `settings`, `errors`, `tokens` and `dice`.

Each part imports only those listed before it, and the root's modules other than
`bootstrap` import none of them (tests/test_layering.py). The local stack that runs it
all off AWS is the top-level package `local`."""
