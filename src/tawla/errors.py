"""The one exception hierarchy of tawla.

Every error the package raises on bad input derives from :class:`TawlaError`,
and the operation that raised it has changed nothing (no state is half-applied).

    TawlaError
    ├── InvalidPosition      a board that breaks the ruleset's invariants
    ├── InvalidId            a malformed position / match ID, XGID or packed row
    ├── InvalidDice          dice out of 1..6 or of the wrong shape
    ├── IllegalMove          a move or step the rules do not allow
    │   └── AmbiguousMove    text or a step that matches several legal moves
    ├── ConfigError          a bad configuration: house profile, table settings, options
    │   └── UnsupportedRuleset   an unknown ruleset name or option, or a feature not implemented for it
    ├── FormatError          a corrupt or unreadable match record
    ├── NotYourTurn          an action by a player who may not act now
    ├── InvalidAction        an action the state of a game or match does not allow
    ├── InvalidArgument      a number or array out of range or of the wrong shape
    │                        (probabilities, weights, sizes) that is none of the above
    ├── Unauthorized         a service request without a token, or with an unknown one
    ├── Forbidden            a service request whose token has no right to the call
    ├── NotFound             a service request for a room that does not exist
    └── LimitExceeded        a service request beyond a limit: a rate, a size, a count
"""

from __future__ import annotations

__all__ = [
    "TawlaError",
    "InvalidPosition",
    "InvalidId",
    "InvalidDice",
    "IllegalMove",
    "AmbiguousMove",
    "ConfigError",
    "UnsupportedRuleset",
    "FormatError",
    "NotYourTurn",
    "InvalidAction",
    "InvalidArgument",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "LimitExceeded",
    "quote",
]


class TawlaError(ValueError):
    """Base class of every error raised by tawla on bad input."""


class InvalidPosition(TawlaError):
    """A board that breaks the ruleset's invariants (checker counts, shared points, pins)."""


class InvalidId(TawlaError):
    """A malformed position ID, match ID, XGID or packed row."""


class InvalidDice(TawlaError):
    """Dice that are not two integers in 1..6 (or a roll of the wrong shape)."""


class IllegalMove(TawlaError):
    """A move, move text or step that the rules do not allow.

    Attributes
    ----------
    text : str or None
        The text (or step) that failed.
    legal : list
        The legal alternatives (moves or steps), for the message and for callers.
    """

    def __init__(self, message: str, *, text: str | None = None, legal=()):
        super().__init__(message)
        self.text = text
        self.legal = list(legal)


class AmbiguousMove(IllegalMove):
    """Move text or a step that matches more than one legal move; ``legal`` lists the candidates."""


class ConfigError(TawlaError):
    """A bad configuration: an unknown house or setting, a value a house does not allow
    (match length, timer, stake), or a bad ruleset option."""


class UnsupportedRuleset(ConfigError):
    """An unknown ruleset or option, or an operation not implemented for that ruleset."""


class FormatError(TawlaError):
    """A corrupt or unreadable match record.

    Attributes
    ----------
    file, game, move : str / int or None
        Where the error is (file name, 1-based game number, 1-based move number).
    """

    def __init__(self, message: str, *, file=None, game=None, move=None, text=None, legal=()):
        where = ", ".join(
            f"{k} {v}" for k, v in (("file", file), ("game", game), ("move", move)) if v is not None
        )
        super().__init__(f"{where}: {message}" if where else message)
        self.file, self.game, self.move, self.text = file, game, move, text
        self.legal = list(legal)


class NotYourTurn(TawlaError):
    """An action by a player who may not act now (moving or doubling out of turn, ...)."""


class InvalidAction(TawlaError):
    """An action that the current phase of a game or match does not allow."""


class InvalidArgument(TawlaError):
    """A value out of range or of the wrong type or shape for a parameter that is not a
    position, dice, move, record or configuration: probabilities, weights, sizes."""


class Unauthorized(TawlaError):
    """A request to :mod:`tawla.service` without a bearer token, or with one it does not know
    (HTTP 401)."""


class Forbidden(TawlaError):
    """A request to :mod:`tawla.service` whose token may not make it: no seat in the room, or
    not the host's (HTTP 403)."""


class NotFound(TawlaError):
    """A request to :mod:`tawla.service` for a room code it does not know (HTTP 404)."""


class LimitExceeded(TawlaError):
    """A request to :mod:`tawla.service` beyond one of its limits: too many requests or
    creations from one address in a time window, too many spectators, a body or frame too
    large (HTTP 429, or 413 for a size)."""


QUOTE_LIMIT = 100
"""The most characters of an input that an error message quotes."""


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of ``value`` for an error message, cut to about ``limit`` characters.

    A str longer than ``limit`` is quoted as the ``repr`` of its head, then ``...`` and its
    length; any other value as its ``repr``, cut the same way. An int too long to write
    (Python's int-to-str limit) is described by its number of bits.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"<a {value.bit_length()}-bit integer>"
    try:
        text = repr(value)
    except ValueError:  # a container holding an int too long to write
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
