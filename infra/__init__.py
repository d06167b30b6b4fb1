"""Adapters around the pure core: the DynamoDB repository and its items, the services
the handlers call (tournaments, turns, progression, the lifecycle jobs, reconcile), the
stream-to-event publisher, turn deadlines and their sweeper, tokens, settings and dice
sources. The local stack that runs them off AWS is the top-level package `local`."""
