"""Typed errors of the core. Each names the rule it enforces; none leaves state changed."""

from __future__ import annotations


class KnobelcupError(Exception):
    """Base of every error the core raises; `code` is stable and machine-readable."""

    code = "knobelcup_error"

    def __init__(self, message: str, *, rule: str = "") -> None:
        self.rule = rule
        super().__init__(f"{message} [{rule}]" if rule else message)


class UnknownGame(KnobelcupError):
    """No game is registered under the requested name."""

    code = "unknown_game"


class UnknownOption(KnobelcupError):
    """A rule option that the game does not have."""

    code = "unknown_option"


class InvalidOption(KnobelcupError):
    """A known rule option with a value of the wrong type or out of range."""

    code = "invalid_option"


class InvalidSeating(KnobelcupError):
    """The players given to seat a table cannot play it (too few, duplicates, survivors)."""

    code = "invalid_seating"


class InvalidDice(KnobelcupError):
    """The caller handed over the wrong number of dice or a face outside 1..6."""

    code = "invalid_dice"


class IllegalAction(KnobelcupError):
    """The action breaks a rule of the game in the table's current state."""

    code = "illegal_action"


class NotYourTurn(IllegalAction):
    """Someone other than the player to act tried to act."""

    code = "not_your_turn"


class MatchOver(IllegalAction):
    """The table is over; no action is accepted any more."""

    code = "match_over"


class MatchNotOver(KnobelcupError):
    """An outcome was asked of a table that is still being played."""

    code = "match_not_over"


class InvalidName(KnobelcupError):
    """A player's display name that breaks the name rules (length, characters)."""

    code = "invalid_name"
    field = "name"
