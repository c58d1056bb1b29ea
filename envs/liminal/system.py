"""Liminal's entries in the house, the duel and the mob (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.liminal import setup
from duelo.envs.liminal.env import LiminalEnv, LiminalMobEnv
from duelo.envs.liminal.mob import LiminalMobRuleset, load_mob_scenarios
from duelo.envs.liminal.rules import LiminalRuleset

SYSTEMS = (
    System(
        id="liminal",
        game="Liminal (2d6 + skill, opposed)",
        name="Liminal",
        ruleset=LiminalRuleset,
        env=LiminalEnv,
        options=setup.LiminalOptions,
        npcs="duelo.envs.liminal.npcs:NPCS",
        scenario_ids=lambda: setup.load_catalog().scenarios,
        # long_shot left out: two experts' side A scores 0.889
        suite=({"scenario": "standoff"}, {"scenario": "brawl"}, {"scenario": "street"}),
    ),
    System(
        id="liminal_mob",
        game="Liminal: a hero against a mob (turba)",
        name="LiminalMob",
        ruleset=LiminalMobRuleset,
        env=LiminalMobEnv,
        options=setup.LiminalOptions,
        npcs="duelo.envs.liminal.npcs:NPCS",  # the same NPCs play hero or mob
        scenario_ids=load_mob_scenarios,
        suite=({"scenario": "street_gang"}, {"scenario": "back_alley"}),
    ),
)
