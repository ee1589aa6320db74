"""``tawla verify-dice MATCH.json``: every roll of a finished fair-dice match recomputed from
its revealed seed (:func:`tawla.match.dice_verify.verify_dice`)."""

from __future__ import annotations

import argparse
import json

from ..errors import FormatError
from ..match.dice_verify import verify_dice

__all__ = ["add_parser", "run", "EXIT_DIFFERS"]

HELP = "check the dice of a finished fair-dice match against its revealed seed"
DESCRIPTION = (
    "Read a match document (Match.to_json, or the match of a finished room) whose dice were "
    "drawn as provably fair dice, check that the published commitment is SHA-256 of the "
    "revealed seed and recompute every roll (opening rolls and rerolls included) from the seed "
    "and the players' client seeds. Exit status 0 when all agree, 1 and the rolls that differ "
    "otherwise. The scheme is in docs/fair-dice.md."
)
EXIT_DIFFERS = 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``verify-dice`` on the ``tawla`` parser's subparsers."""
    p = subparsers.add_parser("verify-dice", help=HELP, description=DESCRIPTION)
    p.add_argument("match", help="a match document (.json), or a finished room's state as "
                                 "GET /v1/rooms/{code} gives it")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the text")
    p.set_defaults(run=run)
    return p


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"cannot read {path}: {e}") from None


def _document(text: str):
    """The match document of ``text``: a match document, or a room's state as ``GET
    /v1/rooms/{code}`` answers it (its ``match``)."""
    try:
        data = json.loads(text)
    except ValueError:
        return text  # verify_dice says what is wrong with it
    if isinstance(data, dict) and "format" not in data and isinstance(data.get("match"), dict):
        return data["match"]
    return data


def run(args: argparse.Namespace) -> int:
    """Print the verification; 0 if every roll agrees, :data:`EXIT_DIFFERS` if not."""
    v = verify_dice(_document(_read(args.match)))
    if args.json:
        print(json.dumps({"ok": v.ok, "commitment_ok": v.commitment_ok, "rolls": v.rolls,
                          "mismatches": [{"roll": m.roll, "event": m.event, "recorded": list(m.recorded),
                                          "expected": list(m.expected)} for m in v.mismatches],
                          "problems": list(v.problems)}))
        return 0 if v.ok else EXIT_DIFFERS
    print("commitment: " + ("SHA-256 of the seed" if v.commitment_ok
                            else "NOT the SHA-256 of the seed"))
    for m in v.mismatches:
        print(f"roll {m.roll} (event {m.event}): recorded {'-'.join(map(str, m.recorded))}, "
              f"the seed gives {m.expected[0]}-{m.expected[1]}")
    for text in v.problems:
        print(text)
    print(f"{v.rolls} rolls checked: " + ("all agree" if v.ok else f"{len(v.mismatches)} differ - NOT VERIFIED"))
    return 0 if v.ok else EXIT_DIFFERS
