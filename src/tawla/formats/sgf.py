"""Minimal reader for gnubg SGF match files (``GM[6]``).

Only what is needed to get the games and actions out: analysis properties
(``A``, ``DA``, ``MR``, ``LU``, ``GS`` ...) are ignored.  The result uses the
same :class:`~tawla.formats.record.Action` / ``Game`` / ``MatchRecord``
classes as the ``.mat`` reader, and plays are converted to the mover's own
point numbering (``"13/7* 8/7"``, bar = 25, off = 0), the way gnubg writes
them in a ``.mat`` export, so both can be replayed the same way.

gnubg SGF essentials::

    (;FF[4]GM[6]MI[length:7][game:0][ws:0][bs:0]PW[Player A]PB[Player B]
      RU[Crawford]RE[B+2R]
     ;B[41lpab]             dice 4-1, moves l->p and a->b
     ;W[31fehe]
     ;W[double] ;B[take]    cube actions (also ;B[drop])
     ;B[51]                 dice only: no move
    )(;FF[4]GM[6]MI[length:7][game:1][ws:0][bs:2] ...)

One game tree per game.  Point letters ``a``..``x`` are one absolute
numbering: for ``W`` (``PW``, player 1, left column) letter index ``i`` is
point ``i + 1``; for ``B`` (``PB``, player 2) it is point ``24 - i``.  ``y``
is the bar and ``z`` is off for both.  Hits are implicit in SGF; the reader
keeps a checker count per point from the starting position (no rule checks)
to add gnubg's ``*`` (position-setup properties such as ``AW``/``AB`` are not
supported and would only spoil the ``*`` marks).
"""

from __future__ import annotations

import os
import re

from tawla.errors import FormatError, quote
from tawla.formats.matfile import read_text
from tawla.formats.record import DOUBLE, DROP, ILLEGAL, ROLL, TAKE, WIN, Action, Game, MatchRecord

__all__ = ["read_sgf", "parse_sgf", "sgf_point", "HITTING_VARIATIONS", "START"]

_TOKEN_RE = re.compile(r"\s*(?:(?P<punct>[();])|(?P<ident>[A-Za-z]+)|(?P<value>\[))")
"""The start of a token: punctuation, a property name, or the ``[`` of a value (whose end
:func:`_value_end` finds without a regular expression, so that a long value costs no more
than its own text)."""
_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)
_RESULT_RE = re.compile(r"^(?P<who>[BW])\+(?P<points>\d+)(?P<resign>R)?$")
_MOVE_RE = re.compile(r"^(?P<d1>[1-6])(?P<d2>[1-6])(?P<moves>[a-z]*)$")


def sgf_point(letter: str, player: int) -> int:
    """Convert a gnubg SGF point letter to the mover's own point number.

    Parameters
    ----------
    letter : str
        ``"a"``..``"x"`` (board points), ``"y"`` (bar) or ``"z"`` (off).
    player : int
        0 for ``W`` / ``PW``, 1 for ``B`` / ``PB``.

    Returns
    -------
    int
        1..24 in the mover's numbering, 25 for the bar, 0 for off.

    Raises
    ------
    FormatError
        For a letter outside ``a``..``z``.
    """
    if (not isinstance(letter, str) or len(letter) != 1 or isinstance(player, bool)
            or not isinstance(player, int) or player not in (0, 1)):
        raise FormatError(f"bad SGF point letter {quote(letter)} or player {quote(player)}")
    index = ord(letter) - ord("a")
    if not 0 <= index <= 25:
        raise FormatError(f"bad SGF point letter {quote(letter)}")
    if index == 24:
        return 25
    if index == 25:
        return 0
    return index + 1 if player == 0 else 24 - index


def _value_end(text: str, pos: int) -> int:
    """The index of the ``]`` that closes the value whose text starts at ``pos`` (a ``]``
    after an odd number of backslashes is escaped).

    Raises
    ------
    FormatError
        No closing ``]``.
    """
    while True:
        j = text.find("]", pos)
        if j < 0:
            raise FormatError(f"SGF syntax error: a value opened before offset {pos} is not closed")
        k = j
        while k > pos and text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j
        pos = j + 1


def _tokens(text: str):
    """The tokens of SGF text, one at a time: ``(kind, text)`` with kind ``punct``, ``ident``
    or ``value`` (escapes removed)."""
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        if not m:
            if text[pos:pos + 4096].strip() == "" and text[pos:].strip() == "":
                return
            raise FormatError(f"SGF syntax error at offset {pos}: {text[pos:pos + 20]!r}")
        pos = m.end()
        if m["punct"]:
            yield "punct", m["punct"]
        elif m["ident"]:
            yield "ident", m["ident"]
        else:
            end = _value_end(text, pos)
            raw = text[pos:end]
            pos = end + 1
            yield "value", _unescape(raw) if "\\" in raw else raw


def _unescape(raw: str) -> str:
    """A value's text with its escapes removed (a backslash makes the next character plain),
    by whole-string replaces (each a copy of the text) rather than one piece per escape; the
    pairs of backslashes are held by a control character absent from the text."""
    mark = next((c for c in "\x00\x01\x02\x03\x04\x05\x06\x07\x08" if c not in raw), None)
    if mark is None:
        return _ESCAPE_RE.sub(r"\1", raw)
    return raw.replace("\\\\", mark).replace("\\", "").replace(mark, "\\")


def _parse_trees(text: str) -> list[list[dict[str, list[str]]]]:
    """Parse SGF text into the main line (list of nodes) of each top-level tree.

    A node is a dict ``{property: [values]}``.  In variations only the first
    branch is followed. The tokens are read one at a time and trees are nested on a list,
    not on the call stack, so memory follows the nodes kept, not the text's length.
    """
    trees: list[list[dict]] = []
    # one frame per open tree: [nodes, node, prop, first variation's line or None, variations seen]
    stack: list[list] = []
    for kind, tok in _tokens(text):
        if kind == "punct" and tok == "(":
            if stack:
                top = stack[-1]
                top[4] += 1
            stack.append([[], None, None, None, 0])
            continue
        if not stack:
            raise FormatError(f"SGF syntax error: expected '(' , got {quote(tok)}")
        top = stack[-1]
        if kind == "punct" and tok == ")":
            if not top[0]:  # a game tree is a sequence of at least one node, then its variations
                raise FormatError("SGF syntax error: a game tree without a node")
            stack.pop()
            line = top[0] + (top[3] or [])
            if not stack:
                trees.append(line)
            else:
                parent = stack[-1]
                if parent[3] is None:
                    parent[3] = line
            continue
        if top[4]:
            raise FormatError("SGF syntax error: node after a variation")
        if kind == "punct":  # ';'
            top[1], top[2] = {}, None
            top[0].append(top[1])
        elif kind == "ident":
            if top[1] is None:
                raise FormatError(f"SGF syntax error: property {tok} outside a node")
            top[2] = "".join(c for c in tok if c.isupper())
            top[1].setdefault(top[2], [])
        else:
            if top[1] is None or top[2] is None:
                raise FormatError("SGF syntax error: value without a property")
            top[1][top[2]].append(tok)
    if stack:
        raise FormatError("SGF syntax error: unclosed game tree")
    return trees


def read_sgf(path: str | os.PathLike) -> MatchRecord:
    """Read a gnubg SGF match file.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    MatchRecord
        One :class:`Game` per game tree, with the same actions a gnubg
        ``.mat`` export of the match gives (hits starred), the result
        as a final ``"win"`` action, ``resigned`` from the ``R`` of ``RE``.
        ``Action.line`` is None; ``Action.move_number`` is the 1-based index
        of the node within its game.

    Raises
    ------
    FormatError
        If the file is not a gnubg backgammon SGF (``GM[6]``) or is
        syntactically broken.
    """
    try:
        text = read_text(path)
    except OSError as exc:
        raise FormatError(f"cannot read SGF file: {exc}", file=str(path)) from exc
    return parse_sgf(text, path=str(path))


def parse_sgf(text: str, path: str | os.PathLike | None = None) -> MatchRecord:
    """Parse the text of a gnubg SGF match (see :func:`read_sgf`).

    Parameters
    ----------
    text : str
    path : str or path-like, optional
        Stored in the record and used in error messages.

    Returns
    -------
    MatchRecord
    """
    fname = None if path is None else str(path)
    if not isinstance(text, str):
        raise FormatError(f"parse_sgf takes the record text as str, not {type(text).__name__}", file=fname)
    try:
        return _parse_sgf(text, fname)
    except FormatError:
        raise
    except (IndexError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise FormatError(f"malformed SGF ({type(exc).__name__}: {exc})", file=fname) from None


def _parse_sgf(text: str, fname) -> MatchRecord:
    try:
        trees = _parse_trees(text)
    except FormatError as exc:
        raise FormatError(str(exc), file=fname) from exc
    if not trees:
        raise FormatError("no SGF game tree", file=fname)
    games: list[Game] = []
    headers: dict[str, str] = {}
    match_length = 0
    for index, nodes in enumerate(trees):
        root = nodes[0] if nodes else {}
        if root.get("GM", ["6"])[0] != "6":
            raise FormatError(f"not a backgammon SGF (GM[{root['GM'][0]}])", file=fname,
                              game=index + 1)
        info = dict(v.split(":", 1) for v in root.get("MI", []) if ":" in v)
        try:
            length, number = int(info.get("length", 0)), int(info.get("game", index)) + 1
            score = (int(info.get("ws", 0)), int(info.get("bs", 0)))
        except ValueError as exc:
            raise FormatError(f"bad MI property: {exc}", file=fname, game=index + 1) from exc
        if index == 0:
            match_length = length
            headers = _headers(root, length)
        game = Game(
            number=number,
            score=score,
            players=(_first(root, "PW"), _first(root, "PB")),
        )
        _read_moves(game, nodes[1:], marks_hits=headers.get("Variation", "Backgammon").lower() in HITTING_VARIATIONS)
        _read_result(game, _first(root, "RE"))
        games.append(game)
    players = games[0].players if games else ("", "")
    return MatchRecord(
        path=fname,
        headers=headers,
        match_length=match_length,
        players=players,
        games=games,
        variation=headers.get("Variation", "Backgammon"),
    )


def _first(node: dict, prop: str) -> str:
    values = node.get(prop)
    return values[0] if values else ""


HITTING_VARIATIONS = ("backgammon", "bg", "adi", "sheshbesh")
"""The variations played from backgammon's starting position with hits, whose ``*`` marks
the reader adds by following the checkers."""


def _headers(root: dict, length: int) -> dict[str, str]:
    """Map the root properties a ``.mat`` file also has to its header names: the players, the
    place, event and date, the ``Jacoby`` rule of a money session (on with ``RU[Jacoby]``,
    else off, as gnubg writes it), the ``Crawford`` rule of a match whose root has ``RU`` (on
    when it names ``Crawford``; a match without ``RU`` keeps the default, on) and the private ``VA`` (variation) and ``VO`` (ruleset
    options) of :mod:`tawla.formats.sgf_write`."""
    headers = {}
    for prop, key in (("PW", "Player 1"), ("PB", "Player 2"), ("PC", "Site"), ("EV", "Event"),
                      ("VA", "Variation"), ("VO", "Ruleset options")):
        if root.get(prop):
            headers[key] = root[prop][0]
    if root.get("DT"):
        headers["EventDate"] = root["DT"][0].replace("-", ".")
    if not length:
        headers["Jacoby"] = "On" if any(r.split(":")[0] == "Jacoby" for r in root.get("RU", [])) else "Off"
    elif root.get("RU"):  # a match's rules: the Crawford rule when they name it (gnubg writes RU[Crawford])
        headers["Crawford"] = "On" if any(r.split(":")[0] == "Crawford" for r in root["RU"]) else "Off"
    return headers


START = {24: 2, 13: 5, 8: 3, 6: 5}
"""Backgammon's starting position, in each player's own numbering (point: checkers)."""


def _read_moves(game: Game, nodes: list[dict], marks_hits: bool = True) -> None:
    """Turn the ``B``/``W`` nodes of one game into actions.

    A plain checker count per point is kept (no rules are checked) only to
    mark hits with ``*`` the way gnubg's ``.mat`` export does (``marks_hits``:
    for the variations played from backgammon's starting position).
    """
    cube = 1
    board = [dict(START), dict(START)]  # own numbering, 25 = bar
    for number, node in enumerate(nodes, start=1):
        for prop in ("W", "B"):
            if prop not in node:
                continue
            player = 0 if prop == "W" else 1
            value = node[prop][0] if node[prop] else ""
            act = Action(player=player, kind=ILLEGAL, raw=value, move_number=number)
            low = value.lower()
            if low == "double":
                act.kind, act.value = DOUBLE, cube * 2
            elif low == "take":
                act.kind = TAKE
                cube *= 2
            elif low == "drop":
                act.kind = DROP
            elif (m := _MOVE_RE.match(value)) and len(m["moves"]) % 2 == 0:
                act.kind, act.dice = ROLL, (int(m["d1"]), int(m["d2"]))
                letters = m["moves"]
                act.play = " ".join(
                    _move_text(board, player, sgf_point(letters[i], player),
                               sgf_point(letters[i + 1], player), marks_hits)
                    for i in range(0, len(letters), 2)
                )
            else:
                act.play = value
                game.defects.append(f"node {number}: unreadable move {prop}[{value}]")
            game.actions.append(act)


def _move_text(board: list[dict], player: int, src: int, dst: int, marks_hits: bool = True) -> str:
    """Apply one checker move to the count board; return ``"src/dst"`` (``*`` on a hit)."""
    mine, theirs = board[player], board[1 - player]
    mine[src] = mine.get(src, 0) - 1
    hit = False
    if dst > 0:
        mine[dst] = mine.get(dst, 0) + 1
        if marks_hits and theirs.get(25 - dst, 0) == 1:
            theirs[25 - dst] = 0
            theirs[25] = theirs.get(25, 0) + 1
            hit = True
    return f"{src}/{dst}{'*' if hit else ''}"


def _read_result(game: Game, result: str) -> None:
    """Fill winner/points/resigned from ``RE[W+2]`` / ``RE[B+4R]``, add the win action."""
    if not result.strip():  # no RE: a game not finished (gnubg writes it so), as a .mat game without a Wins line
        return
    m = _RESULT_RE.match(result.strip())
    if not m:
        game.defects.append(f"no readable result (RE[{result}])")
        return
    game.winner = 0 if m["who"] == "W" else 1
    game.points = int(m["points"])
    game.resigned = bool(m["resign"])
    game.actions.append(
        Action(player=game.winner, kind=WIN, value=game.points, raw=result)
    )
