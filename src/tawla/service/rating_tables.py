"""The ratings' tables and their queries, run by :class:`~tawla.service.store.Store` inside its
transactions: a Glicko-2 rating (:mod:`tawla.ratings`) per player, ruleset and kind, and every
change of one.

A player is a key: ``account:<id>`` for an account, ``bot:<level>`` for a bot of that level
(guests have none: they are not rated). The kind is ``game`` for a one-point match and
``match`` for a longer one (:func:`rating_kind`). Each rated match's result is one rating
period for both players (:func:`tawla.ratings.rate_match`), a resignation or a forfeit a loss
like any other.

Tables
------
``ratings``         player, ruleset, kind, rating, deviation, volatility (the Glicko scale),
                    played (rated matches), updated (seconds since the epoch)
``rating_changes``  player, ruleset, kind, room, match_no, opponent (a player key), result
                    (1 won, 0 lost), before, after (ratings), deviation (after), t
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, insert, select, update
from sqlalchemy.engine import Connection

from ..ratings import NEW, Rating, rate_match

__all__ = ["metadata", "ratings", "rating_changes", "RATING_KINDS", "NEW", "rating_kind", "account_key", "bot_key",
           "current", "rate_result", "leaderboard", "player_ratings", "player_history", "changes_of_match"]

Names = Callable[[Iterable[str]], dict[str, str]]
"""Account names by player key, for the keys given (bots are left out)."""

RATING_KINDS = ("game", "match")
"""The kinds of rating a player has per ruleset: one-point matches, longer matches."""

metadata = MetaData()

ratings = Table(
    "ratings", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player", String(64), nullable=False),
    Column("ruleset", String(40), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("played", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    Index("rating_of_a_player", "player", "ruleset", "kind", unique=True),
    Index("ratings_of_a_ruleset", "ruleset", "kind", "rating"),
)

rating_changes = Table(
    "rating_changes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player", String(64), nullable=False),
    Column("ruleset", String(40), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("room", String(16), nullable=False),
    Column("match_no", Integer, nullable=False),
    Column("opponent", String(64), nullable=False),
    Column("result", Float, nullable=False),
    Column("before", Float, nullable=False),
    Column("after", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("t", Float, nullable=False),
    Index("rating_change_of_a_match", "room", "match_no", "player", unique=True),
    Index("rating_changes_of_a_player", "player", "id"),
)


def rating_kind(length: int) -> str:
    """``game`` for a one-point match, ``match`` for a longer one."""
    return "game" if length <= 1 else "match"


def account_key(account_id: int) -> str:
    """The player key of an account."""
    return f"account:{int(account_id)}"


def bot_key(level: str) -> str:
    """The player key of a bot of ``level``."""
    return f"bot:{level}"


def current(c: Connection, player: str, ruleset: str, kind: str) -> tuple[Rating, int] | None:
    """A player's rating and rated matches for a ruleset and kind, or None when he has none."""
    row = c.execute(select(ratings).where(ratings.c.player == player, ratings.c.ruleset == ruleset,
                                          ratings.c.kind == kind)).mappings().first()
    if row is None:
        return None
    return Rating(row["rating"], row["deviation"], row["volatility"]), int(row["played"])


def _put(c: Connection, player: str, ruleset: str, kind: str, r: Rating, played: int, existed: bool,
         now: float) -> None:
    values = {"rating": r.rating, "deviation": r.deviation, "volatility": r.volatility, "played": played,
              "updated": now}
    if existed:
        c.execute(update(ratings).where(ratings.c.player == player, ratings.c.ruleset == ruleset,
                                        ratings.c.kind == kind).values(**values))
    else:
        c.execute(insert(ratings).values(player=player, ruleset=ruleset, kind=kind, **values))


def rate_result(c: Connection, room: str, match_no: int, ruleset: str, kind: str, players: tuple[str, str],
                winner: int) -> list[dict[str, float]]:
    """Rate one match between ``players`` (seat 0's key, seat 1's) won by seat ``winner``,
    once: a match already rated (its rows in ``rating_changes``) is not rated again.

    Returns
    -------
    list of dict
        Per seat ``{"before", "after", "change", "deviation"}`` (ratings in Glicko points).
    """
    if c.dialect.name == "postgresql":  # processes rating the same player (a bot) at once take turns
        for key in sorted(set(players)):
            c.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtext(%(key)s))", {"key": f"rating:{key}"})
    done = changes_of_match(c, room, match_no)
    if done is not None:
        return done
    now = time.time()
    got = [current(c, p, ruleset, kind) for p in players]
    before = [g[0] if g is not None else NEW for g in got]
    after = rate_match(before[0], before[1], 1.0 if winner == 0 else 0.0)
    out = []
    for seat in (0, 1):
        played = (got[seat][1] if got[seat] is not None else 0) + 1  # type: ignore[index]
        _put(c, players[seat], ruleset, kind, after[seat], played, got[seat] is not None, now)
        c.execute(insert(rating_changes).values(
            player=players[seat], ruleset=ruleset, kind=kind, room=room, match_no=match_no,
            opponent=players[1 - seat], result=1.0 if winner == seat else 0.0, before=before[seat].rating,
            after=after[seat].rating, deviation=after[seat].deviation, t=now))
        out.append(_change(before[seat].rating, after[seat].rating, after[seat].deviation))
    return out


def _change(before: float, after: float, deviation: float) -> dict[str, float]:
    return {"before": before, "after": after, "change": after - before, "deviation": deviation}


def changes_of_match(c: Connection, room: str, match_no: int) -> list[dict[str, float]] | None:
    """The rating changes of a rated match, per seat (as :func:`rate_result` gives them), or
    None when it was not rated."""
    rows = c.execute(select(rating_changes).where(rating_changes.c.room == room,
                                                  rating_changes.c.match_no == match_no)
                     .order_by(rating_changes.c.id)).mappings().all()
    if len(rows) != 2:
        return None
    return [_change(r["before"], r["after"], r["deviation"]) for r in rows]


def leaderboard(c: Connection, ruleset: str, kind: str, limit: int, names: Names) -> list[dict[str, Any]]:
    """The ``limit`` best rated players of ``ruleset`` and ``kind``, best first:
    ``{"rank", "player", "name", "bot", "rating", "deviation", "volatility", "played"}``;
    ``names(keys)`` maps account keys to names (a bot is named by its level)."""
    rows = c.execute(select(ratings).where(ratings.c.ruleset == ruleset, ratings.c.kind == kind)
                     .order_by(ratings.c.rating.desc(), ratings.c.id).limit(limit)).mappings().all()
    known = names([r["player"] for r in rows])
    return [{"rank": i + 1, **_player_fields(r["player"], known), "rating": r["rating"],
             "deviation": r["deviation"], "volatility": r["volatility"], "played": r["played"]}
            for i, r in enumerate(rows)]


def _player_fields(player: str, names: dict[str, str]) -> dict[str, Any]:
    if player.startswith("bot:"):
        level = player[4:]
        return {"player": player, "name": f"Bot ({level})", "bot": level}
    return {"player": player, "name": names.get(player, player), "bot": None}


def player_ratings(c: Connection, player: str) -> list[dict[str, Any]]:
    """A player's ratings, one per ruleset and kind he has played rated:
    ``{"ruleset", "kind", "rating", "deviation", "volatility", "played"}``."""
    rows = c.execute(select(ratings).where(ratings.c.player == player)
                     .order_by(ratings.c.ruleset, ratings.c.kind)).mappings().all()
    return [{k: r[k] for k in ("ruleset", "kind", "rating", "deviation", "volatility", "played")} for r in rows]


def player_history(c: Connection, player: str, limit: int, names: Names) -> list[dict[str, Any]]:
    """A player's last ``limit`` rating changes, newest first: ``{"room", "match_no", "ruleset",
    "kind", "opponent" (name), "opponent_bot", "result", "before", "after", "change", "deviation", "t"}``."""
    rows = c.execute(select(rating_changes).where(rating_changes.c.player == player)
                     .order_by(rating_changes.c.id.desc()).limit(limit)).mappings().all()
    known = names([r["opponent"] for r in rows])
    out = []
    for r in rows:
        opp = _player_fields(r["opponent"], known)
        out.append({"room": r["room"], "match_no": r["match_no"], "ruleset": r["ruleset"], "kind": r["kind"],
                    "opponent": opp["name"], "opponent_bot": opp["bot"], "result": r["result"],
                    **_change(r["before"], r["after"], r["deviation"]), "t": r["t"]})
    return out
