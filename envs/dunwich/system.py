"""Dunwich's entry in the house (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.dunwich import setup
from duelo.envs.dunwich.env import DunwichEnv
from duelo.envs.dunwich.rules import DunwichRuleset

SYSTEMS = (
    System(
        id="dunwich",
        game="Estirpe de Dunwich (D.R.S. melee maneuvers)",
        name="Dunwich",
        ruleset=DunwichRuleset,
        env=DunwichEnv,
        options=setup.DunwichOptions,
        npcs="duelo.envs.dunwich.npcs:NPCS",
        scenario_ids=lambda: setup.load_catalog().scenarios,
        # crossfire is left out: the Hunter escapes, a draw, in every duel of two experts
        suite=tuple({"scenario": s} for s in ("back_alley", "warehouse", "rooftop")),
    ),
)
