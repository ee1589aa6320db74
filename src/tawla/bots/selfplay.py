"""Self-play: the engine plays itself and writes the games as a Jellyfish ``.mat`` record.

``tawla selfplay --ruleset NAME --games N -o FILE`` writes such a record. (The bundled samples of
``tawla analyze`` are matches played through :class:`tawla.Match`: ``tools/make_samples.py``.)
"""

from __future__ import annotations

import random
from typing import Callable

from ..errors import ConfigError, InvalidAction, quote
from ..formats import matfile
from ..rules import get_ruleset
from ..rules.opening import opening_roll
from .search import Bot

__all__ = ["selfplay", "random_policy", "DEFAULT_LENGTH"]

DEFAULT_LENGTH = {"backgammon": 5, "adi": 3, "mahbusa": 5, "tawla31": 11, "tawla31-saharat": 5}
"""The default match length per ruleset (RULES.md §1.8 / §7)."""


def random_policy(rng: random.Random) -> Callable:
    """A policy that picks uniformly among the distinct legal moves."""

    def choose(position, dice, moves):
        return rng.choice(moves)

    return choose


def _bot_policy(ruleset, level):
    if level not in Bot.LEVELS:
        raise ConfigError(f"unknown policy {quote(level)}; choose 'random' or one of {', '.join(Bot.LEVELS)}")
    bot = Bot(ruleset, level)

    def choose(position, dice, moves):
        m = bot.choose(position, dice)
        return m if m is not None else moves[0]

    return choose


def selfplay(ruleset, *, games: int | None = None, length: int | None = None, seed: int = 0,
             policy: str = "random", players=("tawla A", "tawla B"), max_turns: int = 2000):
    """Play games of the engine against itself.

    Parameters
    ----------
    ruleset : Ruleset or str
    games : int, optional
        Number of games of a money session (``0 point match``); exclusive with ``length``.
    length : int, optional
        Play a match to this many points (default: :data:`DEFAULT_LENGTH` when ``games``
        is None too).
    seed : int
        Seeds the dice and the random policy: the same seed gives the same record.
    policy : str
        ``"random"``, or a :class:`tawla.Bot` level name when the bots are installed.
    max_turns : int
        Safety stop for one game.

    Returns
    -------
    tawla.formats.matfile.MatchRecord
        With a ``Variation`` header naming the ruleset.
    """
    r = get_ruleset(ruleset)
    for name, value in (("games", games), ("length", length)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise InvalidAction(f"{name} must be a whole number >= 1, not {quote(value)}")
    rng = random.Random(seed)
    choose = random_policy(random.Random(seed + 1)) if policy == "random" else _bot_policy(r, policy)
    if games is None and length is None:
        length = DEFAULT_LENGTH[r.name]
    record = matfile.MatchRecord(path=None, headers={"Player 1": players[0], "Player 2": players[1],
                                                     "Variation": r.name},
                                 match_length=length or 0, players=tuple(players), variation=r.name)
    if r.cube and not length:
        # a money session without the cube: gammons and backgammons count (no Jacoby rule,
        # RULES.md §2.4), and the header says so for readers such as ``tawla analyze``
        record.headers["Jacoby"] = "Off"
    score = [0, 0]
    number = 0
    while True:
        if games is not None and number >= games:
            break
        if length and max(score) >= length:
            break
        number += 1
        game = matfile.Game(number=number, score=(score[0], score[1]), players=tuple(players))
        record.games.append(game)
        # opening roll (§1.6)
        while True:
            o = opening_roll(r, rng.randint(1, 6), rng.randint(1, 6))
            if o.starter is not None:
                break
        mover = o.starter
        dice = o.dice or (rng.randint(1, 6), rng.randint(1, 6))
        pos = r.initial_position()
        for _turn in range(max_turns):
            moves = pos.legal_moves(dice)
            move = choose(pos, dice, moves) if moves else None
            game.actions.append(matfile.Action(player=mover, kind="roll", dice=tuple(dice),
                                               play=str(move) if move else ""))
            pos = pos.play(move) if move else pos.flip()
            mover = 1 - mover
            res = pos.result()
            if res is not None:
                break
            dice = (rng.randint(1, 6), rng.randint(1, 6))
        else:
            res = None
        if res is None or res.winner is None:  # a draw (frozen) or the safety stop: replayed
            continue
        winner = mover if res.winner == 0 else 1 - mover
        pts = res.points
        score[winner] += pts
        done = length is not None and 0 < length <= score[winner]
        text = f"Wins {pts} point{'s' if pts != 1 else ''}" + (" and the match" if done else "")
        game.actions.append(matfile.Action(player=winner, kind="win", value=pts, raw=text))
        game.winner, game.points = winner, pts
    return record
