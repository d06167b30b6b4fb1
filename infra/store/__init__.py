"""The DynamoDB table and what is kept in it: the tournament, player and table items,
one store per kind of item, each a `table.TableStore` over the same table (tournaments,
players, game tables, progress, the jobs' state, the organizer's writes, audit entries,
connections, rate limits, the turn deadlines' index; `stores.Stores` builds one of each),
the registration shards and each stored tournament's bracket plan (`plans`). Imports
`core` and the root of `infra` (errors, settings, tokens, dice) only."""
