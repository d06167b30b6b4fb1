"""The table `view` per game, as `game.view(state, viewer)` builds it in `core/games/`.

One model per game, told apart by `game`, so the OpenAPI document says what a player or
a bot gets instead of an untyped object. A key that a view has only for some viewers or
at some moments (`legal_actions`, `your_throw`, `ranking`, ...) is left out of the
answer when the view leaves it out, never sent as null: `AsSent` keeps what was given.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

ONLY_TO_ACT = "only in the view of the player to act"
ONCE_OVER = "only once the table is over: every player, best first"


class AsSent(BaseModel):
    """Serialized with exactly the keys it was validated from: optional keys stay absent.

    Unknown keys pass through rather than vanish (a test keeps the models complete)."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    # No return annotation on purpose: pydantic would take it for the model's schema in
    # the OpenAPI document (`-> dict[str, Any]` would leave every field out of it).
    @model_serializer(mode="wrap")
    def _as_sent(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        given = self.model_fields_set | set(self.model_extra or ())
        return {key: value for key, value in data.items() if key in given}


class LegalAction(AsSent):
    """One action the player to act may take now; send it back as it is."""

    kind: Literal["throw", "blind_reroll", "announce", "doubt", "stop", "concede"]
    value: int | None = Field(default=None, description="the value, for `announce` only")


class _Options(AsSent):
    turn_timeout_seconds: int
    forfeit_after_timeouts: int


# --- Mäxchen -------------------------------------------------------------------------


class MaexchenOptions(_Options):
    """Mäxchen's rule options, defaults filled in (docs/rules.md §1, §6.5)."""

    penalty_limit: int
    allow_equal: bool
    blind_reroll: bool


class MaexchenSeat(AsSent):
    """A seat at a Mäxchen table."""

    player: str
    penalty_points: int
    timeouts: int
    eliminated: bool


class MaexchenView(AsSent):
    """A Mäxchen table. Nobody's dice under the cup, except the viewer's own throw."""

    game: Literal["maexchen"]
    version: int
    round: int
    stage: Literal["opening", "response", "announce", "announce_blind", "over"]
    options: MaexchenOptions
    survivors: int
    seats: list[MaexchenSeat]
    to_act: str | None
    announcement: int | None = Field(description="the round's last announced value")
    announcer: str | None
    legal_actions: list[LegalAction] | None = Field(default=None, description=ONLY_TO_ACT)
    your_throw: int | None = Field(
        default=None, description="the viewer's own throw, once looked at, until announced"
    )
    your_throw_under_cup: int | None = Field(
        default=None,
        description="the viewer's throw under the cup after announcing (not after a blind"
        " reroll, which nobody has seen)",
    )
    ranking: list[str] | None = Field(default=None, description=ONCE_OVER)


# --- Mariechen -----------------------------------------------------------------------


class MariechenOptions(_Options):
    """Mariechen's rule options, defaults filled in (docs/rules.md §2, §6.5)."""

    direction: Literal["vorn", "hinten"]
    schikanen: bool


class MariechenSeat(AsSent):
    """A seat at a Mariechen table: every throw is public."""

    player: str
    throws: list[int]
    hits: list[int] = Field(description="the targets hit, in throw order")
    score: int
    timeouts: int
    forfeited: bool


class ThrowOff(AsSent):
    """Players tied across a place that matters throw one die each."""

    players: list[str]
    first_place: int
    last_place: int
    faces: list[int] = Field(description="thrown so far in this round of the throw-off")


class MariechenView(AsSent):
    """A Mariechen table; nothing is hidden."""

    game: Literal["mariechen"]
    version: int
    stage: Literal["turns", "throw_off", "over"]
    options: MariechenOptions
    survivors: int
    seats: list[MariechenSeat]
    to_act: str | None
    throw: int | None = Field(description="the number (1-6) of the next throw, during turns")
    target: int | None = Field(description="the face that next throw aims at")
    throw_off: ThrowOff | None
    legal_actions: list[LegalAction] | None = Field(default=None, description=ONLY_TO_ACT)
    ranking: list[str] | None = Field(default=None, description=ONCE_OVER)


# --- 42 muss kommen ------------------------------------------------------------------


class ZweiundvierzigOptions(_Options):
    """42's rule options, defaults filled in (docs/rules.md §3, §6.5)."""

    sticks: int
    max_throws: int


class ZweiundvierzigSeat(AsSent):
    """A seat at a 42 table."""

    player: str
    sticks: int
    status: Literal["playing", "left", "forfeited"]
    timeouts: int


class FinishedTurn(AsSent):
    """A turn of this round that is over."""

    player: str
    last_throw: int | None = Field(
        description="null for a covered fifth throw (until the round is scored) or no throw"
    )
    throws: int


class ZweiundvierzigRound(AsSent):
    """The round being played."""

    number: int
    starter: str
    throw_limit: int = Field(description="the most throws anyone may use in this round")
    finished: list[FinishedTurn]
    throws: list[int] = Field(description="the open throws of the player to act so far")


class ZweiundvierzigView(AsSent):
    """A 42 table; a fifth throw stays covered for everyone until the round is scored."""

    game: Literal["zweiundvierzig"]
    version: int
    options: ZweiundvierzigOptions
    survivors: int
    phase: Literal["hinrunde", "playoff", "rueckrunde", "over"]
    pot: int
    seats: list[ZweiundvierzigSeat]
    round: ZweiundvierzigRound | None = Field(description="null once the table is over")
    to_act: str | None
    legal_actions: list[LegalAction] | None = Field(default=None, description=ONLY_TO_ACT)
    ranking: list[str] | None = Field(default=None, description=ONCE_OVER)


GameView = Annotated[MaexchenView | MariechenView | ZweiundvierzigView, Field(discriminator="game")]
GAME_VIEWS: dict[str, type[AsSent]] = {
    "maexchen": MaexchenView,
    "mariechen": MariechenView,
    "zweiundvierzig": ZweiundvierzigView,
}
