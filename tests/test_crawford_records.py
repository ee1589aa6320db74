"""The Crawford rule as records state it: a ``Crawford "Off"`` header is followed by the
analysis, written back to .mat and SGF, read from SGF's ``RU``; no Crawford on Tawla records."""

from importlib import resources

import tawla

from tawla.analysis import analyze_contents
from tawla.formats.matfile import parse_match, write_match
from tawla.formats.sgf import parse_sgf
from tawla.formats.sgf_write import write_sgf

DATA = resources.files("tawla") / "data"
BG = (DATA / "sample_backgammon.mat").read_text(encoding="utf-8")  # 3 points; game 2 at 0-2
OFF = BG.replace('; [Variation "Backgammon"]', '; [Variation "Backgammon"]\n; [Crawford "Off"]')


def test_mat_header_off_means_no_crawford_game():
    (on,) = analyze_contents([("on.mat", BG.encode())], evaluator=None)
    (off,) = analyze_contents([("off.mat", OFF.encode())], evaluator=None)
    assert [g.crawford for g in on.games] == [False, True]
    assert [g.crawford for g in off.games] == [False, False]
    assert all(g.error is None for g in off.games)


def test_sgf_written_and_read_with_the_rule():
    on, off = parse_match(BG), parse_match(OFF)
    assert on.crawford_rule and not off.crawford_rule
    text_on, text_off = write_sgf(on), write_sgf(off)
    assert "RU[Crawford]" in text_on and "RU[Crawford:CrawfordGame]" in text_on
    assert "RU[" not in text_off
    assert parse_sgf(text_on).crawford_rule
    assert '[Crawford "Off"]' in write_match(off) or 'Crawford "Off"' in write_match(off)
    # an SGF whose root states rules without Crawford: the rule is off
    assert not parse_sgf(text_on.replace("RU[Crawford:CrawfordGame]", "RU[Holland]").replace(
        "RU[Crawford]", "RU[Holland]")).crawford_rule


def test_tawla_records_have_no_crawford():
    t31 = parse_match((DATA / "sample_tawla31.mat").read_text(encoding="utf-8"))
    assert t31.match_length == 11 and not t31.crawford_rule
    assert "RU[" not in write_sgf(t31)


def test_a_match_without_the_rule_records_it():

    off = tawla.Match("backgammon", length=3, house=tawla.get_house("international", crawford=False), rng=1)
    assert 'Crawford "Off"' in off.to_mat() and "RU[" not in off.to_sgf()
    assert "RU[Crawford]" in tawla.Match("backgammon", length=3, rng=1).to_sgf()
