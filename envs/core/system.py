"""A combat system's entry in the house: its ids, its parts and its tournament suite.

Each system's package declares its entries in its own `system` module, and
`duelo.envs.systems` finds them from one list of packages, so a new system is a
folder and a line. Parts above the env layer (its NPCs, its batched engine, its
solved models) are named by import path, not imported: the env layer never
reaches up into `agents/` or `evaluation/`, and a part is loaded only where used
(`load_part`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from duelo.envs.core.config import ConfigError

SUITE_BAND = (0.25, 0.75)
"""Side A's score between two experts that a setup of a suite keeps within: outside it,
the seat and the stat blocks decide most duels whoever plays."""
SUITE_DECISIVE = 0.5
"""The share of duels between two experts that a setup of a suite sees won, at least:
below it, the setup ends most duels in a draw whoever plays (a Hunter who escapes in
every duel), and every pairing would score near 0.5 there."""
CATALOG_VARIANT = "catalog"
"""The ruleset argument that is not a variant: the configs it reads them from."""


@dataclass(frozen=True)
class System:
    """One system as the house sees it: what to register, list, play and solve."""

    id: str
    game: str
    name: str
    """The env id's name: `duelo/<name>-v<ruleset.version>`."""
    ruleset: Any
    """The ruleset class; its keyword arguments are the variants (scenario, options...)."""
    env: type
    """The env class: the ruleset's variants plus `DuelEnv`'s arguments, with its docs."""
    options: type
    """The dataclass of its rules options (the `options` variant): GM rulings and caps."""
    npcs: str
    """`module:attribute` of its scripted NPCs, name -> factory (`duelo.agents.registry`)."""
    scenario_ids: Callable[[], Iterable[str]] | None = None
    """Reads the ids of the `scenario` variant from the configs (None: no such variant)."""
    named_variants: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Variants registered under an id of their own: (name, options they fix)."""
    suite: tuple[dict[str, Any], ...] = ()
    """The setups the default tournament spreads every pairing's games over: each one
    where play decides, two experts' side A scoring within `SUITE_BAND` and at least
    `SUITE_DECISIVE` of their duels won (measured over 1,000 duels; a setup left out says
    why). Empty: the default scenario alone."""
    max_side: int = 1
    """The most fighters a side its observation and actions have slots for (1: a duel);
    a brain's manifest says it."""
    duels: int = 2000
    """The default tournament's duels per pairing, seats swapped (`duelo tournament`
    without --duels): a fight of several a side costs several duels' decisions, so a
    skirmish plays fewer and the default tournament stays within two minutes."""
    fast: str | None = None
    """The module of its batched engine (`duelo.envs.fast`, extra `fast`); None: none."""
    solved: str | None = None
    """The module of solved models for a duel the exact solver cannot walk (hidden
    information): it offers `optimal_policy(ruleset)`, `print_solve(name, ruleset,
    variant, policies, check, out)` (policies: name -> built policy) and
    `print_exploit(policy_name, policy, ruleset, duels, out) -> bool` (False: not this
    variant, use the generic path). None: the generic solver (`duelo.evaluation.solver`)
    serves its duels."""

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

    def option_lines(self, choices: bool = True) -> list[str]:
        """Each option as `name = default (choices)`, for `duelo systems` and the docs;
        without `choices`, as `name=default` (`duelo systems`' short form)."""
        if not choices:
            return [f"{f.name}={f.default!s}" for f in dataclasses.fields(self.options)]
        hints = typing.get_type_hints(self.options)
        lines = []
        for field in dataclasses.fields(self.options):
            allowed = typing.get_args(hints[field.name])
            kind = " | ".join(map(str, allowed)) if allowed else hints[field.name].__name__
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


def load_part(path: str) -> Any:
    """What `module` or `module:attribute` names, imported now."""
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module
