"""Request and response bodies. Validation errors name the field (see `errors`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from core.bracket.plan import MAX_TABLE_SIZE, MIN_TABLE_SIZE
from core.errors import InvalidName
from core.fair_dice import PLAYER_SEED_MAX, SCHEME, InvalidPlayerSeed, check_player_seed
from core.names import MAX_LENGTH, MIN_LENGTH, display_name, visible_text
from core.registry import game_names
from functions.api.game_views import AsSent, GameView
from infra.services.join_codes import JOIN_CODE_PATTERN

MAX_PLAYERS = 1_000_000
TOURNAMENT_NAME_LENGTH = 100
MAX_ORDER = 10_000  # an order longer than this does not fit a request: use a seed


class Lazy(BaseModel):
    """Validators are built on first use, not at import: a cold start builds only its own."""

    model_config = ConfigDict(defer_build=True)


class Strict(Lazy):
    """A request body. Unknown fields are an error, not silently dropped: a typo must not
    go unnoticed; and a number is a JSON number of its type (no `"6"` or `6.0` for an
    integer, no `true` for a number)."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class CreateTournament(Strict):
    """What the organizer decides up front (docs/rules.md §5.1 and the game's options, §6.5)."""

    game: str = Field(
        min_length=1,
        max_length=40,
        examples=["maexchen"],
        # documented as an enum; an unknown game is still answered with `unknown_game`,
        # which lists the known ones
        json_schema_extra={"enum": list(game_names())},
    )
    name: str = Field(
        default="",
        max_length=TOURNAMENT_NAME_LENGTH,
        description="shown on the pages; trimmed, no control or invisible formatting characters",
    )
    options: dict[str, Any] = Field(default_factory=dict, description="the game's rule options")
    table_size: int = Field(default=6, ge=MIN_TABLE_SIZE, le=MAX_TABLE_SIZE)
    advance: int = Field(default=2, ge=1, le=MAX_TABLE_SIZE - 1)
    turn_timeout_seconds: int | None = Field(default=None, ge=1, le=86_400)
    player_limit: int = Field(default=MAX_PLAYERS, ge=2, le=MAX_PLAYERS)
    join_code: str | None = Field(
        default=None,
        pattern=JOIN_CODE_PATTERN,
        description="a code (4 to 32 letters, digits, '-') that registering then needs,"
        " compared ignoring case; stored only as a hash, never shown again",
        examples=["KNEIPE-7"],
    )
    language: Literal["de", "en"] | None = Field(
        default=None,
        description="the language of the tournament's pages: `de` or `en`; none: each"
        " browser's own (`Accept-Language`); a page's `?lang=` or its switch still wins",
        examples=["de"],
    )

    @field_validator("name")
    @classmethod
    def _visible(cls, name: str) -> str:
        try:
            return visible_text(name, "a tournament name", 0, TOURNAMENT_NAME_LENGTH, "name")
        except InvalidName as error:
            raise PydanticCustomError("invalid_name", str(error)) from None


class StartTournament(Strict):
    """How to order the players (docs/rules.md §5.2): by a seed, or in the organizer's order.

    With neither, a fresh secret seed is drawn. Either way it is published with the
    tournament, so anyone can check the seating.
    """

    seed: str | None = Field(default=None, min_length=1, max_length=64)
    order: list[str] | None = Field(
        default=None, min_length=2, max_length=MAX_ORDER, description="every player id once"
    )


class TournamentCreated(Lazy):
    """The new tournament's id and the organizer's token: shown only this once."""

    tournament_id: str
    organizer_token: str
    status: str
    play_url: str | None = Field(
        None,
        description="the join link for players' phones, on the deployment's public address"
        " (else the host asked); a join code goes after it as `?code=`",
    )


class Registration(Strict):
    """A player's registration."""

    name: str = Field(
        min_length=1,
        description=f"the display name: {MIN_LENGTH} to {MAX_LENGTH} characters once"
        " surrounding whitespace is trimmed, no control or invisible formatting characters;"
        " unique in the tournament, compared ignoring case and Unicode compatibility forms"
        " (NFKC); stored trimmed, in NFC",
        examples=["Anna"],
    )

    @field_validator("name")
    @classmethod
    def _a_display_name(cls, name: str) -> str:
        try:
            return display_name(name)
        except InvalidName as error:
            raise PydanticCustomError("invalid_name", str(error)) from None

    seed: str | None = Field(
        default=None,
        description=f"the player's seed for the dice (docs/dice.md): 1 to {PLAYER_SEED_MAX}"
        " printable ASCII characters, no space; clients send a random one. None: the"
        " default seed '-'. Replace it with PUT /tournaments/{id}/me/seed",
        examples=["k3Hq9-wZ"],
    )
    join_code: str | None = Field(
        default=None,
        max_length=64,
        description="the tournament's join code, where it has one (`join_code_required`"
        " in its read)",
    )

    @field_validator("seed")
    @classmethod
    def _a_player_seed(cls, seed: str | None) -> str | None:
        return None if seed is None else _player_seed(seed)


def _player_seed(seed: str) -> str:
    try:
        return check_player_seed(seed)
    except InvalidPlayerSeed as error:
        raise PydanticCustomError("invalid_seed", str(error)) from None


class ReplaceSeed(Strict):
    """A player's new seed for the dice."""

    seed: str = Field(
        description=f"1 to {PLAYER_SEED_MAX} printable ASCII characters, no space",
        examples=["k3Hq9-wZ"],
    )

    @field_validator("seed")
    @classmethod
    def _a_player_seed(cls, seed: str) -> str:
        return _player_seed(seed)


class SeedReplaced(Lazy):
    """Where a replaced seed takes effect."""

    tournament: str
    player: str
    seed: str
    table: str | None = Field(
        description="the player's current table, if nobody had acted there yet and its"
        " dice now follow from the new seed; null: only tables seated from now on"
    )


class PlayerRegistered(Lazy):
    """The new player's id and token: shown only this once, stored only as a hash."""

    tournament_id: str
    player_id: str
    player_token: str


class RoundSummary(Lazy):
    """One round of the bracket."""

    round: int
    tables: int
    final: bool


class Standing(Lazy):
    """A final place: the last round reached, the place at the last table, and the
    game's measure turned so that lower is better (scores are negated)."""

    place: int
    player: str
    name: str = Field(description="the player's display name")
    round: int
    table_place: int
    measure: int
    forfeited: bool = Field(
        default=False,
        description="did not play their last table to its end (a forfeit): placed below those"
        " who did at the same round and table place",
    )


class StartProgress(Lazy):
    """How far the start has come while the tournament is `starting`."""

    phase: str = Field(
        description="'roster' (listing the players), 'order' (seeding), 'seat' (round 1)"
    )
    seated: int = Field(description="players seated at round 1's tables so far")


class CancelProgress(Lazy):
    """Once cancelled: how far stopping the tables in play has come."""

    stopping: bool = Field(description="whether the cancel job is still stopping tables")
    tables_stopped: int = Field(description="tables that were in play and now refuse actions")


class TournamentView(Lazy):
    """A tournament as anyone may see it."""

    tournament_id: str
    name: str
    game: str
    options: dict[str, Any]
    table_size: int
    advance: int
    player_limit: int
    player_count: int
    status: str
    seeding: str | None = Field(description="'seed' or 'order', once started")
    seed: str | None = Field(
        description="the seed, or the SHA-256 of the organizer's order (ids joined by"
        " newlines); published once started, so anyone can recompute the seating"
    )
    rounds: list[RoundSummary]
    champion: str | None = Field(description="the final's winner, once finished")
    champion_name: str | None = Field(
        default=None, description="the champion's display name, once finished"
    )
    standings: list[Standing] = Field(
        description="the first places once finished; all of them at /standings"
    )
    start_progress: StartProgress | None = Field(
        default=None, description="while starting: how far round 1's seating has come"
    )
    cancel_progress: CancelProgress | None = Field(
        default=None, description="once cancelled: how far stopping its tables has come"
    )
    join_code_required: bool = Field(
        default=False, description="whether registering needs the tournament's join code"
    )
    language: str | None = Field(
        default=None, description="the language the organizer chose for the pages, if any"
    )


class StandingsPage(Lazy):
    """A page of the final standings (docs/rules.md §5.9), best first."""

    tournament_id: str
    standings: list[Standing]
    next_offset: int | None


class ReconcileRequest(Strict):
    """Where a reconcile page starts (the answer's `next_cursor`); none: the first table."""

    cursor: str | None = Field(default=None, max_length=20, examples=["R2-5"])


class ReconcileJob(Lazy):
    """A lifecycle job under way (such as the start seating round 1)."""

    name: str
    step: int
    phase: str


class ReconcilePage(Lazy):
    """What one reconcile page checked and repaired; go on with `next_cursor` until null."""

    tournament_id: str
    status: str
    checked: int = Field(description="tables of the bracket looked at on this page")
    in_play: int = Field(description="of those, seated and waiting for players or deadlines")
    repaired: list[str] = Field(description="tables whose finish was replayed")
    job: ReconcileJob | None = Field(default=None, description="a job under way: reported, not run")
    next_cursor: str | None


class TableSummary(Lazy):
    """One table of a round, for listings."""

    table: str
    players: list[str] = Field(description="player ids in seat order")
    names: list[str] = Field(description="their display names, in the order of `players`")
    version: int
    over: bool
    ranking: list[str] | None


class RoundTables(Lazy):
    """A page of a round's tables."""

    tournament_id: str
    round: int
    tables: list[TableSummary]
    next_offset: int | None


class QueuePlace(Lazy):
    """Where a table waiting for a slot stands (docs/capacity.md#pacing): the deployment
    keeps at most a budget of tables in play, the others start first come, first served."""

    place: int = Field(description="1: the next table to start; an estimate under load")
    expected_start: int = Field(
        description="when it should start, in epoch seconds: its place ÷ the budget of"
        " tables in play × a table's typical duration"
    )


QUEUE_FIELD = Field(
    default=None,
    description="while the table waits for a slot: its place in the queue and expected"
    " start; null once it plays (and on a deployment without a budget)",
)


class Whereabouts(Lazy):
    """Where a player plays now."""

    tournament: str
    player: str
    name: str
    tournament_status: str
    table: str | None = Field(description="the table they play at, or last played at")
    eliminated: bool = Field(description="whether their tournament is over and not won")
    place: int | None = Field(description="their final place, once the tournament finished")
    queue: QueuePlace | None = QUEUE_FIELD


class SocketTicketIssued(Lazy):
    """A one-use ticket for the WebSocket: `?tournament=<id>&ticket=<ticket>` in place of
    the token, so that no token stands in a URL (and so in an access log)."""

    tournament_id: str
    player: str
    ticket: str = Field(description="opens one connection, once")
    expires_at: int = Field(description="Unix seconds: connect before then")


class ActionBody(Strict):
    """An action: `kind`, plus `value` for a Mäxchen announcement."""

    kind: Literal["throw", "blind_reroll", "announce", "doubt", "stop", "concede"]
    value: int | None = Field(default=None, ge=0, le=1000)


class SubmitAction(Strict):
    """An action and the table version it was decided on (the view's `version`)."""

    version: int = Field(ge=0)
    action: ActionBody


class SeatedPlayer(Lazy):
    """A player at a table: the id that views, events and logs name them by."""

    id: str
    name: str = Field(description="the player's display name")


class TableDice(Lazy):
    """How the table's dice can be verified (docs/dice.md)."""

    scheme: Literal["knobelcup-dice-1"] = Field(description=f"always '{SCHEME}'")
    commitment: str = Field(
        description="SHA-256 of the server seed (hex), fixed from the seating on"
    )
    player_seeds: list[str] = Field(description="each seat's player seed, in seat order")
    server_seed: str | None = Field(
        description="the server seed (hex, 32 bytes): null until the table is over"
    )
    secret: bool = Field(
        description="false when the service runs with repeatable dice (tests, --dice-seed):"
        " then anyone who knows its dice seed can compute the server seed"
    )


DEADLINE_FIELD = Field(
    default=None,
    description="when the turn in play times out, in epoch seconds (compare with the"
    " answer's Date header, not the client's clock); null once over, and in the answer"
    " to an action",
)
DICE_FIELD = Field(
    default=None,
    description="the commitment, seeds and (once over) server seed the dice follow from;"
    " null on a table seated before verifiable dice",
)


class TableView(Lazy):
    """A table as one viewer may see it; `events` only in answer to an action."""

    tournament: str
    table: str
    over: bool
    players: list[SeatedPlayer] = Field(description="who sits at the table, in seat order")
    dice: TableDice | None = DICE_FIELD
    status: Literal["playing", "over", "cancelled", "queued"] | None = Field(
        default=None,
        description="`queued`: waiting for one of the deployment's slots, no one acts"
        " there yet (an action is refused with 409 `table_queued`)",
    )
    deadline: int | None = DEADLINE_FIELD
    queue: QueuePlace | None = QUEUE_FIELD
    view: GameView
    events: list[dict[str, Any]] | None = None


class AuditLog(Lazy):
    """A table's log; hidden dice stay hidden until `complete`."""

    tournament: str
    table: str
    over: bool
    players: list[SeatedPlayer] = Field(description="who sits at the table, in seat order")
    dice: TableDice | None = DICE_FIELD
    complete: bool
    records: list[dict[str, Any]]


class LoggedAction(AsSent):
    """An action as the log records it: `timeout` is the scheduler's, on a player's behalf;
    `forfeit` a disqualified player's, played for them (docs/rules.md §4.4)."""

    kind: Literal[
        "throw", "blind_reroll", "announce", "doubt", "stop", "concede", "timeout", "forfeit"
    ]
    value: int | None = Field(default=None, description="the value, for `announce` only")


class LogRecord(AsSent):
    """One step of a table (docs/audit-log.md): the seating (version 0) or one action."""

    version: int = Field(description="the table's version after this step")
    player: str | None = Field(description="who acted; null for the seating")
    action: LoggedAction | None
    events: list[dict[str, Any]] = Field(
        description="what followed, each with its `type` (docs/audit-log.md); a throw"
        " hidden from the caller has `dice: null`"
    )
    dice: list[int] | None = Field(
        default=None, description="the dice drawn for the action: only once the table is over"
    )


class TableEvents(AsSent):
    """A table's steps after the version asked for, as the caller may see them."""

    tournament: str
    table: str
    over: bool
    players: list[SeatedPlayer] = Field(description="who sits at the table, in seat order")
    dice: TableDice | None = DICE_FIELD
    deadline: int | None = DEADLINE_FIELD
    version: int = Field(description="the table's version now: ask next with `after` = this")
    to_act: str | None = Field(description="whose turn it is now; null once over")
    records: list[LogRecord] = Field(description="every step after `after`, oldest first")


class ErrorBody(Lazy):
    """Every error: a stable `code`, a message naming the field or rule, and context."""

    code: str
    message: str
    field: str | None = None
    rule: str | None = None
    current_version: int | None = None


# --- the organizer's cockpit (functions/api/routes/organizer.py) ---------------------


class OrganizerTokenRotated(Lazy):
    """A new organizer token, shown only this once; the previous one no longer works."""

    tournament_id: str
    organizer_token: str
    token_generation: int = Field(description="1 for the token made at creation, +1 a rotation")


class Disqualification(Lazy):
    """What became of a disqualified player."""

    tournament_id: str
    player: str
    name: str
    outcome: str = Field(
        description="'removed' (before the start), 'forfeited' (out at their table at once),"
        " or 'disqualified' (they forfeit the moment the turn reaches them)"
    )
    table: str | None = Field(description="the table they sit at or last sat at")


class RoundStatus(Lazy):
    """One round's tables, live."""

    round: int
    tables: int = Field(description="tables the bracket plans for this round")
    counted: int = Field(description="tables read for this answer (all but in huge rounds)")
    playing: int
    waiting: int = Field(description="not seated yet: their feeder tables still play")
    over: int = Field(description="over, byes included")
    cancelled: int
    final: bool


class StalledTable(Lazy):
    """A table past its turn's deadline by more than a minute."""

    table: str
    version: int
    overdue_seconds: int


class OrganizerStatus(Lazy):
    """The tournament as its organizer follows it."""

    tournament_id: str
    name: str
    status: str
    player_count: int
    token_generation: int
    rounds: list[RoundStatus]
    stalled_count: int
    stalled: list[StalledTable] = Field(description="the first 50 stalled tables")
    complete: bool = Field(description="false if some tables were not read (huge rounds)")


class LiveStanding(Lazy):
    """A player whose tournament has ended, placed as far as it is decided."""

    player: str
    name: str
    round: int = Field(description="the round they left in")
    table: str
    table_place: int
    measure: int
    place: int | None = Field(description="their final place, once their round's exits are known")
    place_from: int
    place_to: int
    disqualified: bool
    forfeited: bool = Field(
        default=False, description="did not play their last table to its end (a forfeit)"
    )


class LiveStandingsPage(Lazy):
    """The places decided so far, best first (docs/rules.md §5.9), during play."""

    tournament_id: str
    status: str
    placed: int = Field(description="players whose tournament has ended so far")
    standings: list[LiveStanding]
    next_offset: int | None


class AuditEntryView(Lazy):
    """One organizer action: who, what, when."""

    at: str = Field(description="when, UTC, ISO 8601 with milliseconds")
    actor: str = Field(description="always 'organizer': no one else acts on a tournament")
    token_generation: int = Field(description="which organizer token (see token rotation)")
    action: str
    detail: dict[str, Any]


class AuditTrail(Lazy):
    """A page of the organizer's audit trail, oldest first."""

    tournament_id: str
    entries: list[AuditEntryView]
    next_after: str | None = Field(description="give as `after` for the next page")


class DisqualifyPlayer(Strict):
    """Why the organizer disqualifies the player (kept in the audit trail); optional."""

    reason: str = Field(default="", max_length=200)


class ListedTournament(Lazy):
    """A tournament in the public list."""

    tournament_id: str
    name: str
    game: str
    created_at: int = Field(description="epoch seconds")


class TournamentList(Lazy):
    """Tournaments, newest first, a page at a time."""

    tournaments: list[ListedTournament]
    next_before: str | None = Field(description="give as `before` for the next page")
