"""tawla.svg: the board picture — checkers per point as the position has them, for every ruleset."""

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

import tawla
import tawla.svg
from tawla import Position, get_ruleset
from tawla.errors import InvalidArgument, InvalidDice, InvalidPosition

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def checkers(root) -> list:
    return [e for e in root.iter() if "checker" in e.get("class", "").split()]


def drawn_counts(root) -> Counter:
    """(side, point) -> checkers the picture shows."""
    return Counter((e.get("data-side"), int(e.get("data-point"))) for e in checkers(root))


def labelled(root) -> list:
    """The count labels printed on stacks."""
    return [e.text for e in root.iter("{http://www.w3.org/2000/svg}text") if e.get("class") == "count"]


def expected_counts(pos: Position) -> Counter:
    """What the picture must show: at most five per side and point; on a pin stack the
    pinned checker and at most four of the pinner's; at most three on the bar; every
    borne-off checker as a slab."""
    pts = pos.to_points()
    out = Counter()
    for side, key in (("on-roll", "on_roll"), ("opponent", "opponent")):
        for p, n in pts[key].items():
            if p in pts["pinned_on_roll"] + pts["pinned_opponent"] and n > 1 or \
                    p in pts["on_roll"] and p in pts["opponent"] and n > 1:
                out[side, p] = min(n, 4)
            else:
                out[side, p] = min(n, 5)
    for k, side in enumerate(("on-roll", "opponent")):
        if pts["bar"][k]:
            out[side, 25] = min(pts["bar"][k], 3)
        if pts["off"][k]:
            out[side, 0] = pts["off"][k]
    return out


def random_positions(ruleset, n, seed=1):
    rows = tawla.batch.random_positions(ruleset, n, seed, include_over=True)
    return tawla.array_to_positions(rows, ruleset)


class TestEveryRuleset:
    """Random positions from playouts of each ruleset (RULES.md §1.2 starts, §1.8 ends)."""

    @pytest.mark.parametrize("ruleset", tawla.RULESET_IDS)
    @pytest.mark.parametrize("flipped", [False, True])
    def test_checkers_per_point(self, ruleset, flipped):
        for pos in random_positions(ruleset, 40) + [get_ruleset(ruleset).initial_position()]:
            root = parse(tawla.svg.board(pos, flipped=flipped, dice=(6, 5)))
            assert drawn_counts(root) == expected_counts(pos), pos
            big = Counter(n for n in pos_counts(pos).values() if n > 5)
            assert not big - Counter(int(t) for t in labelled(root))

    @pytest.mark.parametrize("ruleset", tawla.RULESET_IDS)
    def test_point_groups_and_ids(self, ruleset):
        pos = get_ruleset(ruleset).initial_position()
        root = parse(tawla.svg.board(pos, id_prefix="b1-"))
        ids = [e.get("id") for e in root.iter() if e.get("id")]
        assert len(ids) == len(set(ids))
        assert {f"b1-point-{p}" for p in range(1, 25)} | {"b1-bar", "b1-off"} <= set(ids)
        points = [e for e in root.iter() if e.get("class", "").split()[:1] == ["point"]]
        assert sorted(int(e.get("data-point")) for e in points) == list(range(1, 25))


def pos_counts(pos):
    pts = pos.to_points()
    c = Counter()
    for side, key in (("on-roll", "on_roll"), ("opponent", "opponent")):
        for p, n in pts[key].items():
            c[side, p] = n
    return c


def point_x(root, p):
    return float(root.find(f".//s:g[@id='point-{p}']/s:polygon", NS).get("points").split()[2].split(",")[0])


class TestGeometry:
    """RULES.md §1.1 / §1.2: where each side stands and bears off."""

    def test_tawla31_start_on_one_point_each(self):
        pos = get_ruleset("tawla31").initial_position()
        root = parse(tawla.svg.board(pos))
        by_side = Counter((e.get("data-side"), e.get("data-point")) for e in checkers(root))
        assert by_side == {("on-roll", "24"): 5, ("opponent", "1"): 5}   # 15 each, drawn 5 + "15"
        assert labelled(root).count("15") == 2

    def test_saharat_diagonal_corners(self):
        pos = get_ruleset("tawla31-saharat").initial_position()
        root = parse(tawla.svg.board(pos))
        opp = {e.get("data-point") for e in checkers(root) if e.get("data-side") == "opponent"}
        assert opp == {"12"}                                   # §1.2: A12, bottom left
        assert point_x(root, 12) < 280 and point_x(root, 24) > 320

    def test_opponent_tray_side(self):
        # opposite: the opponent bears off at the top right; same: at the top left
        for ruleset, left in (("tawla31", False), ("tawla31-saharat", True)):
            pos = Position.from_points(ruleset, {1: 3}, {}, off=(12, 15))
            root = parse(tawla.svg.board(pos))
            slabs = [e for e in checkers(root) if e.get("data-side") == "opponent"]
            assert len(slabs) == 15
            assert all((float(e.get("x")) < 40) == left for e in slabs)
            mine = [e for e in checkers(root) if e.get("data-point") == "0" and e.get("data-side") == "on-roll"]
            assert len(mine) == 12 and all(float(e.get("x")) > 560 for e in mine)

    def test_flipped_puts_the_opponent_home_bottom_right(self):
        pos = get_ruleset("backgammon").initial_position()
        plain = parse(tawla.svg.board(pos))
        flipped = parse(tawla.svg.board(pos, flipped=True))
        assert point_x(plain, 1) > 320 and point_x(flipped, 24) > 320
        assert point_x(flipped, 1) > 320                       # mirrored: 1 <-> 24 on the same column
        labels = [e.text for e in flipped.iter("{http://www.w3.org/2000/svg}text") if e.get("class") == "coordinate"]
        assert sorted(map(int, labels)) == list(range(1, 25))


class TestPinsBarOff:
    def test_mahbusa_pin_stack(self):
        """RULES.md §4.2: one pinned checker under the pinner's stack."""
        pos = Position.from_points("mahbusa", {10: 1, 24: 14}, {10: 7, 1: 8}, pinned_on_roll=[10])
        root = parse(tawla.svg.board(pos))
        on10 = [e for e in checkers(root) if e.get("data-point") == "10"]
        pinned = [e for e in on10 if "pinned" in e.get("class").split()]
        assert len(pinned) == 1 and pinned[0].get("data-side") == "on-roll"
        pinners = [e for e in on10 if e.get("data-side") == "opponent"]
        assert len(pinners) == 4 and "7" in labelled(root)
        # the pinned checker is at the edge (bottom, point 10 is on the near side), pinners above it
        assert float(pinned[0].get("cy")) > max(float(e.get("cy")) for e in pinners)
        # drawn first, so the pinner overlaps it
        order = list(root.iter())
        assert order.index(pinned[0]) < min(order.index(e) for e in pinners)

    def test_opponent_pinned(self):
        pos = Position.from_points("mahbusa", {5: 2, 24: 13}, {5: 1, 1: 14}, pinned_opponent=[5])
        root = parse(tawla.svg.board(pos, lit_checker_points=[5]))
        pinned = [e for e in checkers(root) if "pinned" in e.get("class").split()]
        assert [e.get("data-side") for e in pinned] == ["opponent"]
        lit = [e for e in checkers(root) if "lit" in e.get("class").split()]
        assert [(e.get("data-side"), e.get("data-point")) for e in lit] == [("on-roll", "5")]

    def test_bar_and_off(self):
        pos = Position.from_points("backgammon", {6: 5, 1: 2}, {19: 3, 20: 2}, bar=(4, 1), off=(4, 9))
        root = parse(tawla.svg.board(pos, lit_checker_points=[25], lit_points=[0]))
        bar = Counter(e.get("data-side") for e in checkers(root) if e.get("data-point") == "25")
        assert bar == {"on-roll": 3, "opponent": 1} and "4" in labelled(root)
        off = Counter(e.get("data-side") for e in checkers(root) if e.get("data-point") == "0")
        assert off == {"on-roll": 4, "opponent": 9}
        assert "lit" in root.find(".//s:g[@id='bar']", NS).get("class")
        assert "lit" in root.find(".//s:g[@id='off']", NS).get("class")
        targets = [e.get("data-point") for e in root.iter() if e.get("class") == "target"]
        assert targets == ["0"]

    def test_lit_points_have_a_target(self):
        pos = get_ruleset("backgammon").initial_position()
        root = parse(tawla.svg.board(pos, lit_points=[21, 13, 5]))
        targets = sorted(int(e.get("data-point")) for e in root.iter() if e.get("class") == "target")
        assert targets == [5, 13, 21]
        lit = sorted(int(e.get("data-point")) for e in root.iter() if "lit" in e.get("class", "").split()
                     and e.get("class", "").startswith("point"))
        assert lit == [5, 13, 21]

    def test_no_bar_drawn_without_hitting(self):
        root = parse(tawla.svg.board(get_ruleset("mahbusa").initial_position()))
        assert not [e for e in checkers(root) if e.get("data-point") == "25"]


class TestDiceCubeArrows:
    def test_dice(self):
        root = parse(tawla.svg.board(get_ruleset("adi").initial_position(), dice=(4, 4)))
        dice = root.find(".//s:g[@id='dice']", NS)
        assert dice.get("data-dice") == "44"
        assert [len(d.findall("s:circle", NS)) for d in dice.findall("s:g", NS)] == [4, 4]

    @pytest.mark.parametrize("cube, owner, text", [((1, None), "centre", "64"), ((4, 0), "on-roll", "4"),
                                                  ((16, 1), "opponent", "16")])
    def test_cube(self, cube, owner, text):
        root = parse(tawla.svg.board(get_ruleset("backgammon").initial_position(), cube=cube))
        g = root.find(".//s:g[@id='cube']", NS)
        assert g.get("data-owner") == owner and g.find("s:text", NS).text == text
        y = float(g.find("s:rect", NS).get("y"))
        assert {"centre": 200 < y < 240, "on-roll": y > 380, "opponent": y < 80}[owner]

    def test_move_arrows(self):
        pos = get_ruleset("backgammon").initial_position()
        move = pos.legal_moves((3, 1))[0]
        root = parse(tawla.svg.board(pos, arrows=[move, (13, 10, "red")]))
        arrows = [e for e in root.iter() if e.get("class") == "arrow"]
        assert len(arrows) == len(move.steps) + 1

    def test_opponent_arrows(self):
        """The opponent's last move, in his numbering, on the board it left (OPPOSITE and SAME)."""
        for ruleset in ("backgammon", "tawla31-saharat"):
            pos = get_ruleset(ruleset).initial_position()
            root = parse(tawla.svg.board(pos, arrows=[tawla.svg.Arrow(24, 18, "#000", True), (24, 21)]))
            sides = [e.get("data-side") for e in root.iter() if e.get("class") == "arrow"]
            assert sides == ["opponent", "on-roll"]
            (line,) = [e for e in root.iter() if e.get("class") == "arrow"][0].iter("{http://www.w3.org/2000/svg}line")
            mine = point_x(root, pos.ruleset.opponent_point(24))
            assert abs(float(line.get("x1")) - mine) < 1            # starts on the opponent's 24 point

    def test_text_xml_cannot_hold(self):
        svg = tawla.svg.board(get_ruleset("adi").initial_position(), players=("a\x01b", "c\ud800"),
                              title="t\x0c", colors={"lit": "#000\x02"})
        parse(svg)

    def test_self_contained(self):
        svg = tawla.svg.board(get_ruleset("backgammon").initial_position(), dice=(2, 1), cube=(2, 1),
                              arrows=[(24, 23)], players=("A & <B>", "C"), size=300)
        root = parse(svg)
        assert root.get("width") == "300" and root.get("height") == "240"
        assert "href" not in svg and "url(" not in svg and "A &amp; &lt;B&gt;" in svg


class TestBadInput:
    pos = get_ruleset("backgammon").initial_position()

    @pytest.mark.parametrize("kw, err", [
        ({"dice": (0, 3)}, InvalidDice), ({"cube": (3, None)}, InvalidArgument),
        ({"cube": (2, 2)}, InvalidArgument), ({"lit_points": [25]}, InvalidArgument),
        ({"lit_checker_points": "24"}, InvalidArgument), ({"arrows": [(1,)]}, InvalidArgument),
        ({"arrows": [(30, 1)]}, InvalidArgument), ({"size": 0}, InvalidArgument),
        ({"on_roll_color": "red"}, InvalidArgument), ({"colors": {"nope": "#000"}}, InvalidArgument),
        ({"players": ("one",)}, InvalidArgument), ({"id_prefix": "a b"}, InvalidArgument),
        ({"flipped": "yes"}, InvalidArgument), ({"pips": None}, InvalidArgument), ({"title": 3}, InvalidArgument),
        ({"colors": "red"}, InvalidArgument), ({"arrows": 5}, InvalidArgument),
    ])
    def test_raises(self, kw, err):
        with pytest.raises(err):
            tawla.svg.board(self.pos, **kw)

    def test_not_a_position(self):
        with pytest.raises(InvalidPosition):
            tawla.svg.board("4HPwATDgc/ABMA")
