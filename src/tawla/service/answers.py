"""How errors are answered: the HTTP status of each :mod:`tawla.errors` class and the body
``{"error": <class name>, "detail": <message>}``.

400 for bad input (IDs, dice, options), 401 without a token or with an unknown one, 403
with a token that has no seat in the room, 404 for an unknown room (where no token is
asked for), 409 for what the match refuses now (:class:`~tawla.errors.NotYourTurn`,
:class:`~tawla.errors.InvalidAction`, :class:`~tawla.errors.IllegalMove`, ...), 422 for a
malformed body (:class:`~tawla.errors.InvalidArgument`), 429 past a limit
(:class:`~tawla.errors.LimitExceeded`; 413 for a body too large).
"""

from __future__ import annotations

from ..errors import (AmbiguousMove, Forbidden, IllegalMove, InvalidAction, LimitExceeded, NotFound, NotYourTurn,
                      TawlaError, Unauthorized)

__all__ = ["status_of", "error_body"]

_STATUS = {Unauthorized: 401, Forbidden: 403, NotFound: 404, NotYourTurn: 409, InvalidAction: 409,
           IllegalMove: 409, AmbiguousMove: 409, LimitExceeded: 429}


def status_of(error: TawlaError) -> int:
    """The HTTP status of a :mod:`tawla.errors` class (400 unless listed)."""
    for cls in type(error).__mro__:
        if cls in _STATUS:
            return _STATUS[cls]
    return 400


def error_body(error: TawlaError) -> dict[str, str]:
    """``{"error", "detail"}`` of an error."""
    return {"error": type(error).__name__, "detail": " ".join(str(error).split())}
