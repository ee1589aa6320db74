"""Saved matches keep loading: literal ``tawla-match`` documents (schema version 1).

``tests/data/saved_matches.jsonl`` holds, per configuration (every ruleset, every house,
timers, coin tables, money sessions), a match saved part-way by :meth:`Match.to_json` and
the same match saved again after :func:`drive` played on from it with a seeded generator.
The engine must load each document (:meth:`Match.from_json`), rebuild it from its log
(:meth:`Match.replay`) byte for byte, and, played on by the same driver, reach the second
document byte for byte: same legal steps, same forced moves, same timeout completions
(the ``ply0`` bot's policy, named here so that the documents do not change with the shipped
networks that the default policy uses), same cube, resignation and forfeit handling.

``earlier_final`` is the second document as the driver reached it while ``legal_steps``
still listed both orders of the dice of a combined step (the driver's random choices ran
over a longer list); those documents, whose logs hold steps in the order no longer listed,
must load and replay byte for byte too.
"""

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest

import tawla
from tawla import errors
from tawla.bots import bot_policy
from tawla.match import Match

from match_helpers import Clock, drive

DATA = Path(__file__).resolve().parent / "data" / "saved_matches.jsonl"

# (ruleset, house, house overrides, length): each line of the data file names one of these.
CONFIGS = [
    ("tawla31", "federation", {}, 11),
    ("tawla31", "federation", {"turn_time": 30}, 1),
    ("adi", "federation", {"turn_time": None}, 3),
    ("adi", "saharat", {}, 5),
    ("mahbusa", "saharat", {"stake": 100, "grace_period": 40}, 5),
    ("mahbusa", "saharat", {"ruleset_options": {"mother_rule": "plakoto"}}, 1),
    ("tawla31-saharat", "saharat", {"stake": 10}, 5),
    ("backgammon", "international", {}, 5),
    ("backgammon", "international", {"holland": True, "turn_time": 60}, 3),
    ("backgammon", "international", {"turn_time": 20, "step_time": 10}, 0),
    ("backgammon", "international", {"jacoby": False, "crawford": False}, 0),
    ("adi", "international", {"ruleset_options": {"previous_winner_starts": True}}, 2),
    ("tawla31", "international", {"ruleset_options": {"opening_reroll": False}}, 15),
]


def _lines():
    return [json.loads(ln) for ln in DATA.read_text(encoding="utf-8").splitlines() if ln.strip()]


LINES = _lines() if DATA.exists() else []


def test_the_data_covers_every_configuration_and_input_event():
    assert len(LINES) == len(CONFIGS)
    assert [x["config"] for x in LINES] == [list(c) for c in CONFIGS]
    types = {ev["type"] for x in LINES for ev in json.loads(x["final"])["events"]}
    assert set(tawla.match.INPUT_EVENTS) <= types
    phases = {json.loads(x["saved"])["state"]["phase"] for x in LINES}
    assert {"move", "roll", "resign"} <= phases
    assert "over" in {json.loads(x["final"])["state"]["phase"] for x in LINES}
    assert any(json.loads(x["saved"])["state"]["played"] for x in LINES)


_ID = re.compile(r'"(board|after)": ?"([A-Za-z0-9_-]{40})"')


def _plain(doc: str) -> str:
    """A document with the last byte of every position ID zeroed: the documents here were
    written before IDs named their ruleset there; a match saves its boards with the byte now
    and still loads and replays the old ones. Everything else must stay byte for byte."""
    def zero(m):
        raw = base64.urlsafe_b64decode(m.group(2))
        return f'"{m.group(1)}":"{base64.urlsafe_b64encode(raw[:-1] + bytes(1)).decode()}"'
    return _ID.sub(zero, doc)


def _same(new: str, old: str) -> bool:
    return _plain(new) == _plain(old)


def test_a_saved_match_names_its_ruleset_in_its_boards():
    x = LINES[0]
    doc = json.loads(Match.from_json(x["saved"]).to_json())
    board = doc["state"]["board"]
    assert tawla.Position.from_id(board).ruleset.name == x["config"][0] == "tawla31"
    assert base64.urlsafe_b64decode(board)[-1] != 0
    assert base64.urlsafe_b64decode(json.loads(x["saved"])["state"]["board"])[-1] == 0  # the old document's


@pytest.mark.parametrize("line", range(len(CONFIGS)))
def test_saved_match_loads_replays_and_plays_on(line):
    x = LINES[line]
    saved, final = x["saved"], x["final"]
    assert _same(Match.from_json(saved).to_json(), saved)
    assert _same(Match.replay(saved).to_json(), saved)
    assert _same(Match.replay(final).to_json(), final)
    if "earlier_final" in x:
        earlier = x["earlier_final"]
        assert _same(Match.from_json(earlier).to_json(), earlier)
        assert _same(Match.replay(earlier).to_json(), earlier)
    clock = Clock(x["clock"])
    cfg = json.loads(saved)["config"]
    ruleset = tawla.get_ruleset(cfg["ruleset"], **cfg["ruleset_options"])
    m = Match.from_json(saved, clock=clock, timeout_policy=bot_policy(ruleset, "ply0"))
    drive(m, np.random.default_rng(x["seed"] + 1), clock, x["more"])
    assert _same(m.to_json(), final)
