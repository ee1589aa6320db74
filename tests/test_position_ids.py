"""Tawla position IDs name their ruleset (and its options) in their last byte: an ID lands on
the same ruleset wherever it is given; another ruleset is refused; IDs written before the
byte named one (zero) still load with their ruleset given."""

from __future__ import annotations

import base64

import pytest

from tawla import Position
from tawla.errors import InvalidArgument, InvalidId
from tawla.rules import RULESET_IDS, get_ruleset, ruleset_byte, ruleset_of_byte

WITH_OPTIONS = [get_ruleset(n) for n in RULESET_IDS] + [
    get_ruleset("mahbusa", mother_rule="plakoto"), get_ruleset("mahbusa", mother_rule="plakoto", opening_reroll=True),
    get_ruleset("tawla31", quadrant_lock_win=False, bearoff_no_opponent_in_home=False),
    get_ruleset("backgammon", bar_backgammon_counts_double=True, previous_winner_starts=True),
    get_ruleset("adi", opening_reroll=True)]


def _old(pid: str) -> str:
    """The same ID as written before IDs named their ruleset (last byte zero)."""
    raw = base64.urlsafe_b64decode(pid)
    return base64.urlsafe_b64encode(raw[:-1] + bytes(1)).decode()


@pytest.mark.parametrize("r", WITH_OPTIONS, ids=repr)
def test_every_ruleset_round_trips(r):
    p = r.initial_position()
    back = Position.from_id(p.id())
    assert back == p and back.ruleset == r and back.ruleset.options == r.options
    assert Position.from_id(p.id(), r) == p
    assert ruleset_of_byte(ruleset_byte(r)) == r and 1 <= ruleset_byte(r) <= 127
    assert Position.from_id(_old(p.id()), r) == p  # an old ID, its ruleset given
    assert eval(repr(p), {"Position": Position}) == p


def test_bytes_are_distinct():
    assert len({ruleset_byte(r) for r in WITH_OPTIONS}) == len(WITH_OPTIONS)


@pytest.mark.parametrize("r", WITH_OPTIONS, ids=repr)
def test_another_ruleset_is_refused(r):
    pid = r.initial_position().id()
    for other in WITH_OPTIONS:
        if other != r:
            with pytest.raises(InvalidArgument, match="is a position of"):
                Position.from_id(pid, other)


def test_an_id_that_names_none_needs_its_ruleset():
    pid = _old(get_ruleset("tawla31").initial_position().id())
    with pytest.raises(InvalidArgument, match="names no ruleset"):
        Position.from_id(pid)


@pytest.mark.parametrize("byte", [6, 7, 0x80 | 1, (1 << 6) | 2, (1 << 5) | 5])
def test_bytes_no_ruleset_writes_are_refused(byte):
    raw = base64.urlsafe_b64decode(get_ruleset("backgammon").initial_position().id())
    with pytest.raises(InvalidId):
        Position.from_id(base64.urlsafe_b64encode(raw[:-1] + bytes((byte,))).decode())
