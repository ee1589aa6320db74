"""The board picture (:func:`tawla.svg.board`, and the web board's through
:mod:`tawla.service.board_svg`): the count printed on a tall stack (and on the bar and the
trays) is drawn over the arrows of the last move, never under them, and lets a tap through
to its checker. Pure Python: no server."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

pytest.importorskip("fastapi")

import tawla.svg  # noqa: E402
from tawla import Position  # noqa: E402
from tawla.match import Match, get_house  # noqa: E402
from tawla.service.board_svg import board_svg, last_move_arrows, move_hops  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
COUNTS = ("count", "off-count")


def drawn(text: str) -> list[ET.Element]:
    """The picture's elements in drawing (document) order."""
    return list(ET.fromstring(text).iter())


def order(text: str) -> tuple[list[int], list[int]]:
    """Drawing ranks of the count labels and of the arrow parts."""
    els = drawn(text)
    labels = [i for i, e in enumerate(els) if e.tag == SVG + "text" and e.get("class") in COUNTS]
    arrows = [i for i, e in enumerate(els) if e.tag == SVG + "g" and e.get("class") == "arrow"]
    arrows += [i + 1 + k for i in arrows for k in range(2)]          # its line and its head
    return labels, arrows


def test_labels_drawn_over_an_arrow_from_a_tall_stack():
    pos = Position.from_points("backgammon", {6: 8, 8: 3, 13: 4}, {24: 2, 12: 6, 1: 7}, off=(0, 0))
    text = tawla.svg.board(pos, arrows=[(6, 2), tawla.svg.Arrow(12, 18, "#000", True)])
    labels, arrows = order(text)
    assert len(labels) == 3 and arrows and min(labels) > max(arrows)
    els = drawn(text)
    texts = [e for e in els if e.tag == SVG + "text" and e.get("class") == "count"]
    assert sorted(e.text for e in texts) == ["6", "7", "8"]
    assert all(e.get("pointer-events") == "none" for e in texts)
    coords = [e for e in els if e.tag == SVG + "text" and e.get("class") == "coordinate"]
    assert len(coords) == 24 and all(e.get("pointer-events") is None for e in coords)


def test_off_and_bar_counts_are_drawn_over_the_arrows_too():
    pos = Position.from_points("backgammon", {3: 2}, {22: 2}, bar=(4, 5), off=(9, 8))
    text = tawla.svg.board(pos, arrows=[(25, 22), (3, 0)])
    labels, arrows = order(text)
    kinds = sorted(drawn(text)[i].get("class") for i in labels)
    assert kinds == ["count", "count", "off-count", "off-count"] and min(labels) > max(arrows)


def _points(pos: Position) -> dict[int, int]:
    """Checkers of both sides per point, in the numbering of the player on roll."""
    pts = pos.to_points()
    out: dict[int, int] = dict(pts["on_roll"])
    for p, n in pts["opponent"].items():
        out[p] = out.get(p, 0) + n
    return out


def _stack_after(m: Match) -> int:
    """The tallest stack the last move (the opponent's, in his numbering) left from or reached."""
    ev = m.last_event("turn")
    pts = _points(m.position)
    return max((pts.get(m.position.ruleset.opponent_point(p), 0)
                for a, b in move_hops(ev["move"] if ev else "") for p in (a, b) if 1 <= p <= 24), default=0)


def test_a_room_board_puts_counts_over_the_last_move():
    """A real match, each side stacking its checkers, until the last move touches a stack of
    more than five: the room's picture shows its count over the arrow that starts or ends
    on it."""
    m = Match("backgammon", get_house("international"), 1, ("Ann", "Bob"), rng=7)
    room = SimpleNamespace(match=m, code="ROOM01", options={"ruleset": "backgammon"},
                           seat=lambda n: SimpleNamespace(name=("Ann", "Bob")[n]))
    for _ in range(200):
        assert m.phase != "over", "no stack of six was moved onto in the match"
        if m.phase == "roll":
            m.roll(m.turn)
        arrows = last_move_arrows(m)
        if arrows and m.phase == "move" and _stack_after(m) > 5:
            break
        if m.phase == "move":
            moves = m.legal_moves()
            m.play(m.turn, max(moves, key=lambda mv: max(mv.after[1:25])))
    else:
        raise AssertionError("no move onto or from a stack of six")
    text = board_svg(room, m.turn)
    labels, arrows = order(text)
    assert labels and arrows and min(labels) > max(arrows)
    els = drawn(text)
    ends = {(round(float(e.get("x1")), 1), round(float(e.get("y1")), 1)) for e in els if e.tag == SVG + "line"}
    spots = {(round(float(e.get("x")), 1), round(float(e.get("y")) - 14 * 0.36, 1))
             for e in els if e.tag == SVG + "text" and e.get("class") == "count"}
    heads = {tuple(round(float(v), 1) for v in e.get("points").split()[0].split(","))
             for e in els if e.tag == SVG + "polygon"}
    assert (ends | heads) & spots, "no arrow touches a counted stack: the case is not tested"
