"""The evaluator a rollout's trials play with, for the compiled trial loop and its Python twin.

A level (:data:`tawla.rollout.settings.LEVELS`) names a contact model; game ends are valued
exactly and races by the race model (exact from the two-sided bear-off database) as
:func:`tawla.evaluation.evaluate` routes them, for every ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bots import Bot
from ..errors import ConfigError, InvalidArgument
from ..evaluation import CONTACT_MODELS
from ..evaluation.bearoff import eval_tables
from ..evaluation.linear import LinearContact
from ..evaluation.net import NetEvaluator, shipped_net
from ..evaluation.nohit import nohit_contact
from ..evaluation.routing import race_network
from ..rules import Ruleset

__all__ = ["TrialEvaluator", "trial_evaluator"]


@dataclass(frozen=True)
class TrialEvaluator:
    """The contact model of a level: ``"net"`` (``net``, with the ruleset's race network
    ``race_net`` where one is shipped), ``"linear"`` (``weights``, float64[5, NF]) or
    ``"nohit"``, and a description for the reports."""

    contact: str
    net: NetEvaluator | None = None
    race_net: NetEvaluator | None = None
    weights: np.ndarray | None = None
    description: str = ""
    ply: int = 0
    prune: int = 8
    margin: float = 0.25

    def compiled_args(self) -> dict[str, Any]:
        """The keyword arguments of :func:`tawla.native.rollout_trials` for this evaluator
        (the race tables included)."""
        one, _, _, two = eval_tables()
        args: dict[str, Any] = {"race_one": one, "race_two": two, "ply": self.ply, "prune": self.prune,
                                "margin": self.margin}
        if self.contact == "net":
            assert self.net is not None
            args.update(w1=self.net.w1, b1=self.net.b1, w2=self.net.w2, b2=self.net.b2,
                        race_net=None if self.race_net is None else self.race_net.weights)
        elif self.contact == "linear":
            args["W"] = np.ascontiguousarray(self.weights, dtype=np.float64)
        return args


def trial_evaluator(r: Ruleset, level: str) -> TrialEvaluator:
    """The evaluator of ``level`` for ruleset ``r``.

    Raises
    ------
    tawla.errors.InvalidArgument
        An unknown level.
    tawla.errors.ConfigError
        ``net0`` for a ruleset without a shipped network, or ``ply0`` with a contact model the
        trial loop does not have (one set by :func:`tawla.evaluation.set_contact_model`).
    """
    if level in ("net0", "net1"):
        net = shipped_net(r)
        if net is None:
            raise ConfigError(f"no network is shipped for {r.name}: roll out with --level ply0")
        race = race_network(net, r)
        if level == "net0":
            return TrialEvaluator("net", net=net, race_net=race,
                                  description=f"net0 (the shipped {r.name} network, 0 ply)")
        limit, margin = Bot.PRUNE[0]
        return TrialEvaluator("net", net=net, race_net=race, description=f"net1 (the shipped {r.name} network, 1 ply)",
                              ply=1, prune=limit, margin=margin * max(1.0, r.max_points / 3.0))
    if level == "ply0":
        model = CONTACT_MODELS[r.name]
        if isinstance(model, LinearContact):
            return TrialEvaluator("linear", weights=model.weights, description="ply0 (the linear contact model, 0 ply)")
        if model is nohit_contact:
            return TrialEvaluator("nohit", description="ply0 (the no-hit contact model, 0 ply)")
        raise ConfigError(f"the contact model of {r.name} ({type(model).__name__}) cannot play rollout trials")
    raise InvalidArgument(f"unknown level {level!r}")
