"""Board pictures: :func:`board` draws a :class:`tawla.Position` as a self-contained SVG string.

The picture is drawn from a seat (RULES.md §1.1): by default the seat of the player on roll,
whose points 13..18 | 19..24 run left to right along the top and 12..7 | 6..1 along the
bottom, home at the bottom right and his borne-off checkers in the tray at the right,
next to his point 1. The opponent's checkers stand where the position puts them (the
row stores them in the on-roll player's numbering), so both geometries come out right:

* ``opposite`` (backgammon, adi, mahbusa, tawla31): the opponent moves the other way
  round and bears off at the top right (his home is the on-roll player's 19..24);
* ``same`` (tawla31-saharat): both move anticlockwise, the opponent's home is the
  on-roll player's 13..18 and his tray is at the top left (§1.1, §6).

Starting positions therefore show as in §1.2 (Tawla 31 and Mahbusa: 15 on one point, drawn
as five checkers and the count). A Mahbusa pin stack (§4.2) is drawn with the pinned
checker at the edge of the board and the pinner's checkers overlapping it, nearer the
centre; the pinned checker has the class ``pinned``. The bar (§2.1) holds the checkers
of the hitting games, the cube (§2.3) sits on the bar: in the middle when centred, at
the owner's edge otherwise.

Every element a client may want to click carries stable attributes, all in the **on-roll
player's numbering** whatever the seat of the picture (so they match the ``from``/``to`` of
:func:`tawla.legal_steps`): ``<g class="point" id="point-P" data-point="P">`` for the points
1..24, ``id="bar"`` (``data-point="25"``) and ``id="off"`` (``data-point="0"``) for the on-roll
player's bar and tray (every id after ``id_prefix``); each checker is a ``<circle class="checker ...">`` with
``data-point``, ``data-side`` (``on-roll`` or ``opponent``) and ``data-index`` (0 at the edge).
Lit points and lit checkers have the class ``lit``; a lit point (or the lit tray) also gets a
``<circle class="target" data-point="P">`` where the checker would land, drawn over the stack.

Modelled on python-chess's ``chess.svg.board``.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, NamedTuple, Sequence, Union
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from .core.dice import check_dice
from .core.geometry import OPPOSITE, opponent_point
from .core.layout import ME_BAR, ME_OFF, OPP, OPP_BAR, OPP_OFF, pinned_points
from .core.moves import Move
from .core.steps import Step
from .errors import InvalidArgument, InvalidPosition, quote
from .position import Position

__all__ = ["Arrow", "board", "xml_text", "COLORS", "WIDTH", "HEIGHT"]

WIDTH, HEIGHT = 600, 480
"""The viewBox of every picture (user units); ``size`` scales it."""

COLORS = {
    "frame": "#5b3a1e", "board": "#e8d3a9", "bar": "#6e4a2a", "tray": "#4a2f18",
    "point_dark": "#8c4a2f", "point_light": "#c9a46a", "lit": "#2e9be6",
    "white": "#f7f3ea", "white_edge": "#6b6256", "black": "#2b2b2b", "black_edge": "#000000",
    "text": "#3a2a1a", "coordinate": "#e8d3a9", "label": "#ffffff", "cube": "#fdfdfd", "arrow": "#1f6fb5",
}
"""Default fills (hex); override any of them with ``board(..., colors={...})``."""

_R = 17            # checker radius
_STEP = 34         # distance between checker centres in a stack
_SHOWN = 5         # checkers drawn on a point before the count takes over
_TOP, _BOTTOM = 40, 440            # board edges (y)
_MID_TOP, _MID_BOTTOM = 220, 260   # the middle strip (dice, centred cube)
_LEFT, _BAR_L, _BAR_R, _RIGHT = 40, 280, 320, 560
_COL = 40          # point width


class Arrow(NamedTuple):
    """An arrow from ``tail`` to ``head``, points in the on-roll player's numbering (25 = bar,
    0 = off), drawn in ``color`` (any SVG colour).

    With ``opponent`` true the points are in the opponent's numbering (25 = his bar, 0 = his
    tray): an arrow of the move he just made, on the board that move left (its head at his top
    checker)."""

    tail: int
    head: int
    color: str = COLORS["arrow"]
    opponent: bool = False


ArrowLike = Union[Arrow, Step, Move, Sequence[int]]


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` escaped for XML character data, with the characters XML 1.0 cannot hold
    (control characters, lone surrogates) replaced by U+FFFD."""
    return escape(_NOT_XML.sub("\ufffd", text))


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _attrs(**kw: object) -> str:
    return "".join(f" {k.rstrip('_').replace('_', '-')}={quoteattr(_NOT_XML.sub('', str(v)))}"
                   for k, v in kw.items() if v is not None)


def _point_x(v: int) -> float:
    """Centre x of point ``v`` of the seat the picture is drawn from (1..24)."""
    if v <= 6:
        return _RIGHT - _COL / 2 - (v - 1) * _COL
    if v <= 12:
        return _BAR_L - _COL / 2 - (v - 7) * _COL
    if v <= 18:
        return _LEFT + _COL / 2 + (v - 13) * _COL
    return _BAR_R + _COL / 2 + (v - 19) * _COL


def _stack_y(v: int, i: float) -> float:
    """Centre y of the ``i``-th checker from the edge on point ``v`` (seat numbering)."""
    if v >= 13:
        return _TOP + 1 + _R + i * _STEP
    return _BOTTOM - 1 - _R - i * _STEP


def _point_list(values: Iterable[int], name: str, lo: int, hi: int) -> frozenset[int]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InvalidArgument(f"{name} must be a sequence of points, not {quote(values)}")
    out = set()
    for p in values:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not lo <= p <= hi:
            raise InvalidArgument(f"{name}: {quote(p)} is not a point in {lo}..{hi}")
        out.add(int(p))
    return frozenset(out)


def _arrows(items: Iterable[ArrowLike] | None) -> list[Arrow]:
    out: list[Arrow] = []
    if items is None:
        return out
    if isinstance(items, (str, bytes, Move, Step)) or not hasattr(items, "__iter__"):
        raise InvalidArgument(f"arrows must be a sequence of arrows, steps or moves, not {quote(items)}")
    for a in items:
        if isinstance(a, Move):
            out += [Arrow(s.from_point, s.to_point) for s in a.steps]
            continue
        if isinstance(a, Step):
            out.append(Arrow(a.from_point, a.to_point))
            continue
        try:
            arrow = Arrow(*a)
        except TypeError:
            raise InvalidArgument(f"an arrow is (tail, head[, color[, opponent]]), a Step or a Move, not {quote(a)}") from None
        if not isinstance(arrow.color, str) or not isinstance(arrow.opponent, bool):
            raise InvalidArgument(f"an arrow's colour is a string and its opponent flag a bool: {quote(a)}")
        for p in (arrow.tail, arrow.head):
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 25:
                raise InvalidArgument(f"arrow point {quote(p)} is not in 0..25")
        out.append(arrow)
    return out


def _cube(cube: tuple[int, int | None] | None) -> tuple[int, int | None] | None:
    if cube is None:
        return None
    try:
        value, owner = cube
    except (TypeError, ValueError):
        raise InvalidArgument(f"cube must be (value, owner), not {quote(cube)}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1) or value > 4096:
        raise InvalidArgument(f"cube value must be a power of two in 1..4096, not {quote(value)}")
    if owner not in (None, 0, 1) or isinstance(owner, bool):
        raise InvalidArgument(f"cube owner must be None (centred), 0 (on roll) or 1 (opponent), not {quote(owner)}")
    return value, owner


class _Canvas:
    """The parts of one picture, in drawing order; the checker counts (``top``) are drawn
    last, over the arrows."""

    def __init__(self, colors: dict[str, str], prefix: str) -> None:
        self.c = colors
        self.prefix = prefix
        self.parts: list[str] = []
        self.top: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def checker(self, x: float, y: float, color: str, cls: str, **data: object) -> None:
        fill, edge = self.c[color], self.c[color + "_edge"]
        self.add(f"<circle{_attrs(class_=cls, cx=_fmt(x), cy=_fmt(y), r=_R, fill=fill, stroke=edge, stroke_width=1.5, **data)}/>")

    def label(self, x: float, y: float, text: str, color: str, size: int = 14, cls: str = "count") -> None:
        """A label; a checker count (``count``, ``off-count``) goes on top, letting a tap
        through to its checker."""
        counted = cls in ("count", "off-count")
        through = ' pointer-events="none"' if counted else ""
        part = (f"<text{_attrs(class_=cls, x=_fmt(x), y=_fmt(y + size * 0.36), fill=color, font_size=size)}"
                f" font-family=\"sans-serif\" font-weight=\"bold\" text-anchor=\"middle\"{through}>"
                f"{xml_text(text)}</text>")
        (self.top if counted else self.parts).append(part)


def board(position: Position, *, dice: Sequence[int] | None = None, cube: tuple[int, int | None] | None = None,
          lit_points: Iterable[int] = (), lit_checker_points: Iterable[int] = (),
          arrows: Iterable[ArrowLike] | None = None, flipped: bool = False, on_roll_color: str = "white",
          size: int | None = None, coordinates: bool = True, players: tuple[str, str] | None = None,
          pips: bool = True, colors: dict[str, str] | None = None, title: str | None = None, id_prefix: str = "") -> str:
    """Draw a position as an SVG image (a self-contained ``<svg>`` element, no external references).

    Parameters
    ----------
    position : tawla.Position
        Any ruleset; the board as RULES.md §1.2 and the ruleset's sections place it.
    dice : (int, int), optional
        The roll, drawn in the middle of the half of the player on roll.
    cube : (int, int or None), optional
        ``(value, owner)``: value a power of two (a centred cube at 1 shows 64, as on a real
        cube); owner ``None`` (centred), ``0`` (the player on roll) or ``1`` (the opponent).
    lit_points : iterable of int
        Points (on-roll numbering, 1..24; 0 = off) to highlight as destinations.
    lit_checker_points : iterable of int
        Points (1..24; 25 = bar) whose top checker of the player on roll is highlighted.
    arrows : iterable of Arrow, (tail, head[, color[, opponent]]), Step or Move, optional
        Arrows between points (on-roll numbering, 25 = bar, 0 = off); a Move gives one
        arrow per step; an :class:`Arrow` with ``opponent=True`` is a move of the opponent
        in his numbering.
    flipped : bool
        Draw from the opponent's seat (the opponent's home at the bottom right). The
        ``data-point`` attributes stay in the on-roll player's numbering; the printed
        coordinates are the numbering of the seat drawn from.
    on_roll_color : {"white", "black"}
        The colour of the player on roll's checkers (the opponent gets the other).
    size : int, optional
        Width in pixels (height in proportion, 600 x 480 user units); default unsized.
    coordinates : bool
        Print the point numbers above and below the board.
    players : (str, str), optional
        Names of (on roll, opponent), printed beside their pip counts.
    pips : bool
        Print the pip counts (RULES.md §1.1 numbering; bar = 25 pips).
    colors : dict[str, str], optional
        Overrides for :data:`COLORS`.
    title : str, optional
        A ``<title>`` for the picture (default: the ruleset and the position ID).
    id_prefix : str
        Prepended to every ``id`` (``point-P``, ``bar``, ``off``, ``cube``, ``dice``), so that
        several boards can share one page.

    Returns
    -------
    str
        The SVG document text (UTF-8 safe, XML well-formed).

    Raises
    ------
    tawla.errors.InvalidPosition
        ``position`` is not a Position.
    tawla.errors.InvalidDice
        Dice not two integers in 1..6.
    tawla.errors.InvalidArgument
        A bad cube, point list, arrow, colour, size, flag (``flipped``, ``coordinates``,
        ``pips``: booleans), title, player names or id prefix.
    """
    if not isinstance(position, Position):
        raise InvalidPosition(f"expected a tawla.Position, not {type(position).__name__}")
    roll = check_dice(dice) if dice is not None else None
    cube_ = _cube(cube)
    lit_to = _point_list(lit_points, "lit_points", 0, 24)
    lit_from = _point_list(lit_checker_points, "lit_checker_points", 1, 25)
    arrow_list = _arrows(arrows)
    for name, flag in (("flipped", flipped), ("coordinates", coordinates), ("pips", pips)):
        if not isinstance(flag, (bool, np.bool_)):
            raise InvalidArgument(f"{name} must be True or False, not {quote(flag)}")
    flipped = bool(flipped)
    if on_roll_color not in ("white", "black"):
        raise InvalidArgument(f"on_roll_color must be 'white' or 'black', not {quote(on_roll_color)}")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
        raise InvalidArgument(f"size must be a positive number of pixels, not {quote(size)}")
    if not isinstance(id_prefix, str) or not re.fullmatch(r"[A-Za-z0-9_-]*", id_prefix):
        raise InvalidArgument(f"id_prefix must be letters, digits, '-' or '_', not {quote(id_prefix)}")
    if colors is not None and not isinstance(colors, dict):
        raise InvalidArgument(f"colors must be a dict of COLORS entries, not {quote(colors)}")
    if title is not None and not isinstance(title, str):
        raise InvalidArgument(f"title must be a string, not {quote(title)}")
    palette = dict(COLORS)
    for k, v in (colors or {}).items():
        if k not in COLORS or not isinstance(v, str):
            raise InvalidArgument(f"colors: unknown entry {quote(k)} (known: {', '.join(COLORS)})")
        palette[k] = _NOT_XML.sub("", v)
    geometry = position.ruleset.geometry
    me_color, opp_color = on_roll_color, "black" if on_roll_color == "white" else "white"

    def seat(p: int) -> int:
        """The seat's numbering of the on-roll player's point p (1..24)."""
        return opponent_point(p, geometry) if flipped else p

    cv = _Canvas(palette, id_prefix)
    h = int(size * HEIGHT / WIDTH) if size else None
    cv.add(f"<svg xmlns=\"http://www.w3.org/2000/svg\"{_attrs(class_='tawla-board', viewBox=f'0 0 {WIDTH} {HEIGHT}', width=size, height=h)}"
           f"{_attrs(data_ruleset=position.ruleset.name, data_position=position.id(), data_flipped=int(flipped))}>")
    cv.add(f"<title>{xml_text(title if title is not None else f'{position.ruleset.name} {position.id()}')}</title>")
    _frame(cv)
    row = position.row
    pins = pinned_points(row)
    for p in range(1, 25):
        _point(cv, p, seat(p), row[p], row[OPP + p], p in pins, me_color, opp_color, p in lit_to, p in lit_from)
    _bar(cv, row[ME_BAR], row[OPP_BAR], flipped, me_color, opp_color, 25 in lit_from, position.ruleset.has_bar)
    _trays(cv, row[ME_OFF], row[OPP_OFF], geometry, flipped, me_color, opp_color, 0 in lit_to)
    if coordinates:
        for q in range(1, 25):
            y = _TOP - 10 if q >= 13 else _BOTTOM + 12
            cv.label(_point_x(q), y, str(q), palette["coordinate"], 11, "coordinate")
    if cube_ is not None:
        _draw_cube(cv, cube_, flipped)
    if roll is not None:
        _dice(cv, roll, flipped, me_color)
    _info(cv, position, players, pips, flipped)
    for a in arrow_list:
        _arrow(cv, a, position, seat, flipped)
    cv.parts += cv.top  # the counts over the arrows that start or end on their stacks
    cv.add("</svg>")
    return "".join(cv.parts)


def _frame(cv: _Canvas) -> None:
    c = cv.c
    cv.add(f"<rect{_attrs(x=0, y=_TOP - 20, width=WIDTH, height=_BOTTOM - _TOP + 40, rx=6, fill=c['frame'])}/>")
    cv.add(f"<rect{_attrs(x=_LEFT, y=_TOP, width=_BAR_L - _LEFT, height=_BOTTOM - _TOP, fill=c['board'])}/>")
    cv.add(f"<rect{_attrs(x=_BAR_R, y=_TOP, width=_RIGHT - _BAR_R, height=_BOTTOM - _TOP, fill=c['board'])}/>")
    for x in (4, _RIGHT + 4):
        for y in (_TOP, _MID_BOTTOM):
            cv.add(f"<rect{_attrs(x=x, y=y, width=_COL - 8, height=_MID_TOP - _TOP, rx=3, fill=c['tray'])}/>")


def _point(cv: _Canvas, p: int, v: int, me: int, opp: int, me_pinned: bool, me_color: str, opp_color: str,
           lit: bool, lit_checker: bool) -> None:
    """Point ``p`` (on-roll numbering) drawn at seat point ``v``: triangle, click area, checkers."""
    c = cv.c
    x = _point_x(v)
    top = v >= 13
    base, tip = (_TOP, _TOP + 170) if top else (_BOTTOM, _BOTTOM - 170)
    fill = c["point_dark"] if v % 2 else c["point_light"]
    cls = "point lit" if lit else "point"
    cv.add(f"<g{_attrs(id=f'{cv.prefix}point-{p}', class_=cls, data_point=p)}>")
    cv.add(f"<rect{_attrs(class_='point-area', x=_fmt(x - _COL / 2), y=min(base, tip) if top else tip, width=_COL, height=170, fill=c['board'], fill_opacity=0)}/>")
    stroke = f" stroke={quoteattr(c['lit'])} stroke-width=\"3\"" if lit else ""
    cv.add(f"<polygon points=\"{_fmt(x - _COL / 2 + 1)},{base} {_fmt(x + _COL / 2 - 1)},{base} {_fmt(x)},{tip}\" fill=\"{fill}\"{stroke}/>")
    cv.add("</g>")
    if me and opp:       # a pin stack (RULES.md §4.2): one pinned checker under the pinner's
        pinned_side, pinner_side = ("on-roll", "opponent") if me_pinned else ("opponent", "on-roll")
        pinned_color, pinner_color = (me_color, opp_color) if me_pinned else (opp_color, me_color)
        pinners = opp if me_pinned else me
        cv.checker(x, _stack_y(v, 0), pinned_color, "checker pinned", data_point=p, data_side=pinned_side, data_index=0)
        _stack(cv, x, v, pinners, pinner_color, pinner_side, p, lit_checker and not me_pinned, start=0.5, room=_SHOWN - 1)
    elif me:
        _stack(cv, x, v, me, me_color, "on-roll", p, lit_checker)
    elif opp:
        _stack(cv, x, v, opp, opp_color, "opponent", p, False)
    if lit:              # where a checker would land: the spot a player taps
        slot = min(min(me, _SHOWN) + min(opp, _SHOWN) if not (me and opp) else 1 + min(me + opp - 1, _SHOWN - 1),
                   _SHOWN - 1)
        cv.add(f"<circle{_attrs(class_='target', cx=_fmt(x), cy=_fmt(_stack_y(v, slot)), r=_R - 3, fill=c['lit'], fill_opacity=0.55, stroke=c['lit'], stroke_width=2, data_point=p)}/>")


def _stack(cv: _Canvas, x: float, v: int, n: int, color: str, side: str, p: int, lit_top: bool,
           start: float = 0.0, room: int = _SHOWN) -> None:
    """``n`` checkers of one side on seat point ``v``; over ``room`` of them, the last one drawn shows the count."""
    shown = min(n, room)
    for i in range(shown):
        cls = "checker"
        if lit_top and i == shown - 1:
            cls += " lit"
        y = _stack_y(v, start + i)
        cv.checker(x, y, color, cls, data_point=p, data_side=side, data_index=i + (1 if start else 0))
        if cls.endswith("lit"):
            cv.add(f"<circle{_attrs(class_='halo', cx=_fmt(x), cy=_fmt(y), r=_R + 2, fill='none', stroke=cv.c['lit'], stroke_width=3)}"
                   f" pointer-events=\"none\"/>")
    if n > room:
        y = _stack_y(v, start + shown - 1)
        cv.label(x, y, str(n), cv.c["black" if color == "white" else "white"])


def _bar(cv: _Canvas, me: int, opp: int, flipped: bool, me_color: str, opp_color: str, lit: bool,
         has_bar: bool) -> None:
    """The bar: the seat's own checkers above the middle (they enter at the top right), the
    other side's below it."""
    c = cv.c
    cv.add(f"<g{_attrs(id=cv.prefix + 'bar', class_='bar lit' if lit else 'bar', data_point=25)}>")
    cv.add(f"<rect{_attrs(x=_BAR_L, y=_TOP, width=_BAR_R - _BAR_L, height=_BOTTOM - _TOP, fill=c['bar'])}/>")
    cv.add("</g>")
    if not has_bar:
        return
    x = (_BAR_L + _BAR_R) / 2
    for n, color, side, upper in ((me, me_color, "on-roll", not flipped), (opp, opp_color, "opponent", flipped)):
        shown = min(n, 3)
        for i in range(shown):
            y = _MID_TOP - _R - 2 - i * _STEP if upper else _MID_BOTTOM + _R + 2 + i * _STEP
            cls = "checker bar-checker" + (" lit" if lit and side == "on-roll" and i == shown - 1 else "")
            cv.checker(x, y, color, cls, data_point=25, data_side=side, data_index=i)
            if "lit" in cls.split():
                cv.add(f"<circle{_attrs(class_='halo', cx=_fmt(x), cy=_fmt(y), r=_R + 2, fill='none', stroke=c['lit'], stroke_width=3)}"
                       f" pointer-events=\"none\"/>")
        if n > 3:
            y = _MID_TOP - _R - 2 - 2 * _STEP if upper else _MID_BOTTOM + _R + 2 + 2 * _STEP
            cv.label(x, y, str(n), c["black" if color == "white" else "white"])


def _trays(cv: _Canvas, me_off: int, opp_off: int, geometry: str, flipped: bool, me_color: str, opp_color: str,
           lit: bool) -> None:
    """Borne-off checkers as slabs: the seat's own tray at the bottom right; the other side's at
    the top right (``opposite``) or the top left (``same``) (RULES.md §1.1)."""
    c = cv.c
    other_x = _RIGHT if geometry == OPPOSITE else 0
    trays = ((me_off, me_color, "on-roll", _RIGHT if not flipped else other_x, not flipped),
             (opp_off, opp_color, "opponent", other_x if not flipped else _RIGHT, flipped))
    for n, color, side, x0, bottom in trays:
        y0 = _MID_BOTTOM if bottom else _TOP
        if side == "on-roll":
            cls = "off lit" if lit else "off"
            cv.add(f"<g{_attrs(id=cv.prefix + 'off', class_=cls, data_point=0)}>")
            stroke = f" stroke={quoteattr(c['lit'])} stroke-width=\"3\"" if lit else ""
            cv.add(f"<rect{_attrs(x=x0 + 4, y=y0, width=_COL - 8, height=_MID_TOP - _TOP, rx=3, fill=c['tray'], fill_opacity=0)}{stroke}/>")
            cv.add("</g>")
            if lit:
                cy = (_MID_BOTTOM + _BOTTOM) / 2 if bottom else (_TOP + _MID_TOP) / 2
                cv.add(f"<circle{_attrs(class_='target', cx=_fmt(x0 + _COL / 2), cy=_fmt(cy), r=_R - 3, fill=c['lit'], fill_opacity=0.55, stroke=c['lit'], stroke_width=2, data_point=0)}/>")
        for i in range(n):
            y = _BOTTOM - 12 - i * 11 if bottom else _TOP + 2 + i * 11
            cv.add(f"<rect{_attrs(class_='checker off-checker', x=x0 + 6, y=y, width=_COL - 12, height=10, rx=2, fill=c[color], stroke=c[color + '_edge'], data_point=0, data_side=side, data_index=i)}/>")
        if n:
            cv.label(x0 + _COL / 2, (_MID_TOP + _MID_BOTTOM) / 2 + (10 if bottom else -10), str(n), c["label"], 12, "off-count")


def _draw_cube(cv: _Canvas, cube: tuple[int, int | None], flipped: bool) -> None:
    value, owner = cube
    x = (_BAR_L + _BAR_R) / 2
    if owner is None:
        y = (_MID_TOP + _MID_BOTTOM) / 2
        where = "centre"
    else:
        bottom = (owner == 0) != flipped
        y = _BOTTOM - 20 if bottom else _TOP + 20
        where = "on-roll" if owner == 0 else "opponent"
    shown = 64 if value == 1 and owner is None else value
    cv.add(f"<g{_attrs(id=cv.prefix + 'cube', class_='cube', data_value=value, data_owner=where)}>")
    cv.add(f"<rect{_attrs(x=_fmt(x - 17), y=_fmt(y - 17), width=34, height=34, rx=5, fill=cv.c['cube'], stroke='#000', stroke_width=1.5)}/>")
    cv.label(x, y, str(shown), "#000", 16 if shown < 1000 else 11, "cube-value")
    cv.add("</g>")


_PIPS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
         4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
         6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1))}


def _dice(cv: _Canvas, roll: tuple[int, int], flipped: bool, me_color: str) -> None:
    """The two dice in the middle of the half of the player on roll."""
    cx = (_BAR_R + _RIGHT) / 2 if not flipped else (_LEFT + _BAR_L) / 2
    y = (_MID_TOP + _MID_BOTTOM) / 2
    fill, pip = (cv.c["white"], "#000") if me_color == "white" else (cv.c["black"], "#fff")
    cv.add(f"<g{_attrs(id=cv.prefix + 'dice', class_='dice', data_dice=f'{roll[0]}{roll[1]}')}>")
    for k, d in enumerate(roll):
        x = cx + (k - 0.5) * 40
        cv.add(f"<g{_attrs(class_='die', data_value=d)}>")
        cv.add(f"<rect{_attrs(x=_fmt(x - 16), y=_fmt(y - 16), width=32, height=32, rx=5, fill=fill, stroke='#000', stroke_width=1.5)}/>")
        for dx, dy in _PIPS[d]:
            cv.add(f"<circle{_attrs(class_='pip', cx=_fmt(x + dx * 8), cy=_fmt(y + dy * 8), r=3, fill=pip)}/>")
        cv.add("</g>")
    cv.add("</g>")


def _info(cv: _Canvas, position: Position, players: tuple[str, str] | None, pips: bool, flipped: bool) -> None:
    """Names and pip counts: the seat's side below the board, the other side above."""
    if players is not None:
        if not (isinstance(players, (tuple, list)) and len(players) == 2 and all(isinstance(n, str) for n in players)):
            raise InvalidArgument(f"players must be two names (on roll, opponent), not {quote(players)}")
    if players is None and not pips:
        return
    counts = position.pip_count()
    for k, side in enumerate(("on-roll", "opponent")):
        text = players[k] if players else ("on roll" if k == 0 else "opponent")
        if pips:
            text += f" \u2014 {counts[k]} pips"
        bottom = (k == 0) != flipped
        y = HEIGHT - 9 if bottom else 9
        cv.add(f"<text{_attrs(class_=f'player {side}', x=WIDTH / 2, y=y + 5, fill=cv.c['text'], font_size=14)}"
               f" font-family=\"sans-serif\" text-anchor=\"middle\">{xml_text(text)}</text>")


def _anchor(p: int, position: Position, seat_of, flipped: bool, head: bool, opponent: bool = False) -> tuple[float, float]:
    """Where an arrow touches point ``p`` (on-roll numbering; 25 bar, 0 off; with ``opponent``,
    the opponent's numbering, his bar and tray)."""
    if opponent:
        if p in (0, 25):                 # his bar and tray are where the mover's are from the other seat
            return _anchor(p, position, seat_of, not flipped, head)
        q = opponent_point(p, position.ruleset.geometry)
        v = seat_of(q)
        n = position.row[q] + position.row[OPP + q]
        i = max(0, min(n, _SHOWN) - (1 if head else 0))
        return _point_x(v), _stack_y(v, min(i, _SHOWN - 1))
    if p == 25:
        return (_BAR_L + _BAR_R) / 2, (_MID_TOP - _R - 2) if not flipped else (_MID_BOTTOM + _R + 2)
    if p == 0:
        x0 = _RIGHT if not flipped else (_RIGHT if position.ruleset.geometry == OPPOSITE else 0)
        return x0 + _COL / 2, (_MID_BOTTOM + _BOTTOM) / 2 if not flipped else (_TOP + _MID_TOP) / 2
    v = seat_of(p)
    n = position.row[p] + position.row[OPP + p]
    i = max(0, min(n, _SHOWN) - (0 if head else 1))
    return _point_x(v), _stack_y(v, min(i, _SHOWN - 1))


def _arrow(cv: _Canvas, a: Arrow, position: Position, seat_of, flipped: bool) -> None:
    """A shaft and a triangular head (drawn as shapes: no markers, so no ids to clash when
    several boards share a page)."""
    x1, y1 = _anchor(a.tail, position, seat_of, flipped, False, a.opponent)
    x2, y2 = _anchor(a.head, position, seat_of, flipped, True, a.opponent)
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * 16, y2 - uy * 16           # base of the head
    head = f"{_fmt(x2)},{_fmt(y2)} {_fmt(bx - uy * 9)},{_fmt(by + ux * 9)} {_fmt(bx + uy * 9)},{_fmt(by - ux * 9)}"
    side = "opponent" if a.opponent else "on-roll"
    cv.add(f"<g{_attrs(class_='arrow', data_tail=a.tail, data_head=a.head, data_side=side, opacity=0.8)} pointer-events=\"none\">")
    cv.add(f"<line{_attrs(x1=_fmt(x1), y1=_fmt(y1), x2=_fmt(bx), y2=_fmt(by), stroke=a.color, stroke_width=6, stroke_linecap='round')}/>")
    cv.add(f"<polygon{_attrs(points=head, fill=a.color)}/>")
    cv.add("</g>")
