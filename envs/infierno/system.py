"""Infierno's entry in the house (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.infierno import setup
from duelo.envs.infierno.env import InfiernoEnv
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.skirmish import InfiernoSkirmishRuleset
from duelo.envs.infierno.skirmish_env import InfiernoSkirmishEnv
from duelo.envs.infierno.skirmish_setup import MAX_SIDE, SkirmishOptions, load_skirmish_catalog

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
    System(
        id="infierno_skirmish",
        game="Infierno de Cobardes: several fighters a side",
        name="InfiernoSkirmish",
        ruleset=InfiernoSkirmishRuleset,
        env=InfiernoSkirmishEnv,
        options=SkirmishOptions,
        npcs="duelo.envs.infierno.skirmish_npcs:NPCS",
        scenario_ids=lambda: load_skirmish_catalog().skirmishes,
        suite=tuple(
            {"scenario": s}
            for s in ("two_on_two", "three_on_three", "outnumbered", "ambush", "reinforcements")
        ),
        duels=250,  # a fight costs a duel's decisions a fighter: the default run stays < 2 min
        max_side=MAX_SIDE,
    ),
)
