"""Tournament and player items: what the organizer set up and who registered.

Both live in the tournament's item collection (partition `T#<id>`): the tournament under
sort key `META`, each player under `P#<player id>`. Tables live in partitions of their
own (see `infra.store.table_item`), because they are written on every turn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.bracket import LEGACY_RULE

META = "META"
PLAYER_PREFIX = "P#"


class Status:
    """A tournament's life: draft → open ⇄ closed → starting → running → finished."""

    DRAFT = "draft"
    OPEN = "open"
    CLOSED = "closed"
    STARTING = "starting"  # registration closed; the start job seats round 1
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"  # by the organizer (infra.services.organizer): nothing more is played


def tournament_pk(tournament: str) -> str:
    """The partition key shared by a tournament's own item and its players."""
    return f"T#{tournament}"


@dataclass(slots=True)
class TournamentRecord:
    """A tournament as the organizer created it, plus its progress."""

    id: str
    name: str
    game: str
    options: dict[str, object]
    table_size: int
    advance: int
    player_limit: int
    organizer_hash: str
    created_at: int
    expires_at: int
    status: str = Status.DRAFT
    player_count: int = 0
    seed: str = ""  # the seed, or the organizer's order's digest; published once started
    seeding: str = "seed"  # "seed" (shuffled by `seed`) or "order" (the organizer's order)
    champion: str = ""  # set when the final is over, with the status `finished`
    top_standings: list[dict[str, Any]] = field(default_factory=list)  # the first places
    job: JobState | None = None  # the lifecycle job under way (infra.jobs.runner), if any
    join_code_hash: str = ""  # the join code's hash (infra.services.join_codes); "": none needed
    # which organizer token is valid: 1 for the one made at creation, one more with each
    # rotation (infra.services.organizer); the audit trail names it
    organizer_generation: int = 1
    tables_stopped: int = 0  # once cancelled: the tables in play the cancel job stopped
    # the bracket rule the tournament was created under (core.bracket.plan, docs/rules.md
    # §5.11); an item stored before rules were numbered plays the rule of 2026-12-01
    bracket_rule: int = LEGACY_RULE
    # the pages' language the organizer chose ("de", "en"); "": each browser's own. An
    # item stored before languages has no attribute `language` and follows the browser
    language: str = ""

    def to_item(self) -> dict[str, Any]:
        """The DynamoDB item."""
        return {
            "pk": {"S": tournament_pk(self.id)},
            "sk": {"S": META},
            "kind": {"S": "tournament"},
            "id": {"S": self.id},
            "name": {"S": self.name},
            "game": {"S": self.game},
            "options": {"S": json.dumps(self.options, separators=(",", ":"))},
            "table_size": {"N": str(self.table_size)},
            "advance": {"N": str(self.advance)},
            "player_limit": {"N": str(self.player_limit)},
            "organizer_hash": {"S": self.organizer_hash},
            "created_at": {"N": str(self.created_at)},
            "expires_at": {"N": str(self.expires_at)},
            "status": {"S": self.status},
            "player_count": {"N": str(self.player_count)},
            "seed": {"S": self.seed},
            "seeding": {"S": self.seeding},
            "champion": {"S": self.champion},
            "organizer_generation": {"N": str(self.organizer_generation)},
            "bracket_rule": {"N": str(self.bracket_rule)},
            **(
                {"top_standings": {"S": json.dumps(self.top_standings, separators=(",", ":"))}}
                if self.top_standings
                else {}
            ),
            **(self.job.attributes() if self.job is not None else {}),
            **({"join_code_hash": {"S": self.join_code_hash}} if self.join_code_hash else {}),
            **({"tables_stopped": {"N": str(self.tables_stopped)}} if self.tables_stopped else {}),
            **({"language": {"S": self.language}} if self.language else {}),
        }

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> TournamentRecord:
        """The inverse of `to_item`."""
        return cls(
            id=item["id"]["S"],
            name=item["name"]["S"],
            game=item["game"]["S"],
            options=json.loads(item["options"]["S"]),
            table_size=int(item["table_size"]["N"]),
            advance=int(item["advance"]["N"]),
            player_limit=int(item["player_limit"]["N"]),
            organizer_hash=item["organizer_hash"]["S"],
            created_at=int(item["created_at"]["N"]),
            expires_at=int(item["expires_at"]["N"]),
            status=item["status"]["S"],
            player_count=int(item["player_count"]["N"]),
            seed=item["seed"]["S"],
            seeding=item.get("seeding", {"S": "seed"})["S"],
            champion=item.get("champion", {"S": ""})["S"],
            top_standings=json.loads(item["top_standings"]["S"]) if "top_standings" in item else [],
            job=JobState.from_item(item),
            join_code_hash=item.get("join_code_hash", {"S": ""})["S"],
            organizer_generation=int(item.get("organizer_generation", {"N": "1"})["N"]),
            tables_stopped=int(item.get("tables_stopped", {"N": "0"})["N"]),
            bracket_rule=int(item.get("bracket_rule", {"N": str(LEGACY_RULE)})["N"]),
            language=item.get("language", {"S": ""})["S"],
        )


@dataclass(frozen=True, slots=True)
class JobState:
    """A lifecycle job's place, kept on the tournament item (see `infra.jobs.runner`).

    `step` grows by one with every step done; the stream carries each change to the
    publisher, whose `JobStepReady` event runs the next step: the write that ends a step
    is the one that asks for the next, so no step can be lost between the two.
    """

    name: str  # "start", "finish" or "cancel"
    step: int  # steps done so far
    phase: str  # where in the job: e.g. "roster", "order", "seat"
    cursor: str = ""  # the phase's own bookmark (JSON), "" at its beginning
    done: int = 0  # progress to show: players seated, standings written, tables stopped

    def attributes(self) -> dict[str, Any]:
        """The tournament item's attributes for this state."""
        return {
            "job": {"S": self.name},
            "job_step": {"N": str(self.step)},
            "job_phase": {"S": self.phase},
            "job_cursor": {"S": self.cursor},
            "job_done": {"N": str(self.done)},
        }

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> JobState | None:
        """The job on `item`, None if no job is under way."""
        if "job" not in item:
            return None
        return cls(
            name=item["job"]["S"],
            step=int(item["job_step"]["N"]),
            phase=item["job_phase"]["S"],
            cursor=item["job_cursor"]["S"],
            done=int(item["job_done"]["N"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerExit:
    """Where a player's tournament ended (docs/rules.md §5.9 standings): the round and table
    they left from, their place there, and the game's measure turned lower-is-better."""

    round: int
    table: str
    table_place: int
    measure: int
    eliminated: bool  # False only for the champion
    forfeited: bool = False  # did not play that table to its end (below those who did)


@dataclass(slots=True)
class PlayerRecord:
    """A registered player: their name, token hash, and where they sit now.

    The start sets `seed_position` and round 1's `table`; the progression consumer moves
    `table` on (never back: `table_round` only grows, byes included) and records
    `exit`. Final places are kept apart, by player (`infra.store.progress_store`).
    """

    tournament: str
    id: str
    name: str
    token_hash: str
    registered_at: int
    expires_at: int
    table: str = ""  # the table they sit at (or last sat at), '' before the start
    table_round: int = 0
    seed_position: int = -1  # position in the seeded order, from 0; -1 before the start
    exit: PlayerExit | None = None
    # the player's seed for the dice of the tables they are seated at (core.fair_dice);
    # '' when they gave none (their seat's seed is then core.fair_dice.DEFAULT_PLAYER_SEED)
    player_seed: str = ""
    disqualified: bool = False  # by the organizer (infra.services.organizer)
    registration_shard: int = -1  # the shard that counted them; -1: not recorded

    def to_item(self) -> dict[str, Any]:
        """The DynamoDB item."""
        return {
            "pk": {"S": tournament_pk(self.tournament)},
            "sk": {"S": PLAYER_PREFIX + self.id},
            "kind": {"S": "player"},
            "tournament": {"S": self.tournament},
            "id": {"S": self.id},
            "name": {"S": self.name},
            "token_hash": {"S": self.token_hash},
            "registered_at": {"N": str(self.registered_at)},
            "expires_at": {"N": str(self.expires_at)},
            "table": {"S": self.table},
            "table_round": {"N": str(self.table_round)},
            "seed_position": {"N": str(self.seed_position)},
            **(exit_attributes(self.exit) if self.exit is not None else {}),
            **({"player_seed": {"S": self.player_seed}} if self.player_seed else {}),
            **({"disqualified": {"BOOL": True}} if self.disqualified else {}),
            **(
                {"reg_shard": {"N": str(self.registration_shard)}}
                if self.registration_shard >= 0
                else {}
            ),
        }

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> PlayerRecord:
        """The inverse of `to_item`."""
        return cls(
            tournament=item["tournament"]["S"],
            id=item["id"]["S"],
            name=item["name"]["S"],
            token_hash=item["token_hash"]["S"],
            registered_at=int(item["registered_at"]["N"]),
            expires_at=int(item["expires_at"]["N"]),
            table=item["table"]["S"],
            table_round=int(item.get("table_round", {"N": "0"})["N"]),
            seed_position=int(item.get("seed_position", {"N": "-1"})["N"]),
            exit=_exit_from(item),
            player_seed=item.get("player_seed", {"S": ""})["S"],
            disqualified=item.get("disqualified", {"BOOL": False})["BOOL"],
            registration_shard=int(item.get("reg_shard", {"N": "-1"})["N"]),
        )


def exit_attributes(exit: PlayerExit) -> dict[str, Any]:
    """A player item's attributes recording `exit`."""
    return {
        "exit_round": {"N": str(exit.round)},
        "exit_table": {"S": exit.table},
        "exit_place": {"N": str(exit.table_place)},
        "exit_measure": {"N": str(exit.measure)},
        "eliminated": {"BOOL": exit.eliminated},
        "exit_forfeited": {"BOOL": exit.forfeited},
    }


def _exit_from(item: dict[str, Any]) -> PlayerExit | None:
    if "exit_round" not in item:
        return None
    return PlayerExit(
        round=int(item["exit_round"]["N"]),
        table=item["exit_table"]["S"],
        table_place=int(item["exit_place"]["N"]),
        measure=int(item["exit_measure"]["N"]),
        eliminated=item["eliminated"]["BOOL"],
        forfeited=item.get("exit_forfeited", {"BOOL": False})["BOOL"],
    )
