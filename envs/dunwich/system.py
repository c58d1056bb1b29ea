"""Dunwich's entries in the house: the duel and fights of several a side (found by
`duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.dunwich import setup
from duelo.envs.dunwich.env import DunwichEnv
from duelo.envs.dunwich.group import DunwichGroupRuleset
from duelo.envs.dunwich.group_env import DunwichSkirmishEnv
from duelo.envs.dunwich.group_setup import MAX_SIDE, GroupOptions, load_group_catalog
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
        fast="duelo.envs.dunwich.fast",
    ),
    System(
        id="dunwich_skirmish",
        game="Estirpe de Dunwich: several fighters a side",
        name="DunwichSkirmish",
        ruleset=DunwichGroupRuleset,
        env=DunwichSkirmishEnv,
        options=GroupOptions,
        npcs="duelo.envs.dunwich.group_npcs:NPCS",
        scenario_ids=lambda: load_group_catalog().skirmishes,
        suite=tuple(
            {"scenario": s} for s in ("three_on_three", "two_on_two", "outnumbered", "crossfire")
        ),
        duels=100,  # a fight costs a duel's decisions a fighter: the default run stays < 2 min
        max_side=MAX_SIDE,
    ),
)
