"""Checking the dice of a finished match played with :class:`tawla.match.fair_dice.FairDice`:
every roll of the document's log recomputed from the revealed seed and the client seeds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import FormatError, TawlaError, quote
from .document import _as_format_error, load_document
from .fair_dice import SCHEME, checked_client_seed, hex32, roll_dice
from .state_machine import Match

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
    (a start other than roll 0, a document that does not load as a match: a log that does not
    replay, a state, dice included, other than the replayed one), as sentences.
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


def _replay_problem(data: dict) -> str | None:
    """Why the document does not load as a match (its log replayed), or None."""
    try:
        Match.from_json(data)
    except FormatError as e:
        return f"the document does not load as a match: {e}"
    return None


@_as_format_error
def verify_dice(document) -> DiceVerification:
    """Recompute every roll of a match document (:meth:`tawla.Match.to_json` text or dict) from
    its revealed seed, under :data:`tawla.match.fair_dice.SCHEME`.

    The rolls are checked one by one against the scheme (from roll 0, the only start it
    has), and the document must also load as a match (:meth:`tawla.Match.from_json`: its log
    replayed, so a changed move or roll in any event is found); what fails is listed in
    ``problems``.

    Raises
    ------
    tawla.errors.FormatError
        Not a match document, dice other than fair dice, or the seed not revealed (a document
        taken from a match in progress).
    """
    data = load_document(document)
    cfg, st, events = data.get("config"), data.get("state"), data.get("events")
    if not isinstance(cfg, dict) or not isinstance(st, dict) or not isinstance(events, list):
        raise FormatError("a match document has config, state and events")
    initial = cfg.get("rng")
    if not isinstance(initial, dict) or initial.get("scheme") != SCHEME:
        raise FormatError(f"this match's dice are not fair dice ({SCHEME}): nothing to verify")
    if "seed" not in initial:
        raise FormatError("the seed is not revealed: the dice can be checked once the match is over")
    seed = hex32(initial["seed"], "seed")
    commitment = hex32(initial.get("commitment"), "commitment")
    seeds = initial.get("client_seeds")
    if not (isinstance(seeds, list) and len(seeds) == 2):
        raise FormatError(f"the client seeds are two texts, not {quote(seeds)}")
    try:
        pair = (checked_client_seed(seeds[0]), checked_client_seed(seeds[1]))
    except TawlaError as e:
        raise FormatError(str(e)) from None
    problems = []
    if initial.get("n") != 0 or type(initial.get("n")) is not int:
        problems.append(f"the match's dice start at roll {quote(initial.get('n'))}, not 0")
    mismatches = []
    rolls = logged_rolls(events)
    for n, (i, dice) in enumerate(rolls):
        expected = roll_dice(seed, pair, n)
        if dice != expected or not all(type(x) is int for x in dice):
            mismatches.append(DiceMismatch(n, i, dice, expected))
    # the state (its dice's roll count and seeds included) is checked against the replayed log
    replay = _replay_problem(data)
    if replay is not None:
        problems.append(replay)
    return DiceVerification(hashlib.sha256(seed).digest() == commitment, len(rolls),
                            tuple(mismatches), tuple(problems))
