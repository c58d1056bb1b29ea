"""Infierno's entry in the house (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.infierno import setup
from duelo.envs.infierno.env import InfiernoEnv
from duelo.envs.infierno.rules import InfiernoRuleset

SYSTEMS = (
    System(
        id="infierno",
        game="Infierno de Cobardes (d20 Wild West)",
        name="Infierno",
        ruleset=InfiernoRuleset,
        env=InfiernoEnv,
        options=setup.InfiernoOptions,
        npcs="duelo.envs.infierno.npcs:NPCS",
        scenario_ids=lambda: setup.load_catalog().scenarios,
        # ambush left out: two experts' side A scores 0.758
        suite=({"scenario": "formal_duel"}, {"scenario": "brawl"}),
        fast="duelo.envs.infierno.fast",
    ),
)
