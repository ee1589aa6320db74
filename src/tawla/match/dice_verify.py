"""Checking the dice of a finished match played with :class:`tawla.match.fair_dice.FairDice`:
every roll of the document's log recomputed from the revealed seed and the client seeds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import FormatError, quote
from .document import _load
from .fair_dice import SCHEME, roll_dice

__all__ = ["DiceMismatch", "DiceVerification", "verify_dice", "logged_rolls"]


@dataclass(frozen=True)
class DiceMismatch:
    """A roll of the log that is not the scheme's: roll number ``roll`` (0-based over the
    match), the index ``event`` of the event that records it, the dice recorded and the dice
    the seed gives."""

    roll: int
    event: int
    recorded: tuple[int, ...]
    expected: tuple[int, int]


@dataclass(frozen=True)
class DiceVerification:
    """The result of :func:`verify_dice`.

    ``commitment_ok``: the published commitment is SHA-256 of the revealed seed; ``rolls``:
    the rolls checked; ``mismatches``: those that differ; ``problems``: other disagreements
    (the state's roll count or seeds against the log and the configuration), as sentences.
    """

    commitment_ok: bool
    rolls: int
    mismatches: tuple[DiceMismatch, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Every check passed."""
        return self.commitment_ok and not self.mismatches and not self.problems


def logged_rolls(events: list) -> list[tuple[int, tuple]]:
    """``(event index, dice)`` of each throw a match log records, in order: the opening rolls
    (ties included), the rolls, and the rolls made for a player by a timeout."""
    out = []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            continue
        typ = ev.get("type")
        if typ in ("opening", "roll") or (typ == "timeout" and "dice" in ev):
            dice = ev.get("dice")
            out.append((i, tuple(dice) if isinstance(dice, list) else (dice,)))
    return out


def _hex32(v, what: str) -> bytes:
    if isinstance(v, str) and len(v) == 64:
        try:
            return bytes.fromhex(v)
        except ValueError:
            pass
    raise FormatError(f"the dice's {what} is 64 hex digits, not {quote(v)}")


def verify_dice(document) -> DiceVerification:
    """Recompute every roll of a match document (:meth:`tawla.Match.to_json` text or dict) from
    its revealed seed, under :data:`tawla.match.fair_dice.SCHEME`.

    Raises
    ------
    tawla.errors.FormatError
        Not a match document, dice other than fair dice, or the seed not revealed (a document
        taken from a match in progress).
    """
    data = _load(document)
    cfg, st, events = data.get("config"), data.get("state"), data.get("events")
    if not isinstance(cfg, dict) or not isinstance(st, dict) or not isinstance(events, list):
        raise FormatError("a match document has config, state and events")
    initial = cfg.get("rng")
    if not isinstance(initial, dict) or initial.get("scheme") != SCHEME:
        raise FormatError(f"this match's dice are not fair dice ({SCHEME}): nothing to verify")
    if "seed" not in initial:
        raise FormatError("the seed is not revealed: the dice can be checked once the match is over")
    seed = _hex32(initial["seed"], "seed")
    commitment = _hex32(initial.get("commitment"), "commitment")
    seeds = initial.get("client_seeds")
    if not (isinstance(seeds, list) and len(seeds) == 2 and all(isinstance(s, str) for s in seeds)):
        raise FormatError(f"the client seeds are two texts, not {quote(seeds)}")
    n0 = initial.get("n")
    if type(n0) is not int or n0 < 0:
        raise FormatError(f"the first roll's number is an int >= 0, not {quote(n0)}")
    pair = (seeds[0], seeds[1])
    mismatches = []
    rolls = logged_rolls(events)
    for k, (i, dice) in enumerate(rolls):
        expected = roll_dice(seed, pair, n0 + k)
        if dice != expected:
            mismatches.append(DiceMismatch(n0 + k, i, dice, expected))
    problems = []
    now = st.get("rng")
    if not isinstance(now, dict):
        problems.append("the state has no dice")
    else:
        if now.get("n") != n0 + len(rolls):
            problems.append(f"the state counts {quote(now.get('n'))} rolls, the log {n0 + len(rolls)}")
        for key in ("seed", "commitment", "client_seeds", "scheme"):
            if now.get(key) != initial.get(key):
                problems.append(f"the state's {key} is not the configuration's")
    return DiceVerification(hashlib.sha256(seed).digest() == commitment, len(rolls),
                            tuple(mismatches), tuple(problems))
