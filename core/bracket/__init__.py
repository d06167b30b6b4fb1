"""The tournament bracket engine: elimination tables fed by consecutive tables (docs/rules.md §5).

`BracketPlan` fixes the whole shape up front from (players, table_size, advance) and
the bracket rule the tournament was created under;
`core.bracket.progression` moves players through it with pure functions; `Bracket`
runs a tournament in memory on top of them. No randomness, clock or I/O: the seed and
the tables' outcomes come in as arguments.
"""

from core.bracket.decisions import (
    ByeGiven,
    Decision,
    RoundCompleted,
    SeatTable,
    Standing,
    TournamentFinished,
)
from core.bracket.plan import (
    BALANCED_PLAYERS,
    CURRENT_RULE,
    FEEDER_GROUPS,
    LEGACY_RULE,
    BracketPlan,
    InvalidBracket,
    Route,
    TableRef,
)
from core.bracket.plan_balanced import BalancedPlan
from core.bracket.plan_feeder_groups import FeederGroupPlan
from core.bracket.progression import (
    Exit,
    advancing,
    check_outcome,
    exits,
    first_round,
    first_round_tables,
    seat_next,
    standings,
)
from core.bracket.seeding import organizer_order, seed_key, seeded_order
from core.bracket.tournament import Bracket

__all__ = [
    "BALANCED_PLAYERS",
    "CURRENT_RULE",
    "FEEDER_GROUPS",
    "LEGACY_RULE",
    "BalancedPlan",
    "Bracket",
    "BracketPlan",
    "ByeGiven",
    "Decision",
    "Exit",
    "FeederGroupPlan",
    "InvalidBracket",
    "RoundCompleted",
    "Route",
    "SeatTable",
    "Standing",
    "TableRef",
    "TournamentFinished",
    "advancing",
    "check_outcome",
    "exits",
    "first_round",
    "first_round_tables",
    "organizer_order",
    "seat_next",
    "seed_key",
    "seeded_order",
    "standings",
]
