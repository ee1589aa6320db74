"""tawla: a fast, exact rules engine for the backgammon family.

Backgammon with the cube, Adi/Sheshbesh, Mahbusa, Tawla 31 (federation) and
Tawla 31 (Saharat), as specified in RULES.md.

Quick use::

    import tawla
    pos = tawla.get_ruleset("backgammon").initial_position()
    for move in pos.legal_moves((3, 1)):
        print(move)
"""

from . import errors
from ._version import __version__
from .batch import PlayoutResult, expand, expand_all_rolls, playout
from .bots import Bot, CubeAction, evaluate
from .core.dice import ROLL_WEIGHTS, ROLLS
from .core.layout import PACKED_WIDTH
from .core.moves import Move
from .core.results import GameResult
from .core.steps import Step
from .evaluation import bearoff
from .formats.gnubg import MatchState
from .match import FairDice, HouseRules, Match, get_house, verify_dice
from .notation import parse_move
from .position import Position, array_to_ids, array_to_positions, ids_to_array, positions_to_array
from .rules import RULESET_IDS, Ruleset, get_ruleset
from .rules.opening import OpeningRoll, opening_roll
from .rollout import Rollout, RolloutSettings, rollout
from .turn import legal_steps

__all__ = [
    # rules, positions, moves (foundation, variants)
    "errors", "get_ruleset", "Ruleset", "RULESET_IDS", "Position", "GameResult", "Move", "Step",
    "parse_move", "legal_steps", "opening_roll", "OpeningRoll", "MatchState",
    # batch engine (bots, bulk analysis)
    "expand", "expand_all_rolls", "ROLLS", "ROLL_WEIGHTS", "PACKED_WIDTH", "positions_to_array",
    "array_to_positions", "ids_to_array", "array_to_ids", "playout", "PlayoutResult",
    # evaluation and bots
    "bearoff", "evaluate", "Bot", "CubeAction", "rollout", "Rollout", "RolloutSettings",
    # servers
    "Match", "HouseRules", "get_house", "FairDice", "verify_dice",
]
