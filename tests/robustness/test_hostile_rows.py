"""Rows and dice are checked before compiled code reads them (RULES.md §1.2 for what a
position is). Each case runs in a subprocess, so that a crash of the interpreter fails the
test instead of killing the test runner."""

import subprocess
import sys
import textwrap

import pytest

from tawla import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled engine reads rows only when built")

PRELUDE = """
import numpy as np, tawla
from tawla.bots import Bot
r = tawla.get_ruleset("backgammon")
def row(**points):
    a = np.zeros((1, 56), np.uint8)
    for k, v in points.items():
        a[0, int(k[1:])] = v
    return a
def expect(fn, name):
    try:
        fn()
    except tawla.errors.TawlaError as e:
        assert type(e).__name__ == name, (type(e).__name__, str(e))
        print("refused:", type(e).__name__)
    else:
        raise SystemExit("accepted")
"""

CASES = {
    # 25 checkers on one point: the race model read past its tables
    "evaluate_25_on_a_point": 'expect(lambda: tawla.evaluate(row(p6=25, p45=15), "backgammon"), "InvalidPosition")',
    "evaluate_15_on_two_points": 'expect(lambda: tawla.evaluate(row(p6=15, p5=15, p45=15), "backgammon"), "InvalidPosition")',
    "evaluate_20_on_a_point": 'expect(lambda: tawla.evaluate(row(p6=20, p45=15), "backgammon"), "InvalidPosition")',
    "bot_values_bad_children": 'expect(lambda: Bot("backgammon", "ply1").values(row(p6=25, p45=15)), "InvalidPosition")',
    "choose_rows_int64_wraps": ('a = row(p6=15, p45=15).astype(np.int64); a[0, 6] = 261\n'
                                'expect(lambda: Bot("backgammon", "ply0").choose_rows(a, [[3, 1]]), "InvalidId")'),
    "choose_rows_dice_259": ('expect(lambda: Bot("backgammon", "ply0").choose_rows(row(p6=15, p45=15), '
                             'np.array([[259, 257]])), "InvalidDice")'),
    "expand_float_dice": ('expect(lambda: tawla.expand(row(p6=15, p45=15), np.array([[1.5, 2.9]]), '
                          'ruleset="backgammon"), "InvalidDice")'),
    "expand_bool_dice": ('expect(lambda: tawla.expand(row(p6=15, p45=15), np.array([[True, True]]), '
                         'ruleset="backgammon"), "InvalidDice")'),
    "evaluate_rows_25_on_a_point": ('from tawla.evaluation import evaluate_rows\n'
                                    'expect(lambda: evaluate_rows(row(p6=25, p45=15), r), "InvalidPosition")'),
    "expand_25_on_a_point": ('expect(lambda: tawla.expand(row(p6=25, p45=15), np.array([[3, 1]]), ruleset="backgammon"), '
                             '"InvalidPosition")'),
    "expand_all_rolls_255s": ('expect(lambda: tawla.expand_all_rolls(np.full((2, 56), 255, np.uint8), ruleset="mahbusa"), '
                              '"InvalidPosition")'),
    "compiled_expand_checks_by_default": ('p = native.backend.params(r)\n'
                                          'expect(lambda: native.backend.compiled("_movegen").expand(row(p6=25, p45=15), np.array([[3, 1]], np.uint8), p), '
                                          '"InvalidPosition")'),
    "flip_rows_narrow": ('from tawla.native import _codec\n'
                         'expect(lambda: _codec.flip_rows(np.zeros((2, 8), np.uint8), False), "InvalidPosition")'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_rows_and_dice_are_refused_without_a_crash(case):
    code = textwrap.dedent(PRELUDE) + "from tawla import native\n" + CASES[case] + "\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr[-2000:]}"
    assert "refused:" in run.stdout
