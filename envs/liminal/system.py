"""Liminal's entries in the house: the duel, the mob and the skirmish (`duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.liminal import setup
from duelo.envs.liminal.env import LiminalEnv, LiminalMobEnv
from duelo.envs.liminal.mob import LiminalMobRuleset, load_mob_scenarios
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.skirmish import LiminalSkirmishRuleset
from duelo.envs.liminal.skirmish_env import LiminalSkirmishEnv
from duelo.envs.liminal.skirmish_setup import MAX_SIDE, SkirmishOptions, load_skirmish_catalog

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
        fast="duelo.envs.liminal.fast",
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
        fast="duelo.envs.liminal.fast",  # the duel's kernels, with the mob's rules
    ),
    System(
        id="liminal_skirmish",
        game="Liminal: several fighters a side, and mobs split among heroes",
        name="LiminalSkirmish",
        ruleset=LiminalSkirmishRuleset,
        env=LiminalSkirmishEnv,
        options=SkirmishOptions,
        npcs="duelo.envs.liminal.skirmish_npcs:NPCS",
        scenario_ids=lambda: load_skirmish_catalog().skirmishes,
        suite=tuple(
            {"scenario": s}
            for s in ("two_on_two", "three_on_three", "outnumbered", "ambush", "mob")
        ),
        duels=100,  # its fights run twice an Infierno skirmish's: the default run stays < 2 min
        max_side=MAX_SIDE,
    ),
)
