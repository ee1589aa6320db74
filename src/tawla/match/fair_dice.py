"""Provably fair dice: a match's rolls derived from a server seed committed to in advance and
the players' client seeds, verifiable by anyone once the seed is revealed.

The scheme (``SCHEME``), written down once here and in ``docs/fair-dice.md``:

- the server draws a 32-byte ``seed`` and publishes ``commitment = SHA-256(seed)``;
- each player may set a client seed (printable text, 0..64 characters, UTF-8) until the first
  roll;
- roll ``n`` (0, 1, 2, ... over the whole match: opening rolls and their rerolls of ties
  included) reads the byte stream ``HMAC-SHA256(key=seed, msg)`` with
  ``msg = field(commitment) ‖ field(client_seed_0) ‖ field(client_seed_1) ‖ field(n)``, where
  ``field(b)`` is ``b``'s length as 4 bytes big-endian then ``b``, ``commitment`` its 32 raw
  bytes, a client seed its UTF-8 bytes and ``n`` 8 bytes big-endian; when those 32 bytes run
  out the stream goes on with ``HMAC-SHA256(key=seed, msg ‖ field(k))``, k = 1, 2, ... (k as
  4 bytes big-endian);
- each die takes the next byte ``b`` of the stream that is below 252 (bytes 252..255 are
  skipped, so every face has 42 of the 252 values: no modulo bias) and is ``b % 6 + 1``; the
  first die is the first such byte, the second die the next.

The dice are not derived from the published hash alone (a player who knows the commitment
cannot compute a roll without the seed), and the seed is fixed before the client seeds are
known to the server's dice (the commitment is published first).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..errors import ConfigError, FormatError, InvalidAction, quote

__all__ = ["FairDice", "SCHEME", "roll_dice", "commitment_of", "checked_client_seed", "hex32", "MAX_CLIENT_SEED", "MAX_ROLLS"]

SCHEME = "hmac-sha256-dice-1"
"""The scheme's name, as a match document's ``rng`` object gives it (``"scheme"``)."""
MAX_CLIENT_SEED = 64
"""The longest client seed, in characters."""
MAX_ROLLS = 2**64
"""Roll numbers are written in 8 bytes: 0 <= n < MAX_ROLLS."""
_SEED_BYTES = 32


def _field(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def commitment_of(seed: bytes) -> bytes:
    """SHA-256 of ``seed`` (32 bytes): what is published before the first roll."""
    return hashlib.sha256(seed).digest()


def roll_dice(seed: bytes, client_seeds: tuple[str, str], n: int) -> tuple[int, int]:
    """Roll ``n`` (int >= 0) of a match under :data:`SCHEME`: two dice, each 1..6.

    ``seed`` is the server's 32-byte seed, ``client_seeds`` the two players' texts ("" when a
    player set none).
    """
    msg = (_field(commitment_of(seed)) + _field(client_seeds[0].encode("utf-8"))
           + _field(client_seeds[1].encode("utf-8")) + _field(n.to_bytes(8, "big")))
    dice: list[int] = []
    block, k = hmac.new(seed, msg, hashlib.sha256).digest(), 0
    while True:
        for b in block:
            if b < 252:
                dice.append(b % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
        k += 1
        block = hmac.new(seed, msg + _field(k.to_bytes(4, "big")), hashlib.sha256).digest()


def checked_client_seed(text) -> str:
    """``text`` if it is a client seed: printable text (no control characters, no lone
    surrogates) of at most :data:`MAX_CLIENT_SEED` characters.

    Raises
    ------
    tawla.errors.InvalidAction
        Anything else.
    """
    if type(text) is not str or len(text) > MAX_CLIENT_SEED or not text.isprintable():  # lone surrogates are not
        raise InvalidAction(f"a client seed is printable text of at most {MAX_CLIENT_SEED} "
                            f"characters, not {quote(text)}")
    return text


class FairDice:
    """A match's dice source under :data:`SCHEME`: give it to :class:`tawla.Match` as ``rng``
    (one match each: a match refuses dice that have rolled already). Publish
    :attr:`commitment` and take the players' client seeds (:meth:`set_client_seed`) before
    creating the match, which throws the opening roll at once.

    ``FairDice()`` draws a new secret seed (``secrets.token_bytes``); ``FairDice(seed)``
    uses the given 32 bytes (tests, replays). :attr:`n` counts the rolls made.

    Raises
    ------
    tawla.errors.ConfigError
        A seed that is not 32 bytes.
    """

    __slots__ = ("seed", "commitment", "client_seeds", "n")

    def __init__(self, seed: bytes | None = None, client_seeds: tuple[str, str] = ("", ""),
                 n: int = 0) -> None:
        if seed is None:
            seed = secrets.token_bytes(_SEED_BYTES)
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != _SEED_BYTES:
            raise ConfigError(f"a fair-dice seed is {_SEED_BYTES} bytes, not {quote(seed)}")
        if type(n) is not int or not 0 <= n < MAX_ROLLS:
            raise ConfigError(f"a roll count is an int in 0..2**64-1, not {quote(n)}")
        if not isinstance(client_seeds, (tuple, list)) or len(client_seeds) != 2:
            raise ConfigError(f"client seeds are two texts, not {quote(client_seeds)}")
        try:
            pair = (checked_client_seed(client_seeds[0]), checked_client_seed(client_seeds[1]))
        except InvalidAction as e:
            raise ConfigError(str(e)) from None
        self.seed = bytes(seed)
        self.commitment = commitment_of(self.seed)
        self.client_seeds = pair
        self.n = n

    def set_client_seed(self, seat: int, text: str) -> None:
        """Set seat ``seat``'s (0 or 1) client seed; allowed until the first roll.

        Raises
        ------
        tawla.errors.InvalidAction
            A roll was made already, a seat other than 0 or 1, or a seed that is not printable
            text of at most :data:`MAX_CLIENT_SEED` characters; nothing changes.
        """
        if self.n:
            raise InvalidAction("the client seeds are fixed once the first roll is made")
        if type(seat) is not int or seat not in (0, 1):
            raise InvalidAction(f"a seat is 0 or 1, not {quote(seat)}")
        text = checked_client_seed(text)
        pair = list(self.client_seeds)
        pair[seat] = text
        self.client_seeds = (pair[0], pair[1])

    def throw(self) -> tuple[int, int]:
        """The next roll (roll :attr:`n`), counting it."""
        dice = roll_dice(self.seed, self.client_seeds, self.n)
        self.n += 1
        return dice

    def to_json(self) -> dict:
        """The state as a match document's ``rng`` object: ``scheme``, ``seed`` and
        ``commitment`` (hex), ``client_seeds`` (two texts), ``n`` (rolls made)."""
        return {"scheme": SCHEME, "seed": self.seed.hex(), "commitment": self.commitment.hex(),
                "client_seeds": list(self.client_seeds), "n": self.n}

    def public(self, reveal: bool = False) -> dict:
        """:meth:`to_json` without the seed unless ``reveal`` (what players may see during a
        match: the commitment, the client seeds, the rolls made)."""
        out = self.to_json()
        if not reveal:
            del out["seed"]
        return out

    @classmethod
    def from_json(cls, obj) -> FairDice:
        """The dice source of a :meth:`to_json` object.

        Raises
        ------
        tawla.errors.FormatError
            Missing or extra fields, a seed that is not 64 hex digits, a commitment that is not
            the seed's SHA-256, bad client seeds or roll count.
        """
        keys = {"scheme", "seed", "commitment", "client_seeds", "n"}
        if not isinstance(obj, dict) or set(obj) != keys or obj["scheme"] != SCHEME:
            raise FormatError(f"fair dice are an object with the fields {sorted(keys)} "
                              f"and scheme {SCHEME!r}")
        seed = hex32(obj["seed"], "seed")
        if hex32(obj["commitment"], "commitment") != commitment_of(seed):
            raise FormatError("the fair dice's commitment is not the SHA-256 of their seed")
        try:
            return cls(seed, obj["client_seeds"], obj["n"])
        except ConfigError as e:
            raise FormatError(f"fair dice: {e}") from None


def hex32(v, what: str) -> bytes:
    """The 32 bytes written as 64 hex digits ``v`` (``what`` names them in the error).

    Raises
    ------
    tawla.errors.FormatError
        Anything else (spaces and prefixes included).
    """
    if isinstance(v, str) and len(v) == 2 * _SEED_BYTES and all(ch in "0123456789abcdefABCDEF" for ch in v):
        return bytes.fromhex(v)
    raise FormatError(f"the fair dice's {what} is {2 * _SEED_BYTES} hex digits, not {quote(v)}")
