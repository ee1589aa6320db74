"""The main job: replaying the real match archive, mutations, round trips, the command.

Real input: ../shared/data/matches (SOURCES.md describes each file and its defects).
"""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import tawla
from tawla.analysis import HeuristicEvaluator, analyze_paths, analyze_record, collect_files, read_record
from tawla.bots.selfplay import selfplay
from tawla.cli import main, sample_files
from tawla.formats import matfile

from conftest import shared_path

KNOWN_BAD = {  # SOURCES.md "Known bad data": (file, game) -> move number of the first defect
    ("match_25pt_2008-12-29.txt", 11): 24,
    ("match_25pt_2008-12-29.txt", 17): 24,
    ("match_25pt_2008-12-29.txt", 18): 13,
    ("studio_3pt_2024-05-11_id4211790.txt", 2): 24,
}
NOT_JELLYFISH = {"gammonx-variants", "bgammon-replay"}  # other formats: noted, not read


@pytest.fixture(scope="module")
def archive():
    folder = shared_path("data", "matches")
    files = [p for p in collect_files([folder]) if p.parent.name not in NOT_JELLYFISH]
    return files, analyze_paths(files)


def test_every_clean_game_replays(archive):
    files, reports = archive
    mats = [r for r in reports if not r.path.endswith(".sgf")]
    sgfs = [r for r in reports if r.path.endswith(".sgf")]
    assert len(mats) == 49 and len(sgfs) == 4
    assert all(r.error is None for r in reports)
    mat_games = [(r.path.rsplit("/", 1)[1], g) for r in mats for g in r.games]
    assert len(mat_games) == 476
    clean = [g for name, g in mat_games if (name, g.number) not in KNOWN_BAD]
    assert len(clean) == 472
    assert [g.error for g in clean if g.error] == []
    assert sum(len(g.games) for g in sgfs) == 14
    assert [g.error for r in sgfs for g in r.games if g.error] == []
    plays = sum(len(g.decisions) for _, g in mat_games)
    print(f"\n[archive] {len(clean)} clean .mat/.txt games + 14 SGF games replayed, {plays} .mat plays")


def test_known_bad_records_report_exactly_their_defects(archive):
    _files, reports = archive
    found = {(r.path.rsplit("/", 1)[1], g.number): g for r in reports for g in r.games if g.error}
    assert set(found) == set(KNOWN_BAD)
    for key, move in KNOWN_BAD.items():
        g = found[key]
        assert g.error_move == move
        assert key[0] in g.error and f"game {key[1]}" in g.error and f"move {move}" in g.error
        assert ("????" in g.error) == key[0].startswith("studio")


def test_roll_then_resign_is_not_illegal(archive):
    _files, reports = archive
    notes = [n for r in reports if not r.path.endswith(".sgf") for g in r.games for n in g.notes
             if "and resigned" in n]
    assert len(notes) == 9  # SOURCES.md: seen 9 times


def test_recorded_scores_are_checked(archive):
    _files, reports = archive
    notes = {(r.path.rsplit("/", 1)[1], g.number): n for r in reports for g in r.games for n in g.notes
             if "points" in n}
    assert notes[("test_match_4.txt", 26)] == "recorded 3 points: 4 capped at the 3 needed"
    assert notes[("galaxy_1pt_match1495872.txt", 1)] == "recorded 1 points: 2 capped at the 1 needed"
    assert len(notes) == 2  # everything else agrees with cube x 1/2/3 (Jacoby in money play)


def _illegal_variant(pos, dice, text, rng):
    """A play text that is illegal in ``pos``: one legal play with one checker's target moved."""
    tokens = text.split()
    for _ in range(50):
        i = rng.randrange(len(tokens))
        head = tokens[i].split("(")[0].rstrip("*")
        parts = head.split("/")
        try:
            src = 25 if parts[0] == "bar" else int(parts[0])
        except ValueError:
            continue
        target = rng.randint(1, 24)
        if target >= src:
            continue
        cand = " ".join(tokens[:i] + [f"{parts[0]}/{target}"] + tokens[i + 1:])
        try:
            tawla.parse_move(cand, pos, dice)
        except tawla.errors.IllegalMove:
            return cand
    return None


def test_mutations_are_located():
    folder = shared_path("data", "matches")
    rng = random.Random(20261130)
    files = [p for p in collect_files([folder]) if p.suffix != ".sgf" and p.parent.name not in NOT_JELLYFISH]
    targets = []  # (file, game number, move number)
    used_games = set()
    while len(targets) < 20:
        path = rng.choice(files)
        rec = read_record(path)
        gi = rng.randrange(len(rec.games))
        game = rec.games[gi]
        if (path, game.number) in used_games or game.defects:
            continue
        rolls = [a for a in game.actions if a.kind == "roll" and a.play]
        if not rolls:
            continue
        act = rng.choice(rolls)
        # replay up to the action to know the position
        rep = analyze_record(rec)
        if rep.games[gi].error:
            continue
        pos = tawla.get_ruleset("bg").initial_position()
        for a in game.actions:
            if a is act:
                break
            if a.kind == "roll":
                pos = pos.play(tawla.parse_move(a.play, pos, a.dice)) if a.play else pos.flip()
        bad = _illegal_variant(pos, act.dice, act.play, rng)
        if bad is None:
            continue
        act.play = bad
        mutated = matfile.parse_match(matfile.write_match(rec), path=str(path))
        rep = analyze_record(mutated)
        g = rep.games[gi]
        assert g.error is not None, (path, game.number, act.move_number, bad)
        assert g.error_move == act.move_number and f"game {game.number}" in g.error and bad in g.error
        assert "legal" in g.error
        used_games.add((path, game.number))
        targets.append((path.name, game.number, act.move_number))
    assert len({(f, g) for f, g, _ in targets}) == 20


def test_round_trip_through_the_writer(archive):
    files, reports = archive
    for path, rep in zip(files, reports):
        if path.suffix == ".sgf":
            continue
        rec = read_record(path)
        again = matfile.parse_match(matfile.write_match(rec), path=str(path))
        rep2 = analyze_record(again)
        assert [g.score for g in again.games] == [g.score for g in rec.games]
        for g1, g2 in zip(rep.games, rep2.games):
            assert (g1.error is None) == (g2.error is None)
            assert [d.move for d in g1.decisions] == [d.move for d in g2.decisions]
            assert (g1.cube_actions, g1.winner, g1.points, g1.ending) == (g2.cube_actions, g2.winner, g2.points,
                                                                         g2.ending)


def test_selfplay_records_round_trip_and_replay():
    from tawla.bots.selfplay import selfplay

    for name in tawla.RULESET_IDS:
        rec = selfplay(name, games=3, seed=5)
        text = matfile.write_match(rec)
        again = matfile.parse_match(text)
        assert again.variation == name
        rep = analyze_record(again)
        assert rep.ok, [g.error for g in rep.games]
        assert rep.ruleset == name
        assert all(g.ending for g in rep.games)
        assert matfile.write_match(selfplay(name, games=3, seed=5)) == text  # deterministic
        # the recorded points are the ones the rules give (money sessions: no Jacoby)
        assert not [n for g in rep.games for n in g.notes if "points" in n], name


def test_selfplay_money_session_scores_gammons():
    from tawla.bots.selfplay import selfplay

    rec = matfile.parse_match(matfile.write_match(selfplay("backgammon", games=12, seed=3)))
    assert rec.headers["Jacoby"] == "Off"
    rep = analyze_record(rec)
    assert any(g.points > 1 for g in rep.games)  # a gammon among 12 random games
    assert not [n for g in rep.games for n in g.notes]


def test_bundled_samples_are_reproducible():
    files = {p.rsplit("/", 1)[1]: p for p in sample_files()}
    assert set(files) == {"sample_backgammon.mat", "sample_tawla31.mat"}
    for path in files.values():
        assert '; [Comment "tawla.Bot level ply1 against itself' in open(path, encoding="utf-8").read()
    root = Path(__file__).resolve().parents[1]
    # the tawla this interpreter imports (the installed one, compiled modules included)
    r = subprocess.run([sys.executable, str(root / "tools" / "make_samples.py"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_cli_exit_codes(capsys, tmp_path):
    assert main(["analyze", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "sample_backgammon.mat" in out and "sample_tawla31.mat" in out
    assert main(["analyze", str(tmp_path / "nope.mat")]) == 2
    bad = tmp_path / "bad.mat"
    bad.write_text(" 1 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5     42: 8/4 6/1\n")
    assert main(["analyze", "--no-progress", str(bad)]) == 1
    capsys.readouterr()
    assert main(["analyze", "--json", str(bad)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["games_with_errors"] == 1
    (g,) = data["matches"][0]["games"]
    assert g["error_move"] == 1 and "8/4 6/1" in g["error"]
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("this is not a match\n")
    assert main(["analyze", "--no-progress", str(garbage)]) == 1


def test_unreadable_and_corrupt_files_are_reported_not_fatal(tmp_path, capsys):
    good = tmp_path / "good.mat"
    good.write_text(" 1 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5     42: 8/4 6/4\n")
    (tmp_path / "bad.sgf").write_text("(;GM;B[31])")
    (tmp_path / "deep.sgf").write_text("(" * 5000 + ")" * 5000)
    (tmp_path / "garbage.mat").write_bytes(b" 3 point match\n\n Game 1\n A : 0  B : 0\n\x01\x02garbage \xff\xfe\n")
    reports = analyze_paths(collect_files([tmp_path]))
    by_name = {r.path.rsplit("/", 1)[1]: r for r in reports}
    assert by_name["good.mat"].ok
    assert "FormatError" in by_name["bad.sgf"].error and "FormatError" in by_name["deep.sgf"].error
    assert not by_name["garbage.mat"].ok
    assert main(["analyze", "--no-progress", str(tmp_path)]) == 1
    assert main(["analyze", "--no-progress", str(good)]) == 0
    capsys.readouterr()


def test_selfplay_arguments(tmp_path):
    assert main(["selfplay", "--length", "0"]) == 2
    assert main(["selfplay", "--games", "-1"]) == 2
    assert main(["selfplay", "--games", "1", "--policy", "nonsense"]) in (1, 2)
    assert main(["selfplay", "--games", "1", "-o", str(tmp_path / "no" / "such" / "dir.mat")]) == 1
    assert main(["analyze", "--worst", "-5"]) == 2
    assert main(["analyze", ""]) == 2


# --- the hit rule on records: the record decides (literal snippets) -------------------------
# Player A opens 54: 24/20 13/8, leaving a blot on A's 20 = B's 5. B's 32 written '8/3' fits
# 8/5*/3 (hitting it) and 8/6 6/3 (through B's own 6 point). Game 1 holds one other hit, written
# with '*' or without; game 2 holds the open play and what follows it.
HIT_HEAD = " 3 point match\n\n"
HIT_GAME1 = (" Game 1\n Player A : 0                   Player B : 0\n"
             "  1) 54: 24/20 13/8             61: 13/7 6/5{star}\n"
             "  2)  Doubles => 2                Drops\n"
             "      Wins 1 point\n\n")
HIT_GAME2 = " Game 2\n Player A : 1                   Player B : 0\n  1) 54: 24/20 13/8             32: 8/3\n"
THEN_DROP = "  2)  Doubles => 2                Drops\n      Wins 1 point\n"  # nothing tells
THEN_ENTERS = ("  2) 41: bar/21 24/23             Doubles => 2\n  3)  Drops\n"
               "                                  Wins 1 point\n")  # A enters from the bar
THEN_RUNS = ("  2) 41: 20/16 24/23              Doubles => 2\n  3)  Drops\n"
             "                                  Wins 1 point\n")  # A's blot on 20 moves on


def _hit_record(star, then):
    return matfile.parse_match(HIT_HEAD + HIT_GAME1.format(star=star) + HIT_GAME2 + then)


@pytest.mark.parametrize("star,then,expected,noted", [
    ("*", THEN_DROP, "8/6 6/3", False),     # the file marks its other hits: no hit was written, none made
    ("", THEN_DROP, "8/6 6/3", True),       # nothing tells: read without the hit, with a note
    ("", THEN_ENTERS, "8/5*/3", False),     # the opponent enters from the bar: the hit happened
    ("*", THEN_ENTERS, "8/5*/3", False),    # ... even in a file that marks its hits
    ("", THEN_RUNS, "8/6 6/3", False),      # the opponent's blot moves on: no hit
])
def test_the_record_decides_an_unwritten_hit(star, then, expected, noted):
    rep = analyze_record(_hit_record(star, then))
    assert rep.ok, [g.error for g in rep.games]
    g1, g2 = rep.games
    assert (g1.hits_written, g1.hits_unwritten) == ((1, 0) if star else (0, 1))
    assert g2.decisions[1].text == "8/3" and g2.decisions[1].move == expected
    notes = [n for n in g2.notes if "8/3" in n]
    assert bool(notes) == noted
    if noted:
        assert notes == ["move 1: '8/3' also fits 8/5*/3; read as 8/6 6/3 (an unwritten hit is not assumed)"]


def test_an_open_hit_does_not_change_the_exit_status(tmp_path, capsys):
    path = tmp_path / "open_hit.mat"
    path.write_text(HIT_HEAD + HIT_GAME1.format(star="") + HIT_GAME2 + THEN_DROP, encoding="utf-8")
    assert main(["analyze", "--no-eval", "--no-progress", str(path)]) == 0
    assert "an unwritten hit is not assumed" in capsys.readouterr().out


def test_the_file_habit_settles_a_streamed_record(tmp_path, capsys):
    # Read game by game: the habit is that of the whole file, known only after its last game.
    path = tmp_path / "marked.mat"
    path.write_text(HIT_HEAD + HIT_GAME1.format(star="*") + HIT_GAME2 + THEN_DROP, encoding="utf-8")
    (rep,) = analyze_paths([path])
    assert rep.ok and rep.games[1].decisions[1].move == "8/6 6/3" and rep.games[1].notes == []
    assert main(["analyze", "--no-eval", "--no-progress", str(path)]) == 0
    assert "an unwritten hit is not assumed" not in capsys.readouterr().out


def test_two_hitting_readings_with_nothing_to_tell_are_an_error():
    # B's 31 '6/2' hits A's blot on B's 2 either way, and on B's 3 as well by 6/3*/2*.
    text = (" 3 point match\n\n Game 1\n Player A : 0                   Player B : 0\n"
            "  1) 21: 24/23 24/22             31: {play}\n"
            "  2)  Doubles => 2                Drops\n      Wins 1 point\n")
    g = analyze_record(matfile.parse_match(text.format(play="6/2"))).games[0]
    assert g.error_move == 1 and "'6/2' fits 2 legal moves" in g.error
    g = analyze_record(matfile.parse_match(text.format(play="6/3*/2*"))).games[0]
    assert g.error is None and g.decisions[1].move == "6/3*/2*" and not g.notes
    g = analyze_record(matfile.parse_match(text.format(play="6/2*"))).games[0]  # 6/3*/2* with a star left out?
    assert g.error is None and g.decisions[1].move == "6/2*"
    assert g.notes == ["move 1: '6/2*' also fits 6/3*/2*; read as 6/2* (an unwritten hit is not assumed)"]


def test_empty_player_name_replays_with_a_placeholder(tmp_path, capsys):
    path = tmp_path / "noname.mat"
    path.write_text(" 3 point match\n\n Game 1\n  : 0                           Player2 : 0\n"
                    "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
                    "  2)  Doubles => 2                Drops\n      Wins 1 point\n", encoding="utf-8")
    (rep,) = analyze_paths([path])
    assert rep.ok and rep.players == ("", "Player2") and len(rep.games[0].decisions) == 2
    assert rep.player_name(0) == "player 1" and rep.player_name(1) == "Player2"
    assert main(["analyze", "--no-eval", "--no-progress", str(path)]) == 0
    out = capsys.readouterr().out
    assert "player 1" in out and "Player2" in out


def test_streamed_and_whole_analyses_agree():
    folder = shared_path("data", "matches")
    files = [p for p in collect_files([folder]) if p.suffix != ".sgf" and p.parent.name not in NOT_JELLYFISH][::6]
    for path in files:
        streamed = analyze_paths([path])[0]
        whole = analyze_record(read_record(path))
        whole.path = str(path)
        assert streamed.to_dict() == whole.to_dict(), path.name


def test_plays_store_every_field():
    rec = matfile.parse_match(matfile.write_match(selfplay("backgammon", games=2, seed=7)))
    rep = analyze_record(rec, evaluator=HeuristicEvaluator())
    plays = rep.games[0].decisions
    assert len(plays) > 10 and plays[-1] == list(plays)[-1] and plays[:2] == [plays[0], plays[1]]
    for d in plays:
        assert d.game == rep.games[0].number and d.forced == (d.legal <= 1)
        assert d.rank >= 1 and d.equity_loss >= 0 and (d.best != "" or d.forced)
    assert plays.count() == plays.count(0) + plays.count(1)
    assert plays.count_forced() == sum(d.forced for d in plays)
    assert plays.loss_total() == pytest.approx(sum(d.equity_loss for d in plays))
    worst = plays.worst(3)
    assert [d.equity_loss for d in worst] == sorted((d.equity_loss for d in plays if not d.forced), reverse=True)[:3]


def test_the_old_name_of_the_equity_evaluator_warns():
    import tawla.analysis

    with pytest.warns(DeprecationWarning, match="EquityEvaluator"):
        assert tawla.analysis.Evaluator is tawla.analysis.EquityEvaluator
    with pytest.raises(AttributeError):
        tawla.analysis.NoSuchName  # noqa: B018
