"""The one protocol every game module implements, and the state shape it relies on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from core.actions import Action
from core.events import Event, PlayerId
from core.options import TableOptions
from core.outcome import Outcome


class TableState(Protocol):
    """What every game's state exposes: its seat order and a version bumped per action."""

    @property
    def seats(self) -> tuple[PlayerId, ...]: ...

    @property
    def version(self) -> int: ...


StateT = TypeVar("StateT", bound=TableState)


class Game(Protocol[StateT]):
    """A game: seat a table, say who acts and how, apply actions, show views, rank.

    Every method is a pure function of its arguments. `apply` never changes `state`; on
    an illegal action it raises a `KnobelcupError` and the caller keeps the old state.
    """

    name: str
    title: str
    min_players: int

    def parse_options(self, raw: Mapping[str, object] | None) -> TableOptions:
        """Validate rule options by name, filling in the documented defaults."""
        ...

    def seat(
        self,
        players: Sequence[PlayerId],
        options: Mapping[str, object] | None = None,
        survivors: int = 1,
    ) -> tuple[StateT, tuple[Event, ...]]:
        """A new table with `players` in seat order, playing until `survivors` are known."""
        ...

    def to_act(self, state: StateT) -> PlayerId | None:
        """The player whose turn it is, or None once the table is over."""
        ...

    def legal_actions(self, state: StateT) -> tuple[Action, ...]:
        """The choices of the player to act (never `Timeout`, which the scheduler sends)."""
        ...

    def dice_needed(self, state: StateT, action: Action) -> int:
        """How many dice the caller must draw for `action` in `state`."""
        ...

    def apply(
        self, state: StateT, player: PlayerId, action: Action, dice: Sequence[int] = ()
    ) -> tuple[StateT, tuple[Event, ...]]:
        """The state after `player` takes `action` with `dice`, and what happened."""
        ...

    def view(self, state: StateT, viewer: PlayerId | None) -> dict[str, object]:
        """What `viewer` (None: a spectator) may see of the table, as JSON-ready data."""
        ...

    def is_over(self, state: StateT) -> bool:
        """True once the table's result is fixed."""
        ...

    def outcome(self, state: StateT) -> Outcome:
        """The full ranking of a finished table; raises `MatchNotOver` before."""
        ...
