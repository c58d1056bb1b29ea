"""Vampiro's entries in the house: the duel and fights of several a side (found by
`duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.vampiro import setup
from duelo.envs.vampiro.env import VampiroEnv
from duelo.envs.vampiro.group import VampiroGroupRuleset
from duelo.envs.vampiro.group_env import VampiroSkirmishEnv
from duelo.envs.vampiro.group_setup import MAX_SIDE, GroupOptions, load_group_catalog
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
        fast="duelo.envs.vampiro.fast",
    ),
    System(
        id="vampiro_skirmish",
        game="Vampiro: La Mascarada: several fighters a side",
        name="VampiroSkirmish",
        ruleset=VampiroGroupRuleset,
        env=VampiroSkirmishEnv,
        options=GroupOptions,
        npcs="duelo.envs.vampiro.group_npcs:NPCS",
        scenario_ids=lambda: load_group_catalog().skirmishes,
        suite=tuple(
            {"scenario": s} for s in ("two_on_two", "three_on_three", "outnumbered", "crossfire")
        ),
        # a fight costs about 83 decisions (a duel's ~30 for each of four fighters, and the
        # declarations): 50 a pairing keep the default run of every system under 2 min
        duels=50,
        max_side=MAX_SIDE,
    ),
)
