"""The domain events Knobelcup puts on its EventBridge bus: the contract for subscribers.

Every event has source `knobelcup`, the class name as its `detail-type`, and one of
these models as its `detail`. Delivery is at least once (a publisher that dies after
putting an event puts it again), so every detail carries an `event_id` that is the same
for every copy of one event: subscribers drop the copies they have seen.
docs/events.md shows each model's JSON schema; a test keeps it in step with this module.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

SOURCE = "knobelcup"


class DomainEvent(BaseModel):
    """What every event's detail carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_id: str = Field(description="The same for every delivery of this one event.")
    tournament: str = Field(description="The tournament's id.")

    @property
    def detail_type(self) -> str:
        """The EventBridge `detail-type`: the model's name."""
        return type(self).__name__


class TableSeated(DomainEvent):
    """A table has been seated: round 1 at the start, later ones once all feeders finished."""

    table: str = Field(description="The table's name, such as R2-5 (round 2, fifth table).")
    round: int = Field(ge=1)
    players: list[str] = Field(description="Player ids in seat order.")
    names: list[str] = Field(description="The players' display names, in seat order.")
    survivors: int = Field(ge=1, description="How many players the table sends on.")
    final: bool


class PlacementDetail(BaseModel):
    """One player's place at a finished table and the game's own measure."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    # a default: events made before names were may still be queued for the progression
    name: str = Field(default="", description="The player's display name.")
    place: int = Field(ge=1)
    measure: int = Field(description="Penalty points, score or sticks, as `measure_name`.")
    # a default: events made before forfeits were told may still be queued
    forfeited: bool = Field(
        default=False,
        description="Out by a forfeit (timeouts or disqualification): did not play to the end.",
    )


class TableFinished(DomainEvent):
    """A table is over (a bye is over as soon as it is given): its full result."""

    table: str
    round: int = Field(ge=1)
    players: list[str] = Field(description="Player ids in seat order.")
    names: list[str] = Field(
        default_factory=list, description="The players' display names, in seat order."
    )
    placements: list[PlacementDetail] = Field(description="Every player, best first.")
    measure_name: str
    lower_measure_is_better: bool
    survivors: int = Field(ge=1)
    final: bool
    bye: bool = Field(description="A lone player's table: they go on without playing.")
    version: int = Field(ge=0, description="How many actions the table took.")


class PlayerEliminated(DomainEvent):
    """A player's tournament is over: everyone but the champion, once."""

    player: str
    name: str = Field(description="The player's display name.")
    round: int = Field(ge=1, description="The last round the player reached.")
    table: str = Field(description="The table they left from.")
    table_place: int = Field(ge=1)
    measure: int = Field(description="The game's measure, turned so that lower is better.")


class RoundCompleted(DomainEvent):
    """Every table of a round has finished (byes included)."""

    round: int = Field(ge=1)
    tables: int = Field(ge=1)


class StandingDetail(BaseModel):
    """A final place (docs/rules.md §5.9 standings)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    place: int = Field(ge=1)
    player: str
    name: str = Field(description="The player's display name.")
    round: int = Field(ge=1)
    table_place: int = Field(ge=1)
    measure: int
    forfeited: bool = Field(
        default=False,
        description="Did not play their last table to its end: below those who did.",
    )


class TournamentFinished(DomainEvent):
    """The final is over. The full standings are served by the API."""

    champion: str
    champion_name: str = Field(description="The champion's display name.")
    players: int = Field(ge=1)
    top: list[StandingDetail] = Field(description="The first places, at most 10.")
    standings_path: str = Field(description="API path of the full standings.")


class JobStepReady(DomainEvent):
    """A step of a tournament's lifecycle job (the start, the finish, the cancellation)
    may run: the service's own event, which its job queue hears; subscribers may ignore it."""

    job: str = Field(description="Which job: start, finish or cancel.")
    step: int = Field(ge=0, description="The step to run: how many steps are done.")


EVENT_TYPES: tuple[type[DomainEvent], ...] = (
    TableSeated,
    TableFinished,
    PlayerEliminated,
    RoundCompleted,
    TournamentFinished,
    JobStepReady,
)
