"""One checker's step (:class:`Step`) and the GNU Backgammon notation of a list of steps."""

from __future__ import annotations

import functools
from typing import NamedTuple

from ..errors import IllegalMove, quote

__all__ = ["Step", "point_name", "format_steps", "shown_routes", "combined_step"]


def point_name(p: int) -> str:
    """``bar`` for 25, ``off`` for 0, else the point number."""
    return "bar" if p == 25 else "off" if p == 0 else str(p)


class Step(NamedTuple):
    """One checker's step (RULES.md §1.3).

    Attributes
    ----------
    from_point : int
        1..24, or 25 for the bar (mover's numbering).
    to_point : int
        1..24, or 0 for off.
    die : int or tuple[int, ...]
        The die used; for a one-checker combined step from :func:`legal_steps`, the
        dice in the order they are used.
    hit : bool
        The step hits a blot (backgammon, adi) or pins one (mahbusa); for a combined step,
        whether any part of it does.
    """

    from_point: int
    to_point: int
    die: int | tuple
    hit: bool

    @property
    def dice(self) -> tuple:
        """The dice used, always as a tuple."""
        return self.die if isinstance(self.die, tuple) else (self.die,)

    def path(self) -> tuple:
        """The points the checker touches after its start (0 = off), one per die."""
        pts, p = [], self.from_point
        for d in self.dice:
            p = max(p - d, 0)
            pts.append(p)
        return tuple(pts)

    @property
    def hit_points(self) -> frozenset:
        """The points where this step hits or pins (mover's numbering).

        A single step hits on its target; a combined step from :func:`combined_step` knows
        each point of its route where it hits. A combined step built directly with
        ``hit=True`` is taken to hit on its target.
        """
        return frozenset((self.to_point,)) if self.hit else frozenset()

    def hops(self) -> list:
        """The step as single-die steps, each with its own hit flag.

        Returns
        -------
        list of Step
        """
        if not isinstance(self.die, tuple):
            return [self]
        hits = self.hit_points
        out, p = [], self.from_point
        for d, q in zip(self.die, self.path()):
            out.append(Step(p, q, d, q in hits))
            p = q
        return out

    def __str__(self):
        """GNU Backgammon notation: every hit written, intermediate ones included (``24/21*/20``)."""
        return format_steps(self.hops())


class _CombinedStep(Step):
    """A one-checker combined step that knows where on its route it hits."""

    @property
    def hit_points(self) -> frozenset:
        return self.__dict__["hit_points"]

    def __repr__(self):
        return "Step" + super().__repr__()[len(type(self).__name__):]


def combined_step(from_point: int, to_point: int, dice: tuple, hit_points) -> Step:
    """A one-checker combined step (RULES.md §1.3) with the points where it hits.

    Parameters
    ----------
    from_point, to_point : int
        Mover's numbering: 25 = bar, 0 = off.
    dice : tuple of int
        The dice in the order used.
    hit_points : iterable of int
        The points of the route where the checker hits (or pins).

    Returns
    -------
    Step
        Equal to ``Step(from_point, to_point, dice, bool(hit_points))``; ``str()`` writes each
        hit of the route (``24/21*/20``).
    """
    hits = frozenset(hit_points)
    step = _CombinedStep(from_point, to_point, tuple(dice), bool(hits))
    step.__dict__["hit_points"] = hits
    return step


def _paths(steps) -> list:
    """One checker's consecutive steps joined: ``[points, hit points]`` per path."""
    paths: list[list] = []
    for s in steps:
        for path in paths:
            if path[0][-1] == s.from_point and s.from_point != 0:
                path[0].append(s.to_point)
                if s.hit:
                    path[1].add(s.to_point)
                break
        else:
            paths.append([[s.from_point, s.to_point], {s.to_point} if s.hit else set()])
    return paths


def shown_routes(steps) -> list:
    """The checker routes that :func:`format_steps` writes: each joined path's start, the
    points where it hit, and its end (mover's numbering, 25 = bar, 0 = off).

    Parameters
    ----------
    steps : iterable of Step
        Single steps in play order.

    Returns
    -------
    list of tuple of int
    """
    return [tuple([pts[0]] + [p for p in pts[1:-1] if p in hits] + [pts[-1]]) for pts, hits in _paths(steps)]


def _as_steps(steps) -> list:
    """``steps`` as a list of :class:`Step` (tuples ``(from, to, die, hit)`` are made steps)."""
    try:
        out = [s if isinstance(s, Step) else Step._make(s) for s in steps]
    except (TypeError, ValueError):
        raise IllegalMove(f"steps must be (from_point, to_point, die, hit) values, not {quote(steps)}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for s in out for v in s[:3]):
        raise IllegalMove(f"steps must be (from_point, to_point, die, hit) values, not {quote(steps)}")
    return out


def format_steps(steps) -> str:
    """GNU Backgammon notation for a list of single steps.

    One checker's consecutive steps are joined (``24/13``); every hit is written, an
    intermediate one included, and an intermediate point is shown only where the checker
    hit there (``13/7*/4``, ``21/17*/16*``); identical moves are counted (``8/5(2)``, with
    one ``*`` when one of them hits), highest points first; ``bar`` and ``off`` name the
    bar and the tray. A pass is the empty string.

    Parameters
    ----------
    steps : iterable of Step
        Single steps in play order, each with its own hit flag.

    Returns
    -------
    str

    Raises
    ------
    tawla.errors.IllegalMove
        Anything but an iterable of steps.
    """
    if isinstance(steps, (list, tuple)) and all(type(s) is Step for s in steps):
        return _format_plain(tuple(steps))  # plain steps: the text depends on their fields only
    if not isinstance(steps, (list, tuple)) or not all(isinstance(s, Step) for s in steps):
        steps = _as_steps(steps)
    return _format(steps)


@functools.lru_cache(maxsize=1 << 16)
def _format_plain(steps: tuple) -> str:
    """:func:`format_steps` of plain :class:`Step` values, remembered (the same moves come
    back in position after position)."""
    return _format(steps)


def _format(steps) -> str:
    shown = []
    for pts, hits in _paths(steps):
        keep = [pts[0]] + [p for p in pts[1:-1] if p in hits] + [pts[-1]]
        text = "/".join(point_name(p) + ("*" if i and p in hits else "") for i, p in enumerate(keep))
        shown.append((pts[0], pts[-1], text))
    shown.sort(key=lambda x: (-x[0], -x[1]))
    out: list[str] = []
    counts: list[int] = []
    for _, _, text in shown:
        base = text.replace("*", "")
        if out and out[-1].replace("*", "") == base:
            counts[-1] += 1
            if "*" in text and "*" not in out[-1]:
                out[-1] = text
        else:
            out.append(text)
            counts.append(1)
    return " ".join(t if n == 1 else f"{t}({n})" for t, n in zip(out, counts))


