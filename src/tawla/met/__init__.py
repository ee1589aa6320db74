"""Match play by match-winning chance: match equity tables (:mod:`tawla.met.table`; the Tawla
rulesets' own, measured: :mod:`tawla.met.variants`) and the cubeful equity of a position at a
match score (:mod:`tawla.met.cube`)."""

from .cube import CubeDecision, MatchCube, ScoreState, probabilities5
from .table import MAX_AWAY, MatchEquityTable, default_met, load_met, parse_met
from .variants import table_from_distribution, variant_met

__all__ = ["MAX_AWAY", "CubeDecision", "MatchCube", "MatchEquityTable", "ScoreState", "default_met", "load_met",
           "parse_met", "probabilities5", "table_from_distribution", "variant_met"]
