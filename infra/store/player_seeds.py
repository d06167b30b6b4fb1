"""A player's seed for the dice (docs/dice.md): given at registration, replaced later.

The seed is kept on the player item and copied onto each table the player is seated at,
like their name. Replacing it changes the player item, so every later table takes the
new one, and the seat at the player's current table while nobody has acted there
(version 0): every die of a table follows from one set of seeds, the ones its log shows.
"""

from __future__ import annotations

from infra.store.game_tables import GameTableStore
from infra.store.players import PlayerStore
from infra.store.tournament_items import PlayerRecord

_ATTEMPTS = 3  # another seat replacing its seed at the same moment: read again


def replace_player_seed(
    players: PlayerStore, tables: GameTableStore, player: PlayerRecord, seed: str
) -> str | None:
    """Store `seed` as `player`'s; the table whose dice it now enters too (their current
    table, at version 0), or None if only the tables seated from now on take it."""
    players.set_player_seed(player.tournament, player.id, seed)
    if not player.table:
        return None
    for _ in range(_ATTEMPTS):
        table = tables.get_table(player.tournament, player.table)
        if (
            table is None
            or table.bye
            or table.version != 0
            or not table.server_seed
            or player.id not in table.seating.seats
        ):
            return None
        seeds = list(table.player_seeds)
        seeds[table.seating.seats.index(player.id)] = seed
        if tables.set_seat_seeds(table, seeds):
            return table.ref
    return None
