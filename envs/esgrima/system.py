"""Esgrima's entries in the house: the skirmish, the card duel and fights of several a
side (found by `duelo.envs.systems`)."""

from duelo.envs.core.system import System
from duelo.envs.esgrima import setup
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.env import EsgrimaDuelEnv, EsgrimaEnv
from duelo.envs.esgrima.group import EsgrimaGroupRuleset
from duelo.envs.esgrima.group_env import EsgrimaSkirmishEnv
from duelo.envs.esgrima.group_setup import MAX_SIDE, GroupOptions, load_group_catalog
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset

SYSTEMS = (
    System(
        id="esgrima",
        game="unnamed 2d6 swashbuckling system: skirmish",
        name="Esgrima",
        ruleset=EsgrimaSkirmishRuleset,
        env=EsgrimaEnv,
        options=setup.EsgrimaOptions,
        npcs="duelo.envs.esgrima.npcs:SKIRMISH_NPCS",
        scenario_ids=lambda: setup.load_catalog().layouts,
        # open_square left out: two experts' side A scores 0.861
    ),
    System(
        id="esgrima_duel",
        game="unnamed 2d6 swashbuckling system: fencing duel with cards",
        name="EsgrimaDuel",
        ruleset=EsgrimaDuelRuleset,
        env=EsgrimaDuelEnv,
        options=setup.EsgrimaOptions,
        npcs="duelo.envs.esgrima.npcs:DUEL_NPCS",
        # the seed's own duel (§8.1); the default id plays the symmetric variant
        named_variants=(("EsgrimaDuelFaithful", {"duel_variant": "faithful"}),),
        # the faithful duel's apprentice against the deck: play decides (random 0.010,
        # the expert 0.732, the solved play 0.779)
        suite=(
            {"options": {"duel_variant": "symmetric"}},
            {"options": {"duel_variant": "faithful"}},
        ),
        fast="duelo.envs.esgrima.fast_duel",
        solved="duelo.envs.esgrima.card_models",  # hidden cards: solved by their own models
    ),
    System(
        id="esgrima_skirmish",
        game="unnamed 2d6 swashbuckling system: several fighters a side",
        name="EsgrimaSkirmish",
        ruleset=EsgrimaGroupRuleset,
        env=EsgrimaSkirmishEnv,
        options=GroupOptions,
        npcs="duelo.envs.esgrima.group_npcs:NPCS",
        scenario_ids=lambda: load_group_catalog().skirmishes,
        suite=tuple(
            {"scenario": s} for s in ("two_on_two", "three_on_three", "outnumbered", "ambush")
        ),
        duels=100,  # its fights run longest of the skirmishes: the default run stays < 2 min
        max_side=MAX_SIDE,
    ),
)
