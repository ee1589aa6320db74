"""A match as a Jellyfish ``.mat`` record (:mod:`tawla.formats.matfile`) or a GNU Backgammon
SGF one (:mod:`tawla.formats.sgf_write`), from its event log."""

from __future__ import annotations

import json

from ..formats.matfile import DOUBLE, DROP, ROLL, TAKE, WIN, Action, Game, MatchRecord, write_match
from ..formats.sgf_write import write_sgf
from .base import MatchBase

__all__ = ["MatExportMixin"]


class MatExportMixin(MatchBase):
    """:meth:`to_match_record`, :meth:`to_mat` and :meth:`to_sgf`."""

    def to_match_record(self):
        """The match as a :class:`tawla.formats.matfile.MatchRecord` (the ``.mat`` data model).

        Each turn is a ``roll`` action (a pass has an empty play), cube actions are
        ``double``/``take``/``drop``, and each won game ends with a ``win`` action for its
        points (``"and the match"`` on the last one). A drawn game (frozen, replayed) has no
        ``win`` action; the game cut short by a forfeit neither. Points are in each player's
        own numbering, as in every ``.mat`` file.
        """
        variation = "Backgammon" if self.ruleset.name == "backgammon" else self.ruleset.name
        headers = {"Player 1": self.players[0], "Player 2": self.players[1],
                   "Variation": variation}
        if self.cube_in_play and self.length and not self.house.crawford:
            headers["Crawford"] = "Off"
        if self.ruleset.options:
            headers["Ruleset options"] = json.dumps(dict(self.ruleset.options), sort_keys=True)
        if self._end == "forfeit":
            headers["Termination"] = f"forfeit by {self.players[1 - self._winner]}"
        rec = MatchRecord(path=None, headers=headers, match_length=self.length,
                          players=self.players, variation=variation)
        game = None
        last_game_end = max((i for i, e in enumerate(self._events) if e["type"] == "game_end"
                             and e["reason"] != "forfeit" and e["winner"] is not None), default=None)
        for i, ev in enumerate(self._events):
            typ = ev["type"]
            if typ == "game_start":
                game = Game(number=ev["game"], score=tuple(ev["score"]), players=self.players)
                rec.games.append(game)
            elif typ == "turn":
                game.actions.append(Action(ev["player"], ROLL, dice=tuple(ev["dice"]), play=ev["move"]))
            elif typ == "double":
                game.actions.append(Action(ev["player"], DOUBLE, value=ev["value"]))
            elif typ == "take":
                game.actions.append(Action(ev["player"], TAKE))
            elif typ == "drop" or (typ == "timeout" and ev.get("action") == "drop"):
                game.actions.append(Action(ev["player"], DROP))
            elif typ == "game_end" and ev["winner"] is not None and ev["reason"] != "forfeit":
                pts = ev["points"]
                raw = f"Wins {pts} point{'s' if pts != 1 else ''}"
                if i == last_game_end and self._end == "score":
                    raw += " and the match"
                game.actions.append(Action(ev["winner"], WIN, value=pts, raw=raw))
                game.winner, game.points = ev["winner"], pts
                game.resigned = ev["reason"] == "resign"
        return rec

    def to_mat(self) -> str:
        """The match as Jellyfish ``.mat`` text, through :func:`tawla.formats.matfile.write_match`."""
        return write_match(self.to_match_record())

    def to_sgf(self) -> str:
        """The match as GNU Backgammon SGF text (one game tree per game), through
        :func:`tawla.formats.sgf_write.write_sgf`; another ruleset than backgammon keeps its
        name (and options) in the private root properties ``VA`` and ``VO``."""
        return write_sgf(self.to_match_record())
