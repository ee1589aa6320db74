"""``tawla analyze --html``: one self-contained XHTML page with error rates, ratings and the worst
plays on SVG boards, from the bundled samples and from real records of ../shared/data/matches."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from browser_helpers import chrome
from conftest import shared_path
from tawla import Position
from tawla.analysis import analyze_file
from tawla.analysis.evaluators import HeuristicEvaluator
from tawla.analysis.html_report import RATING_BANDS, cube_checks, player_stats, rating, render_html, worst_plays
from tawla.cli import main
from tawla.errors import FormatError, InvalidArgument

X = "{http://www.w3.org/1999/xhtml}"
S = "{http://www.w3.org/2000/svg}"
DATA = Path(__file__).resolve().parents[1] / "src" / "tawla" / "data"
SAMPLES = sorted(DATA.glob("*.mat"))


def page(path) -> ET.Element:
    root = ET.parse(path).getroot()          # well-formed XML, else ParseError
    assert root.tag == X + "html"
    return root


def self_contained(text: str) -> None:
    assert "http://" not in text.replace("http://www.w3.org/", "") and "https://" not in text
    assert "<script" not in text and " src=" not in text


class TestRating:
    """GNU Backgammon's bands (analysis.c): per unforced move, in points (x 1000 = mEMG)."""

    @pytest.mark.parametrize("rate, name", [(0.0, "Supernatural"), (0.0019, "Supernatural"),
                                            (0.002, "World class"), (0.0049, "World class"), (0.005, "Expert"),
                                            (0.008, "Advanced"), (0.012, "Intermediate"),
                                            (0.018, "Casual player"), (0.026, "Beginner"), (0.035, "Awful!"),
                                            (1.0, "Awful!"), (None, "N/A")])
    def test_bands(self, rate, name):
        assert rating(rate) == name

    def test_bands_ascend(self):
        bounds = [b for b, _ in RATING_BANDS]
        assert bounds == sorted(bounds) and len(bounds) == 8

    @pytest.mark.parametrize("bad", [-0.001, float("nan")])
    def test_bad_rate(self, bad):
        with pytest.raises(InvalidArgument):
            rating(bad)


class TestSamples:
    def test_cli_page_of_the_bundled_samples(self, tmp_path, capsys):
        out = tmp_path / "report.html"
        assert main(["analyze", "--workers", "1", "--no-progress", "--html", str(out), *map(str, SAMPLES)]) == 0
        text = out.read_text(encoding="utf-8")
        self_contained(text)
        root = page(out)
        boards = list(root.iter(S + "svg"))
        plays = [e for e in root.iter(X + "div") if e.get("class") == "play"]
        cubes = [e for e in root.iter(X + "div") if e.get("class") == "cube"]
        assert plays and all(len(list(p.iter(S + "svg"))) == 2 for p in plays)   # the play made and the best one
        assert cubes and len(boards) == 2 * len(plays) + len(cubes)            # the sample doubles
        for b in boards:
            assert b.get("data-position") and list(b.iter(S + "g"))
        ids = [e.get("id") for e in root.iter() if e.get("id")]
        assert len(ids) == len(set(ids))                          # several boards, one page
        players = [e for e in root.iter(X + "table") if e.get("class") == "players"]
        assert len(players) == len(SAMPLES)
        ratings = {row.findall(X + "td")[-1].text for t in players for row in t.iter(X + "tr") if row.findall(X + "td")}
        assert ratings <= {name for _, name in RATING_BANDS} | {"N/A"}
        assert "N/A" in ratings                                   # the Tawla 31 sample: 15-point games
        assert "Position ID " in text and "tawla ID " in text     # gnubg IDs and tawla IDs

    def test_boards_show_the_position_before_the_play(self):
        rep = analyze_file(DATA / "sample_backgammon.mat", evaluator=HeuristicEvaluator())
        items = worst_plays(rep, 2)
        assert items and all(a["decision"].equity_loss >= b["decision"].equity_loss for a, b in zip(items, items[1:]))
        root = ET.fromstring(render_html([rep], HeuristicEvaluator(), worst=2))
        boards = list(root.iter(S + "svg"))
        for item, k in zip(items, range(0, len(boards), 2)):
            pos = Position.from_id(item["tawla_id"], "backgammon")
            assert boards[k].get("data-position") == pos.id() == boards[k + 1].get("data-position")
            d = item["decision"]
            assert boards[k].find(f".//{S}g[@class='dice']").get("data-dice") == f"{d.dice[0]}{d.dice[1]}"
            arrows = [e for e in boards[k].iter(S + "g") if e.get("class") == "arrow"]
            assert arrows or not d.move
            assert all(a.find(S + "line").get("stroke") == "#c62828" for a in arrows)

    def test_player_stats(self):
        rep = analyze_file(DATA / "sample_backgammon.mat", evaluator=HeuristicEvaluator())
        stats = player_stats(rep)
        assert [s["plays"] for s in stats] == [sum(1 for d in rep.decisions(p)) for p in (0, 1)]
        for s in stats:
            assert s["milli"] == pytest.approx(1000 * s["error_total"] / s["unforced"])
            assert s["rating"] == rating(s["error_rate"])

    def test_replay_only_page(self, tmp_path):
        out = tmp_path / "r.html"
        assert main(["analyze", "--no-eval", "--workers", "1", "--no-progress", "--html", str(out), str(SAMPLES[0])]) == 0
        root = page(out)
        assert not [e for e in root.iter(X + "div") if e.get("class") == "play"]   # nothing ranked: no worst plays

    def test_unwritable_path(self, tmp_path, capsys):
        code = main(["analyze", "--no-eval", "--workers", "1", "--no-progress", "--html",
                     str(tmp_path / "no" / "such" / "dir.html"), str(SAMPLES[0])])
        assert code != 0 and "FormatError: cannot write the HTML report" in capsys.readouterr().err


def test_real_records(tmp_path, capsys):
    """A few records of the shared archive, with cube actions and scores."""
    folder = shared_path("data", "matches")
    files = [folder / "bglab-galaxy" / "galaxy_7pt_match1209980.txt", folder / "bglab-studio" / "studio_5pt_2024-04-22_id4141034.txt",
             folder / "backgammonlib" / "test_match_1.txt"]
    files = [shared_path(*f.relative_to(folder.parent.parent).parts) for f in files]
    out = tmp_path / "real.html"
    try:
        main(["analyze", "--heuristic", "--workers", "1", "--no-progress", "--worst", "2", "--html", str(out),
              *map(str, files)])
    except FormatError:
        pass                                 # a record with defects: the page is written all the same
    text = out.read_text(encoding="utf-8")
    self_contained(text)
    root = page(out)
    sections = [e for e in root.iter(X + "h2")]
    assert len(sections) == len(files)
    assert len(list(root.iter(S + "svg"))) >= 4
    assert "Match ID " in text and "XGID=" in text
    cubes = [e for e in root.iter(X + "table") if e.get("class") == "cubes"]
    assert cubes and any(e.get("class") == "cube" for e in root.iter(X + "div"))


def test_cube_checks_pair_doubles_with_answers():
    """Each double with its take or drop, the board before the doubler's roll, the model's verdict."""
    path = shared_path("data", "matches", "bglab-galaxy", "galaxy_7pt_match1209980.txt")
    rep = analyze_file(path)
    checks = cube_checks(rep)
    decisions = [c for g in rep.games for c in g.cube_decisions]
    assert len(checks) == sum(1 for c in decisions if c["kind"] == "double")
    assert sum(1 for c in checks if c["answer"]) == sum(1 for c in decisions if c["kind"] != "double")
    assert [c["disagreements"] for c in checks] == sorted((c["disagreements"] for c in checks), reverse=True)
    for c in checks:
        pos = Position.from_id(c["board"], "backgammon")
        assert c["model"] is not None and c["double_ok"] == c["model"].double
        assert pos.result() is None
    # the JSON carries the cube decisions too
    data = rep.to_dict()
    assert [c["kind"] for g in data["games"] for c in g["cube_decisions"]] == [c["kind"] for c in decisions]


def test_page_in_headless_chromium(tmp_path):
    """The page as a browser shows it: every board laid out, a screenshot taken; read as XHTML
    (a copy named .xhtml) the browser's XML parser accepts it too."""
    out = tmp_path / "report.html"
    assert main(["analyze", "--workers", "1", "--no-progress", "--worst", "2", "--html", str(out),
                 *map(str, SAMPLES)]) == 0
    drv = chrome(1300, 1400)
    try:
        drv.get(out.as_uri())
        sizes = drv.execute_script(
            "return Array.from(document.querySelectorAll('svg.tawla-board'), s => s.getBoundingClientRect().width)")
        assert len(sizes) >= 8 and min(sizes) > 300
        shot = tmp_path / "report.png"
        drv.save_screenshot(str(shot))
        assert shot.stat().st_size > 20_000
        strict = tmp_path / "report.xhtml"
        strict.write_bytes(out.read_bytes())
        drv.get(strict.as_uri())
        assert drv.execute_script("return document.contentType") == "application/xhtml+xml"
        assert drv.execute_script("return document.getElementsByTagName('parsererror').length") == 0
        assert drv.execute_script("return document.querySelectorAll('svg.tawla-board').length") == len(sizes)
    finally:
        drv.quit()
