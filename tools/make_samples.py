"""Make the bundled samples that ``tawla analyze`` reads when given no file
(``src/tawla/data/sample_*.mat``): matches that two :class:`tawla.Bot` players of one level play
through :class:`tawla.Match`, with seeded dice, written by :meth:`tawla.Match.to_mat`.

usage: python tools/make_samples.py            write the samples
       python tools/make_samples.py --check    exit 1 when a sample differs from what it makes

Checker play: :meth:`tawla.Bot.choose` at :data:`LEVEL`. The cube (backgammon): the bot of the
side on roll doubles when :meth:`tawla.Bot.cube_action` (a money-game model) says so, the match
lets it and the cube is below the points the doubler still needs (a cube that already wins the
match with a single game is not turned); the other takes or drops by the same call (its
``take``, on the doubler's board). Each sample's header names the level that played it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tawla import Bot, Match
from tawla.formats.matfile import write_match

DATA = Path(__file__).resolve().parents[1] / "src" / "tawla" / "data"
LEVEL = "ply1"
"""The :attr:`tawla.Bot.LEVELS` level of both players."""

SAMPLES = {
    "sample_backgammon.mat": ("backgammon", "international", 3, 9),
    "sample_tawla31.mat": ("tawla31", "federation", 11, 1),
}
"""File name -> (ruleset, house, match length, seed of the dice)."""


def play(ruleset: str, house: str, length: int, seed: int, level: str = LEVEL) -> str:
    """The ``.mat`` text of a match of ``length`` points that two bots of ``level`` play.

    Raises
    ------
    tawla.errors.TawlaError
        A house that does not offer the ruleset or the length.
    """
    bot = Bot(ruleset, level)
    m = Match(ruleset, house, length, players=("tawla A", "tawla B"), rng=seed)
    while m.phase != "over":
        player = m.to_act
        if m.phase == "roll":
            if m.can_double(player) and m.cube_value < m.length - m.score[player] and bot.cube_action(m.position, m.cube_value).double:
                m.double(player)
            else:
                m.roll(player)
        elif m.phase == "double":
            if bot.cube_action(m.position, m.cube_value).take:  # the doubler's board: should the taker take
                m.take(player)
            else:
                m.drop(player)
        else:
            m.play(player, bot.choose(m.position, m.dice))
    record = m.to_match_record()
    record.headers["Comment"] = f"tawla.Bot level {level} against itself, seed {seed} (tools/make_samples.py)"
    return write_match(record)


def main(argv: list[str] | None = None) -> int:
    """Write the samples (or, with ``--check``, compare them); the exit status."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    args = p.parse_args(argv)
    status = 0
    for name, spec in SAMPLES.items():
        text = play(*spec)
        path = DATA / name
        if args.check:
            if path.read_text(encoding="utf-8") != text:
                print(f"{path} differs from what tools/make_samples.py makes", file=sys.stderr)
                status = 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}", file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
