"""The combat systems duelo ships: id, game, env id, ruleset, env class and scenarios.

The env layer's own table, so that agents (brains check their manifest against
it), the registration and the command line all read one list. An env id's
version is its ruleset's `version`; a system's scenarios are read from its
configs, the default first.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from duelo.envs.core.config import ConfigError
from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.dunwich import setup as dunwich_setup
from duelo.envs.dunwich.env import DunwichEnv
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.esgrima import setup as esgrima_setup
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.env import EsgrimaDuelEnv, EsgrimaEnv
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset
from duelo.envs.infierno import setup as infierno_setup
from duelo.envs.infierno.env import InfiernoEnv
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.liminal import setup as liminal_setup
from duelo.envs.liminal.env import LiminalEnv, LiminalMobEnv
from duelo.envs.liminal.mob import LiminalMobRuleset, load_mob_scenarios
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.vampiro import setup as vampiro_setup
from duelo.envs.vampiro.env import VampiroEnv
from duelo.envs.vampiro.rules import VampiroRuleset

SUITE_BAND = (0.25, 0.75)
"""Side A's score between two experts that a setup of a suite keeps within: outside it,
the seat and the stat blocks decide most duels whoever plays."""
SUITE_DECISIVE = 0.5
"""The share of duels between two experts that a setup of a suite sees won, at least:
below it, the setup ends most duels in a draw whoever plays (Dunwich's crossfire, where
the Hunter escapes in every one), and every pairing would score near 0.5 there."""
CATALOG_VARIANT = "catalog"
"""The ruleset argument that is not a variant: the configs it reads them from."""


@dataclass(frozen=True)
class System:
    id: str
    game: str
    name: str
    """The env id's name: `duelo/<name>-v<ruleset.version>`."""
    ruleset: Any
    """The ruleset class; its keyword arguments are the variants (scenario, options...)."""
    env: type[DuelEnv]
    """The env class: the ruleset's variants plus `DuelEnv`'s arguments, with its docs."""
    options: type
    """The dataclass of its rules options (the `options` variant): GM rulings and caps."""
    scenario_ids: Callable[[], Iterable[str]] | None = None
    """Reads the ids of the `scenario` variant from the configs (None: no such variant)."""
    named_variants: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Variants registered under an id of their own: (name, options they fix)."""
    suite: tuple[dict[str, Any], ...] = ()
    """The setups the default tournament spreads every pairing's games over: each one
    where play decides, two experts' side A scoring within `SUITE_BAND` and at least
    `SUITE_DECISIVE` of their duels won (measured over 1,000 duels; a setup left out says
    why). Empty: the default scenario alone."""

    @property
    def env_id(self) -> str:
        return f"duelo/{self.name}-v{self.ruleset.version}"

    @property
    def env_ids(self) -> dict[str, dict[str, Any]]:
        """Every env id of the system, with the options each fixes (none for `env_id`)."""
        version = self.ruleset.version
        named = {f"duelo/{name}-v{version}": options for name, options in self.named_variants}
        return {self.env_id: {}, **named}

    @property
    def scenarios(self) -> tuple[str, ...]:
        """The `scenario` variant's values as the configs list them, the default first."""
        return _scenarios(self.scenario_ids) if self.scenario_ids else ()

    def option_lines(self) -> list[str]:
        """Each option as `name = default (choices)`, for `duelo systems`."""
        hints = typing.get_type_hints(self.options)
        lines = []
        for field in dataclasses.fields(self.options):
            choices = typing.get_args(hints[field.name])
            kind = " | ".join(map(str, choices)) if choices else hints[field.name].__name__
            lines.append(f"{field.name} = {field.default!s} ({kind})")
        return lines

    @property
    def variants(self) -> tuple[str, ...]:
        """The keyword arguments that pick a variant of this system's duels."""
        parameters = inspect.signature(self.ruleset).parameters
        return tuple(name for name in parameters if name != CATALOG_VARIANT)

    def check_variant(self, variant: Mapping[str, Any], where: str) -> None:
        """Refuse, naming `where` and the key, a variant this system's ruleset would not
        take: an unknown keyword, or a value the ruleset refuses (it is built once here,
        so a bad option fails when it is read, not when the first duel is played)."""
        unknown = sorted(set(variant) - set(self.variants))
        if unknown:
            raise ConfigError(
                f"{where}: {unknown[0]!r} is not a variant of {self.id} "
                f"(known: {', '.join(self.variants)})"
            )
        try:
            self.ruleset(**variant)
        except (ValueError, TypeError) as error:
            raise ConfigError(f"{where}: {error}") from error


@cache
def _scenarios(read: Callable[[], Iterable[str]]) -> tuple[str, ...]:
    return tuple(read())


SYSTEMS = {
    "infierno": System(
        id="infierno",
        game="Infierno de Cobardes (d20 Wild West)",
        name="Infierno",
        ruleset=InfiernoRuleset,
        env=InfiernoEnv,
        options=infierno_setup.InfiernoOptions,
        scenario_ids=lambda: infierno_setup.load_catalog().scenarios,
        # ambush left out: two experts' side A scores 0.758
        suite=({"scenario": "formal_duel"}, {"scenario": "brawl"}),
    ),
    "liminal": System(
        id="liminal",
        game="Liminal (2d6 + skill, opposed)",
        name="Liminal",
        ruleset=LiminalRuleset,
        env=LiminalEnv,
        options=liminal_setup.LiminalOptions,
        scenario_ids=lambda: liminal_setup.load_catalog().scenarios,
        # long_shot left out: two experts' side A scores 0.889
        suite=({"scenario": "standoff"}, {"scenario": "brawl"}, {"scenario": "street"}),
    ),
    "liminal_mob": System(
        id="liminal_mob",
        game="Liminal: a hero against a mob (turba)",
        name="LiminalMob",
        ruleset=LiminalMobRuleset,
        env=LiminalMobEnv,
        options=liminal_setup.LiminalOptions,
        scenario_ids=load_mob_scenarios,
        suite=({"scenario": "street_gang"}, {"scenario": "back_alley"}),
    ),
    "esgrima": System(
        id="esgrima",
        game="unnamed 2d6 swashbuckling system: skirmish",
        name="Esgrima",
        ruleset=EsgrimaSkirmishRuleset,
        env=EsgrimaEnv,
        options=esgrima_setup.EsgrimaOptions,
        scenario_ids=lambda: esgrima_setup.load_catalog().layouts,
        # open_square left out: two experts' side A scores 0.861
    ),
    "esgrima_duel": System(
        id="esgrima_duel",
        game="unnamed 2d6 swashbuckling system: fencing duel with cards",
        name="EsgrimaDuel",
        ruleset=EsgrimaDuelRuleset,
        env=EsgrimaDuelEnv,
        options=esgrima_setup.EsgrimaOptions,
        # the seed's own duel (§8.1); the default id plays the symmetric variant
        named_variants=(("EsgrimaDuelFaithful", {"duel_variant": "faithful"}),),
        # the faithful duel's apprentice against the deck: play decides (random 0.010,
        # the expert 0.732, the solved play 0.779)
        suite=(
            {"options": {"duel_variant": "symmetric"}},
            {"options": {"duel_variant": "faithful"}},
        ),
    ),
    "dunwich": System(
        id="dunwich",
        game="Estirpe de Dunwich (D.R.S. melee maneuvers)",
        name="Dunwich",
        ruleset=DunwichRuleset,
        env=DunwichEnv,
        options=dunwich_setup.DunwichOptions,
        scenario_ids=lambda: dunwich_setup.load_catalog().scenarios,
        # crossfire is left out: the Hunter escapes, a draw, in every duel of two experts
        suite=tuple({"scenario": s} for s in ("back_alley", "warehouse", "rooftop")),
    ),
    "vampiro": System(
        id="vampiro",
        game="Vampiro: La Mascarada (Storyteller d10 pools)",
        name="Vampiro",
        ruleset=VampiroRuleset,
        env=VampiroEnv,
        options=vampiro_setup.VampiroOptions,
        scenario_ids=lambda: vampiro_setup.load_catalog().scenarios,
        # stakeout left out: two experts' side A scores 0.989
        suite=({"scenario": "alley"}, {"scenario": "elysium"}),
    ),
}


def system(name: str) -> System:
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return SYSTEMS[name]
