"""Vampiro's entry in the house (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.vampiro import setup
from duelo.envs.vampiro.env import VampiroEnv
from duelo.envs.vampiro.rules import VampiroRuleset

SYSTEMS = (
    System(
        id="vampiro",
        game="Vampiro: La Mascarada (Storyteller d10 pools)",
        name="Vampiro",
        ruleset=VampiroRuleset,
        env=VampiroEnv,
        options=setup.VampiroOptions,
        npcs="duelo.envs.vampiro.npcs:NPCS",
        scenario_ids=lambda: setup.load_catalog().scenarios,
        # stakeout left out: two experts' side A scores 0.989
        suite=({"scenario": "alley"}, {"scenario": "elysium"}),
    ),
)
