"""The DynamoDB table and what is kept in it: the tournament, player and table items,
the stores that read and write them (tournaments and players, progress, the jobs'
state, the organizer's audit and recent tournaments, connections, rate limits), the
registration shards, the turn deadlines' index and each stored tournament's bracket
plan (`plans`). Imports `core` and the root of
`infra` (errors, settings, tokens, dice) only."""
