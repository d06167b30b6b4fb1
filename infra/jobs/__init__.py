"""The paged jobs of a tournament's lifecycle and their runner: start (seeding round 1),
finish (the standings) and cancel, each a page at a time within one invocation's time.
Imports `infra.outbox` (the events), `infra.store`, the root of `infra` and `core`."""
