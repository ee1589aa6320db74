"""The record model shared by the match-record readers and writers (``.mat``, ``.sgf``).

A :class:`MatchRecord` holds the headers, the match length and the games of one record;
a :class:`Game` holds its score line and its actions in chronological order; an
:class:`Action` is one roll with its play text, one cube action or one result, exactly as
written (no rule is checked here: replaying the plays is the job of the rules engine).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CUBE_VARIATIONS",
    "crawford_header_on",
    "has_cube",
    "Action",
    "Game",
    "MatchRecord",
    "ROLL",
    "DOUBLE",
    "TAKE",
    "DROP",
    "RESIGN",
    "WIN",
    "ILLEGAL",
    "ACTION_KINDS",
    "PASSES_TURN",
]

ROLL = "roll"
DOUBLE = "double"
TAKE = "take"
DROP = "drop"
RESIGN = "resign"
WIN = "win"
ILLEGAL = "illegal"
ACTION_KINDS = (ROLL, DOUBLE, TAKE, DROP, RESIGN, WIN, ILLEGAL)

#: Kinds after which the *other* player acts next (used to assign lone actions).
PASSES_TURN = (ROLL, ILLEGAL, DOUBLE, TAKE, DROP, RESIGN)


@dataclass(slots=True)
class Action:
    """One action of a game, as written in the record.

    Attributes
    ----------
    player : int
        0 = left column / player 1, 1 = right column / player 2.
    kind : str
        One of ``"roll"``, ``"double"``, ``"take"``, ``"drop"``, ``"resign"``,
        ``"win"``, ``"illegal"`` (see :data:`ACTION_KINDS`).
    dice : tuple of int or None
        The two dice in the order written (``"35:"`` gives ``(3, 5)``), for
        rolls and for illegal-play entries that carry dice; else None.
    play : str
        The move text exactly as written, stripped (``"13/7* 8/7"``,
        ``"24/22(2)"``, ``"bar/20"``).  ``""`` for a roll with no move (nothing
        after the dice, or ``Cannot Move``).  For ``"illegal"`` the garbage
        text itself (``"????"``, ``"Illegal play (...)"``).
    value : int or None
        Cube value for ``"double"`` (``Doubles => 4`` gives 4), points for
        ``"win"`` and ``"resign"``; else None.
    line : int or None
        1-based line number in the file.
    move_number : int or None
        The ``NN`` of the ``NN)`` line, None for unnumbered result lines.
    raw : str
        The raw text of the action, stripped (``"52: 13/8 6/4*"``,
        ``"Wins 1 point and the match"``).
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    value: int | None = None
    line: int | None = None
    move_number: int | None = None
    raw: str = ""

    def key(self) -> tuple:
        """The content of the action without its location (for comparisons).

        Returns
        -------
        tuple
            ``(kind, player, dice, play, value)``.
        """
        return (self.kind, self.player, self.dice, self.play, self.value)


@dataclass
class Game:
    """One game of a match record.

    Attributes
    ----------
    number : int
        The game number as written (``Game 3`` gives 3).
    score : tuple of int
        Score of (player 1, player 2) before the game.
    players : tuple of str
        Names from the score line (a GridGammon rating suffix ``,1811`` is
        removed and kept in ``ratings``).
    actions : list of Action
        All actions in chronological order (left then right on each line).
    winner : int or None
        0 or 1 from the ``Wins`` line, None if the game has no result.
    points : int or None
        Points from the ``Wins`` line as written (capped or not, as the site
        wrote it).
    resigned : bool
        True when the record shows a resignation: a ``Losses`` line (Galaxy),
        an SGF ``R`` result, or a game that ends right after the *loser's* own
        roll (roll-then-resign).  A resignation written as a bare ``Wins``
        line after the winner's move cannot be told from a bear-off without
        replaying the game, and stays False.
    defects : list of str
        Problems found while parsing this game (garbage text, illegal-play
        dumps, out-of-turn actions, implausible results); empty for a clean
        game.
    ratings : tuple
        Ratings glued to the names in GridGammon score lines, else
        ``(None, None)``.
    """

    number: int
    score: tuple[int, int] = (0, 0)
    players: tuple[str, str] = ("", "")
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None
    resigned: bool = False
    defects: list[str] = field(default_factory=list)
    ratings: tuple[int | None, int | None] = (None, None)

    @property
    def rolls(self) -> list[Action]:
        """The ``"roll"`` actions (dances included).

        Returns
        -------
        list of Action
        """
        return [a for a in self.actions if a.kind == ROLL]

    @property
    def cube_actions(self) -> list[Action]:
        """The ``"double"``, ``"take"`` and ``"drop"`` actions.

        Returns
        -------
        list of Action
        """
        return [a for a in self.actions if a.kind in (DOUBLE, TAKE, DROP)]


def crawford_header_on(headers: dict) -> bool:
    """A record's ``Crawford`` header: on unless it is ``Off`` (or 0, false, no)."""
    return str(headers.get("Crawford", "On")).strip().lower() not in ("off", "0", "false", "no")


CUBE_VARIATIONS = ("backgammon", "bg")
"""The record variations played with a doubling cube (backgammon; the Tawla rulesets have none)."""


def has_cube(variation: str) -> bool:
    """Whether a record's variation is played with the doubling cube."""
    return variation.strip().lower() in CUBE_VARIATIONS


@dataclass
class MatchRecord:
    """A parsed match record.

    Attributes
    ----------
    path : str or None
        File the record was read from, None for parsed text.
    headers : dict of str to str
        The ``; [Key "value"]`` headers in file order (values unchanged).
    match_length : int
        Points to win the match; 0 = money session (``0 point match``, or no
        length line at all).
    players : tuple of str
        Player 1 (left column) and player 2 (right column): the ``Player 1`` /
        ``Player 2`` headers if present, else the names of the first score
        line.
    games : list of Game
    variation : str
        From the ``Variation`` header, default ``"Backgammon"``.
    defects : list of str
        Problems outside any game (unrecognised lines before the first game).
    """

    path: str | None
    headers: dict[str, str] = field(default_factory=dict)
    match_length: int = 0
    players: tuple[str, str] = ("", "")
    games: list[Game] = field(default_factory=list)
    variation: str = "Backgammon"
    defects: list[str] = field(default_factory=list)

    @property
    def crawford_rule(self) -> bool:
        """Whether the match is played with the Crawford rule (RULES.md §2.4): the ``Crawford``
        header, on unless it says ``Off`` (gnubg's ``; [Crawford "Off"]``); never in a money
        session or a variation without a cube."""
        return bool(self.match_length) and crawford_header_on(self.headers) and has_cube(self.variation)
