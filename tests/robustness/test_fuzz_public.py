"""Arbitrary values given to the public functions of every public module raise a
:class:`tawla.errors.TawlaError` subclass or succeed: never another exception, never a crash.

Each target draws its arguments from a mix of hostile values (None, bools, huge and negative
integers, NaN and infinities, text, bytes, nested containers, numpy arrays of any dtype and
shape, rows with arbitrary bytes) and genuine ones (positions, moves, dice, IDs, records and
match documents, some of them mutated), so that a call gets past its first check now and then.
The examples are derandomized (the same on every run) and few: 100 a target, the whole file
well under a minute on one core. Sizes (game and position counts) are drawn small or past
their limits: a valid large size is work, not an attack.
"""

import copy
import faulthandler
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tawla
from tawla import analysis, bearoff, evaluation, notation, svg, turn
from tawla.analysis import html_report
from tawla.bots import Bot, CubeAction
from tawla.errors import TawlaError
from tawla.formats import gnubg, matfile, sgf
from tawla.match import Match, get_house
from tawla.position import Position

RULESETS = ("backgammon", "adi", "mahbusa", "tawla31", "tawla31-saharat")
DATA = Path(tawla.__file__).resolve().parent / "data"
MAT_TEXT = (DATA / "sample_backgammon.mat").read_text()
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
PID = "4HPwATDgc/ABMA"
MID = "cAkAAAAAAAAA"

FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


# --- genuine values ------------------------------------------------------------------------
def _genuine_positions():
    out = []
    for name in RULESETS:
        r = tawla.get_ruleset(name)
        out.append(r.initial_position())
        out += tawla.array_to_positions(tawla.batch.random_positions(name, 6, seed=1, include_over=True), r)
    return out


POSITIONS = _genuine_positions()
ROWS = {name: tawla.batch.random_positions(name, 16, seed=2, include_over=True) for name in RULESETS}
MOVES = [m for p in POSITIONS[::3] for m in p.legal_moves((3, 1))[:3]]


def _genuine_match_doc():
    m = Match("backgammon", "international", 3, rng=5)
    rng = np.random.default_rng(0)
    for _ in range(12):
        if m.phase == "roll":
            m.roll(m.to_act)
        elif m.phase == "move":
            moves = m.legal_moves()
            m.play(m.to_act, moves[int(rng.integers(len(moves)))] if moves else None)
        else:
            break
    return m.to_dict()


DOC = _genuine_match_doc()

# --- hostile values ------------------------------------------------------------------------
DTYPES = [np.uint8, np.int8, np.int64, np.uint64, np.float64, np.float16, np.bool_, np.complex128, "U3", "S2"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 30), st.sampled_from([2**31, 2**63, 2**70, -2**63]),
    st.just(4400).map(lambda k: 10**k),  # past the int-to-str limit (repr fails)
    st.floats(), st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 2.5]), st.text(max_size=24),
    st.binary(max_size=64), st.sampled_from(["", "\x00", "²³", "31", "6-5", "13/7 8/7", "bar/22*"]), st.just(5000).map(lambda n: "A" * n),
)
NESTED = st.recursive(SCALARS, lambda c: st.lists(c, max_size=4) | st.tuples(c, c)
                      | st.dictionaries(st.text(max_size=6), c, max_size=3), max_leaves=6)
ARRAYS = st.one_of(
    hnp.arrays(st.sampled_from(DTYPES), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)),
    hnp.arrays(st.sampled_from([np.uint8, np.int64]), st.tuples(st.integers(0, 4), st.just(56))),
    st.just(np.array([[3, 1]], dtype=object)),
)


@st.composite
def mutated_rows(draw, name=None):
    """A few rows of a ruleset with some bytes set to arbitrary values (mostly invalid rows)."""
    name = name or draw(st.sampled_from(RULESETS))
    rows = ROWS[name][: draw(st.integers(0, 6))].copy()
    for _ in range(draw(st.integers(0, 4))):
        if len(rows):
            rows[draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, 55))] = draw(st.integers(0, 255))
    return rows


ANY = st.one_of(SCALARS, NESTED, ARRAYS, mutated_rows(), st.sampled_from(POSITIONS), st.sampled_from(MOVES),
                st.sampled_from(RULESETS))
RULESET = st.one_of(st.sampled_from(RULESETS), ANY)
POSITION = st.one_of(st.sampled_from(POSITIONS), ANY)
DICE = st.one_of(st.tuples(st.integers(1, 6), st.integers(1, 6)), st.tuples(st.integers(-2, 9), st.integers(-2, 9)),
                 st.lists(st.integers(0, 7), max_size=3), ANY)
ROWS_ANY = st.one_of(mutated_rows(), st.sampled_from(list(ROWS.values())), ANY)
BATCH_DICE = st.one_of(st.tuples(hnp.arrays(np.int64, st.tuples(st.integers(0, 6), st.just(2)), elements=st.integers(0, 7)),
                                  st.sampled_from([np.uint8, np.int64, np.float64, np.bool_]))
                        .map(lambda t: t[0].astype(t[1])), ANY)
SIZE = st.one_of(st.integers(-3, 40), st.sampled_from([2**31, 2**63, 2**70, -2**70, 10**4000]), st.none(), st.booleans(),
                 st.floats(), st.text(max_size=8), NESTED.filter(lambda v: not isinstance(v, int)))
"""A size: small, past any limit, or not an integer (a valid size in between is work, not an attack)."""
POINTS6 = st.one_of(st.lists(st.integers(-2, 16), min_size=6, max_size=6), st.lists(st.integers(0, 3), min_size=6, max_size=6),
                    hnp.arrays(st.sampled_from([np.int64, np.uint8, np.float64]), st.tuples(st.integers(0, 3), st.just(6))), ANY)


def mutated_text(base):
    """``base`` with a slice replaced by arbitrary text (or ``base`` itself, or any text)."""
    @st.composite
    def make(draw):
        i = draw(st.integers(0, len(base)))
        j = draw(st.integers(i, min(len(base), i + 40)))
        return base[:i] + draw(st.text(max_size=12)) + base[j:]
    return st.one_of(make(), st.just(base), st.text(max_size=40), ANY)


@st.composite
def mutated_doc(draw):
    """The genuine match document with one value somewhere replaced (or a key dropped)."""
    d = copy.deepcopy(DOC)
    node, key = d, draw(st.sampled_from(sorted(d)))
    for _ in range(draw(st.integers(0, 3))):
        child = node[key]
        if isinstance(child, dict) and child:
            node, key = child, draw(st.sampled_from(sorted(child)))
        elif isinstance(child, list) and child:
            node, key = child, draw(st.integers(0, len(child) - 1))
        else:
            break
    if isinstance(node, dict) and draw(st.integers(0, 5)) == 0:
        del node[key]
    else:
        node[key] = draw(st.one_of(SCALARS, NESTED))
    if draw(st.integers(0, 3)):
        return d
    try:
        return json.dumps(d, default=str)
    except ValueError:  # an int too long to write
        return d


def _match(seed, rolled):
    m = Match("backgammon", "international", 5, rng=seed)
    if rolled:
        m.roll(m.to_act)
    return m


def _record():
    return matfile.parse_match(MAT_TEXT)


# --- the targets: name -> (function, strategy of its argument tuple) ----------------------
T = {}


def target(name, fn, *args):
    T[name] = (fn, st.tuples(*args))


# tawla, tawla.position, tawla.rules
target("get_ruleset", lambda n, o: tawla.get_ruleset(n, **o) if isinstance(o, dict) else tawla.get_ruleset(n),
       RULESET, st.one_of(st.dictionaries(st.sampled_from(["jacoby", "mother_rule", "x"]), ANY, max_size=2), ANY))
target("Position.from_points", lambda r, a, b, bar, off: Position.from_points(r, a, b, bar=bar, off=off),
       RULESET, ANY, ANY, ANY, ANY)
target("Position.from_gnubg_id", Position.from_gnubg_id, mutated_text(PID), RULESET)
target("Position.from_xgid", Position.from_xgid, mutated_text(XGID), RULESET)
target("Position.from_id", Position.from_id, st.one_of(st.sampled_from([p.id() for p in POSITIONS]).flatmap(mutated_text), ANY), RULESET)
target("Position.from_array", Position.from_array, ROWS_ANY, RULESET)
target("Position.play", lambda p, m, d: p.play(m, d), st.sampled_from(POSITIONS), st.one_of(st.sampled_from(MOVES), ANY),
       DICE)
target("Position.legal_moves", lambda p, d: p.legal_moves(d), st.sampled_from(POSITIONS), DICE)
target("Position.result", lambda p, c: p.result(c), st.sampled_from(POSITIONS), ANY)
target("Position.xgid", lambda p, s: p.xgid(s), st.sampled_from(POSITIONS), ANY)
target("parse_move", tawla.parse_move, st.one_of(st.sampled_from(["13/10 24/23", "bar/22*", "6/off", "8/5(2)"]), ANY),
       POSITION, DICE)
target("legal_steps", tawla.legal_steps, POSITION, DICE, ANY)
target("opening_roll", tawla.opening_roll, RULESET, ANY, ANY)
target("positions_to_array", tawla.positions_to_array, st.one_of(st.lists(POSITION, max_size=3), ANY))
target("array_to_positions", tawla.array_to_positions, ROWS_ANY, RULESET)
target("ids_to_array", tawla.ids_to_array, st.one_of(st.lists(st.text(max_size=20), max_size=3), ANY), RULESET)
target("array_to_ids", tawla.array_to_ids, ROWS_ANY, RULESET)
target("MatchState", lambda kw: tawla.MatchState(**kw),
       st.dictionaries(st.sampled_from(["cube_value", "cube_owner", "player_on_roll", "crawford", "game_state", "turn",
                                        "double_offered", "resignation", "dice", "match_length", "score", "jacoby"]),
                       ANY, max_size=4))
target("MatchState.from_match_id", tawla.MatchState.from_match_id, mutated_text(MID))
target("MatchState.from_xgid", tawla.MatchState.from_xgid, mutated_text(XGID))
# tawla.batch
target("expand", lambda a, d, r, e: tawla.expand(a, d, ruleset=r, engine=e), ROWS_ANY, BATCH_DICE, RULESET,
       st.one_of(st.none(), st.sampled_from(["fast", "reference"]), ANY))
target("expand_all_rolls", lambda a, r: tawla.expand_all_rolls(a, ruleset=r), ROWS_ANY, RULESET)
target("playout", lambda r, n, s, t: tawla.playout(r, n, s, max_turns=t), RULESET, SIZE, ANY, SIZE)
target("random_positions", lambda r, n, s, k, a, b: tawla.batch.random_positions(r, n, s, parallel_games=k,
                                                                                  include_start=a, include_over=b),
       RULESET, SIZE, ANY, SIZE, ANY, ANY)
target("batch.legal_moves", tawla.batch.legal_moves, POSITION, DICE)
target("batch.pass_move", tawla.batch.pass_move, POSITION, DICE)
# tawla.evaluation, tawla.bearoff
target("evaluate", tawla.evaluate, ROWS_ANY, RULESET)
target("evaluate_rows", evaluation.evaluate_rows, ROWS_ANY, RULESET)
target("is_race", evaluation.is_race, ROWS_ANY, RULESET)
target("is_terminal", evaluation.is_terminal, ROWS_ANY, RULESET)
target("pip_counts", evaluation.pip_counts, ROWS_ANY, RULESET)
target("equity_from_probs", evaluation.equity_from_probs, ANY, RULESET)
target("bg_features", evaluation.bg_features, ANY, ANY)
target("LinearContact", lambda w, a, r: evaluation.LinearContact(w)(a, r), st.one_of(st.none(), ANY), ROWS_ANY, RULESET)
target("bearoff.one_sided", bearoff.one_sided, POINTS6, ANY)
target("bearoff.one_sided_many", bearoff.one_sided_many, POINTS6, ANY)
target("bearoff.mean_rolls", bearoff.mean_rolls, POINTS6, ANY)
target("bearoff.index", bearoff.index, POINTS6)
target("bearoff.two_sided", bearoff.two_sided, POINTS6, POINTS6)
target("bearoff.two_sided_many", bearoff.two_sided_many, POINTS6, POINTS6)
# tawla.bots
LEVEL = st.one_of(st.sampled_from(["random", "ply0", "ply1"]), ANY)
target("Bot", Bot, RULESET, LEVEL, ANY)
target("Bot.choose", lambda r, p, d: Bot(r, "ply0").choose(p, d), st.sampled_from(RULESETS), POSITION, DICE)
target("Bot.choose_rows", lambda r, a, d: Bot(r, "ply0").choose_rows(a, d), st.sampled_from(RULESETS), ROWS_ANY,
       BATCH_DICE)
target("Bot.values", lambda r, a, k: Bot(r, "ply0").values(a, k), st.sampled_from(RULESETS), ROWS_ANY,
       st.one_of(st.sampled_from([0, 1]), ANY))
target("Bot.preroll", lambda r, p: Bot(r, "ply0").preroll(p), st.sampled_from(RULESETS), POSITION)
target("Bot.cube_action", lambda r, p, v, o, e: Bot(r, "ply0").cube_action(p, v, o, e), st.sampled_from(RULESETS),
       POSITION, ANY, st.one_of(st.sampled_from([-1, 0, 1]), ANY), st.one_of(st.just(0.68), ANY))
target("Bot.timeout_policy", lambda p, d, s, c: Bot("backgammon", "ply0").timeout_policy()(p, d, s, c), POSITION, DICE,
       ANY, st.one_of(st.lists(st.sampled_from(MOVES), max_size=3), ANY))
target("CubeAction.from_probabilities", CubeAction.from_probabilities, ANY, ANY, ANY)
# tawla.notation, tawla.turn
target("notation.format_steps", notation.format_steps, ANY)
target("notation.fitting_moves", notation.fitting_moves, st.one_of(st.sampled_from(["13/10 24/23", "6/off"]), ANY),
       POSITION, DICE)
target("notation.written_hits", notation.written_hits, ANY)
target("notation.hit_points", notation.hit_points, st.one_of(st.sampled_from(MOVES), ANY))
target("turn.played_hops", turn.played_hops, ANY)
# tawla.formats
target("decode_position_id", lambda t, c: gnubg.decode_position_id(t, checkers=c), mutated_text(PID),
       st.one_of(st.just(15), ANY))
target("encode_position_id", lambda a, b: gnubg.encode_position_id(a, b), ANY, ANY)
target("decode_xgid", gnubg.decode_xgid, mutated_text(XGID))
target("encode_xgid", lambda a, b, kw: gnubg.encode_xgid(a, b, **kw), st.just([0] * 26) | ANY, st.just([0] * 26) | ANY,
       st.dictionaries(st.sampled_from(["turn", "cube_value", "dice", "score", "match_length", "max_cube"]), ANY, max_size=2))
target("parse_match", matfile.parse_match, mutated_text(MAT_TEXT))
target("read_match", matfile.read_match, ANY)
target("stream_match", lambda t: [list(acts) for _, acts in matfile.stream_match(t).games()], mutated_text(MAT_TEXT))
target("write_match", matfile.write_match, ANY)
target("parse_sgf", sgf.parse_sgf, mutated_text("(;FF[4]GM[6]SZ[24]PB[a]PW[b];B[31ab];W[42cd])"))
target("read_sgf", sgf.read_sgf, ANY)
target("sgf_point", sgf.sgf_point, ANY, ANY)
# tawla.match
target("get_house", lambda n, kw: get_house(n, **kw), st.one_of(st.sampled_from(["international", "federation",
                                                                                  "saharat"]), ANY),
       st.dictionaries(st.sampled_from(["turn_time", "step_time", "grace_period", "stake", "cube", "lengths"]), ANY,
                       max_size=2))
target("Match", lambda r, h, n, p, s: Match(r, h, n, p, rng=s), RULESET,
       st.one_of(st.sampled_from(["international", "federation", "saharat"]), ANY), st.one_of(st.integers(0, 7), ANY),
       st.one_of(st.just(("A", "B")), ANY), st.one_of(st.integers(0, 9), ANY))
ACTIONS = ["roll", "double", "take", "drop", "resign", "accept_resignation", "reject_resignation", "confirm", "undo",
           "leave", "disconnect", "reconnect", "can_double"]
target("Match.action", lambda s, rolled, a, p: getattr(_match(s, rolled), a)(p), st.integers(0, 5), st.booleans(),
       st.sampled_from(ACTIONS), st.one_of(st.sampled_from([0, 1]), ANY))
target("Match.step", lambda s, p, a, b, d: _match(s, True).step(p, a, b, d), st.integers(0, 5),
       st.one_of(st.sampled_from([0, 1]), ANY), st.one_of(st.integers(0, 25), ANY), st.one_of(st.integers(-1, 25), ANY), ANY)
target("Match.play", lambda s, p, mv: _match(s, True).play(p, mv), st.integers(0, 5), st.one_of(st.sampled_from([0, 1]), ANY),
       st.one_of(st.sampled_from(MOVES), ANY))
target("Match.resign", lambda s, p, k: _match(s, False).resign(p, k), st.integers(0, 5), st.sampled_from([0, 1]), ANY)
target("Match.on_timeout", lambda s, t: _match(s, True).on_timeout(t), st.integers(0, 5), ANY)
target("Match.from_json", Match.from_json, st.one_of(mutated_doc(), ANY))
target("Match.replay", Match.replay, st.one_of(mutated_doc(), ANY))
# tawla.analysis
target("analyze_record", lambda r: analysis.analyze_record(r), st.one_of(st.builds(_record), ANY))
target("analysis.read_record", analysis.read_record, ANY)
target("analysis.analyze_file", analysis.analyze_file, ANY)
target("analysis.collect_files", analysis.collect_files, st.one_of(st.lists(st.text(max_size=12), max_size=3), ANY))
target("analysis.ruleset_for_variation", analysis.ruleset_for_variation, ANY)
target("analysis.marks_all_hits", analysis.marks_all_hits, ANY)
target("analysis.html_report.rating", html_report.rating, ANY)
# tawla.svg
SVG_KEYS = ["dice", "cube", "lit_points", "lit_checker_points", "arrows", "flipped", "on_roll_color", "size",
            "coordinates", "players", "pips", "colors", "title", "id_prefix"]
target("svg.board", lambda p, kw: svg.board(p, **kw), st.one_of(POSITION, ANY),
       st.dictionaries(st.sampled_from(SVG_KEYS), st.one_of(ANY, st.sampled_from([(3, 1), (2, None), [24, 25, 0],
                                                                                  [(24, 21), MOVES[0]]])),
                       max_size=4))


@pytest.mark.parametrize("name", sorted(T))
@FUZZ
@given(data=st.data())
def test_public_function_raises_only_tawla_errors(name, data):
    fn, args = T[name]
    drawn = data.draw(args, label="args")
    try:
        fn(*drawn)
    except TawlaError:
        pass


@pytest.fixture(autouse=True)
def _stack_if_stuck():
    """Print the stacks when a target runs for minutes (a size that slipped through as work)."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
