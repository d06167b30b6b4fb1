"""What the handlers call: tournaments, turns, the organizer's actions, the bracket
pages' reads, progression, sockets, admission (the organizer key and rate limits),
reconcile and the deadline sweeper. Imports `infra.jobs`, `infra.outbox`,
`infra.store`, the root of `infra` and `core`; built by `infra.bootstrap`."""
