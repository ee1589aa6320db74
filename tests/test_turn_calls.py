"""The turn calls of step-by-step play (RULES.md §1.3, §1.4): ``turn_steps`` and ``turn_finals``.

* The reference twins (:mod:`tawla.reference.turn`): with no hops, ``turn_finals`` reaches
  exactly the legal moves' rows; every continuation is a chain of lit single steps that
  replays to its row; ``turn_steps``' combined steps are chains of lit single steps of one
  checker; an illegal hop raises IllegalMove naming the legal steps.
* :mod:`tawla.native` dispatches to the compiled calls when ``_fast`` has them (and not
  under ``TAWLA_ENGINE=reference``), to the reference twins otherwise.
* The compiled calls, where built, against the reference twins on random partial turns of
  every ruleset (positions of random games, finished games included; every prefix of a
  random walk through the lit steps is a case).
"""

from __future__ import annotations

import random
import types

import pytest

import tawla
from tawla import native
from tawla.native import movegen
from tawla.batch import random_positions
from tawla.core.dice import ROLLS
from tawla.errors import IllegalMove
from tawla.position import Position
from tawla.reference import turn as rt

CONFIGS = [(name, {}) for name in tawla.RULESET_IDS] + [
    ("mahbusa", {"mother_rule": "plakoto"}),
    ("tawla31", {"quadrant_lock_win": False}),
    ("tawla31", {"bearoff_no_opponent_in_home": False}),
]
CONFIG_IDS = [name + "".join(f"[{k}={v}]" for k, v in opts.items()) for name, opts in CONFIGS]
ALL_ROLLS = [(int(a), int(b)) for a, b in ROLLS]


def _walks(r, n_positions, seed):
    """``(row, dice, hops)`` for every prefix of a random walk through the lit single steps
    (reference twin), from positions of random games (start and finished games included)."""
    rnd = random.Random(seed)
    rows = random_positions(r, n_positions, seed=seed, include_start=True, include_over=True)
    for row in rows:
        row = row.tobytes()
        dice = rnd.choice(ALL_ROLLS)
        hops = ()
        while True:
            yield row, dice, hops
            singles, _combined, ended = rt.turn_steps(r, row, dice, hops)
            if not singles or ended:
                break
            hops = hops + (rnd.choice(singles)[:3],)


# --- the reference twins ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, opts", CONFIGS, ids=CONFIG_IDS)
def test_reference_finals_are_the_legal_moves_and_continuations_replay(name, opts):
    r = tawla.get_ruleset(name, **opts)
    cases = 0
    for row, dice, hops in _walks(r, 25, seed=11):
        finals = rt.turn_finals(r, row, dice, hops)
        if not hops:
            legal = [m.after for m in native.legal_moves(row, dice, r, engine="reference")]
            if legal:
                assert sorted(a for a, _ in finals) == sorted(legal)
            elif native.is_over(row, r):
                assert finals == []
            else:  # the turn passes: the board as it is
                assert finals == [(row, ())]
        assert len({a for a, _ in finals}) == len(finals)
        for after, cont in finals:
            walked = hops
            for hop in cont:  # each continuation hop is lit when it is played
                singles, _c, ended = rt.turn_steps(r, row, dice, walked)
                assert not ended and hop in singles
                walked = walked + (hop[:3],)
            assert rt.turn_steps(r, row, dice, walked)[:2] == ([], [])
            assert rt.after_hops(r, row, walked)[0] == after
            assert rt.after_hops(r, row, walked)[1][len(hops):] == tuple(h[3] for h in cont)
        cases += 1
    assert cases > 40


@pytest.mark.parametrize("name, opts", CONFIGS, ids=CONFIG_IDS)
def test_reference_combined_steps_are_chains_of_lit_steps(name, opts):
    r = tawla.get_ruleset(name, **opts)
    for row, dice, hops in _walks(r, 25, seed=12):
        singles, combined, ended = rt.turn_steps(r, row, dice, hops)
        if ended:
            assert singles == combined == []
        for a, b, ds, hit in combined:
            walked, p, hits = hops, a, False
            for d in ds:
                lit = rt.turn_steps(r, row, dice, walked)[0]
                step = next(x for x in lit if x[0] == p and x[2] == d)
                walked, p, hits = walked + (step[:3],), step[1], hits or step[3]
            assert (p, hits) == (b, hit)


@pytest.mark.parametrize("name, opts", CONFIGS, ids=CONFIG_IDS)
def test_reference_combined_steps_are_each_distinct_step_once(name, opts):
    """Every chain of two or more lit single steps of one checker is listed as a combined
    step with the same start, end, hit points and dice (in some order), and no two listed
    steps share those."""
    r = tawla.get_ruleset(name, **opts)
    cases = 0
    for row, dice, hops in _walks(r, 25, seed=13):
        singles, combined, _ended = rt.turn_steps(r, row, dice, hops)
        chains = set()

        def walk(walked, origin, at, ds, hits):
            for x in rt.turn_steps(r, row, dice, walked)[0]:
                if x[0] != at or at == 0:
                    continue
                h = hits | {x[1]} if x[3] else hits
                if ds:
                    chains.add((origin, x[1], h, tuple(sorted(ds + (x[2],)))))
                walk(walked + (x[:3],), origin, x[1], ds + (x[2],), h)

        for x in singles:
            walk(hops + (x[:3],), x[0], x[1], (x[2],), frozenset({x[1]}) if x[3] else frozenset())
        listed = []
        for a, b, ds, hit in combined:
            walked, p, h = hops, a, frozenset()
            for d in ds:
                step = next(x for x in rt.turn_steps(r, row, dice, walked)[0] if x[0] == p and x[2] == d)
                walked, p, h = walked + (step[:3],), step[1], h | {step[1]} if step[3] else h
            listed.append((a, b, h, tuple(sorted(ds))))
        assert len(listed) == len(set(listed)) and set(listed) == chains
        cases += len(chains)
    assert cases > 20


def test_reference_illegal_hops_raise_and_name_the_legal_steps():
    r = tawla.get_ruleset("backgammon")
    row = r.initial_position().row
    with pytest.raises(IllegalMove) as e:
        rt.turn_steps(r, row, (6, 5), [(24, 20, 4)])
    assert e.value.legal and all(isinstance(s.die, int) for s in e.value.legal)
    with pytest.raises(IllegalMove):
        rt.turn_finals(r, row, (6, 5), [(24, 18, 6), (24, 18, 6)])  # no second 6
    with pytest.raises(IllegalMove):
        rt.turn_steps(r, row, (6, 5), [(24, 18, 6), (18, 13, 5), (13, 8, 5)])  # dice used up
    singles, combined, ended = rt.turn_steps(r, row, (6, 5), [(24, 18, 6), (18, 13, 5)])
    assert (singles, combined, ended) == ([], [], False)


# --- the dispatch ------------------------------------------------------------------------------
def test_native_dispatches_to_the_compiled_calls_when_present(monkeypatch):
    r = tawla.get_ruleset("adi")
    row = r.initial_position().row
    calls = []
    fake = types.SimpleNamespace(
        turn_steps=lambda *a: calls.append(("steps", a)) or ([], [], False),
        turn_finals=lambda *a: calls.append(("finals", a)) or [],
    )
    monkeypatch.setattr(movegen, "_turns", fake)
    monkeypatch.setattr(movegen, "turn_params", lambda ruleset: ("params of", ruleset.name))
    monkeypatch.setattr(native.backend, "_MODULES", {"_turns": fake})
    monkeypatch.setattr(native.backend, "_DEFAULT", "fast")
    assert native.turn_engine() == "fast"
    assert native.turn_steps(row, (3, 1), (), r) == ([], [], False)
    assert native.turn_finals(row, (3, 1), ((24, 21, 3),), r) == []
    p = ("params of", "adi")
    assert calls == [("steps", (row, (3, 1), (), p)), ("finals", (row, (3, 1), ((24, 21, 3),), p))]
    assert native.turn_engine("reference") == "reference"
    assert native.turn_steps(row, (3, 1), (), r, engine="reference") == rt.turn_steps(r, row, (3, 1), ())
    native.backend.set_default_engine("reference")
    assert native.turn_engine() == "reference"
    assert native.turn_finals(row, (3, 1), (), r) == rt.turn_finals(r, row, (3, 1), ())
    assert len(calls) == 2
    monkeypatch.setattr(movegen, "_turns", None)
    native.backend.set_default_engine("fast")
    assert native.turn_engine() == "reference"
    assert native.turn_steps(row, (3, 1), (), r) == rt.turn_steps(r, row, (3, 1), ())
    assert len(calls) == 2


def test_the_compiled_calls_are_used_where_built():
    assert (movegen._turns is not None) == native.available()
    if native.default_engine() == "fast":
        assert native.turn_engine() == "fast"


# --- the compiled calls against the reference twins ---------------------------------------------
needs_compiled = pytest.mark.skipif(not native.available(), reason="the compiled engine is not built")


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except IllegalMove as e:
        return "IllegalMove", sorted(tuple(s)[:3] for s in (e.legal or ()))


def _normal_steps(res):
    kind, val = res
    if kind != "ok":
        return res
    singles, combined, ended = val
    return kind, ([tuple(x) for x in singles], [(a, b, tuple(d), bool(h)) for a, b, d, h in combined], bool(ended))


def _normal_finals(res):
    kind, val = res
    if kind != "ok":
        return res
    return kind, [(bytes(a), tuple((int(f), int(t), int(d), bool(h)) for f, t, d, h in c)) for a, c in val]


@needs_compiled
@pytest.mark.parametrize("name, opts", CONFIGS, ids=CONFIG_IDS)
def test_compiled_turn_calls_match_the_reference(name, opts):
    r = tawla.get_ruleset(name, **opts)
    rnd = random.Random(name + str(opts))
    cases = 0
    for row, dice, hops in _walks(r, 200, seed=7):
        want = _normal_steps(_outcome(rt.turn_steps, r, row, dice, hops))
        got = _normal_steps(_outcome(native.turn_steps, row, dice, hops, r, "fast"))
        assert got == want, (Position(row, r).id(), dice, hops)
        want = _normal_finals(_outcome(rt.turn_finals, r, row, dice, hops))
        got = _normal_finals(_outcome(native.turn_finals, row, dice, hops, r, "fast"))
        assert got == want, (Position(row, r).id(), dice, hops)
        # a hop that is not lit: both refuse it, naming the same legal steps
        lit = _outcome(rt.turn_steps, r, row, dice, hops)[1][0]
        bad = (rnd.randint(1, 25), rnd.randint(0, 24), rnd.randint(1, 6))
        if bad not in [x[:3] for x in lit]:
            want = _outcome(rt.turn_steps, r, row, dice, hops + (bad,))
            assert want[0] == "IllegalMove"
            assert _outcome(native.turn_steps, row, dice, hops + (bad,), r, "fast") == want
        cases += 1
    assert cases >= 500
