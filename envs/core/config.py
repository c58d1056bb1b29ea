"""Strict loading of YAML configs into frozen dataclasses.

Config files come from users as often as from us, so every mistake (an unknown
key, a misspelt weapon, a negative HP, a wrong type) is an error that names the
file, the key and the value. YAML is read with `yaml.safe_load` only.
"""

from __future__ import annotations

import dataclasses
import math
import reprlib
import stat
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

import yaml

T = TypeVar("T")


class Staged(Protocol):
    """A scenario: it names the fighters it is played by."""

    @property
    def fighters(self) -> Sequence[str]: ...


S = TypeVar("S", bound=Staged)
W = TypeVar("W")
C = TypeVar("C")


class ConfigError(ValueError):
    """A config file or option is invalid; the message names where and why."""


_SHOWN = reprlib.Repr()  # Python 3.11 takes no keyword arguments here
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 3, 60, 60, 40
_SHOWN.maxdict = _SHOWN.maxlist = _SHOWN.maxtuple = 6


MAX_SHOWN = 120
"""Characters of a value an error message shows."""


def shown(value: Any) -> str:
    """A value for an error message, bounded however large or self-sharing it is (a YAML
    alias bomb stays a short line): reprlib's abridged repr, cut to `MAX_SHOWN`."""
    text = _SHOWN.repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _repeated_key(text: str) -> yaml.Node | None:
    """The first mapping key repeated in a YAML text (`safe_load` would keep its last value
    silently), found on the composed node graph: aliases are not expanded, and each node
    is visited once."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    todo, seen = [root], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in keys:
                        return key
                    keys.add(key.value)
                todo += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
    return None


def packaged_config(relative: str) -> Path:
    """The path of a YAML file shipped under `configs/` (e.g. "infierno/weapons.yaml")."""
    return Path(str(resources.files("duelo.configs").joinpath(relative)))


MAX_INT = 2**63 - 1
"""The largest integer a setting may hold: it fits the batched engine's int64 arrays, and
the ranges a ruleset checks next are all far inside it."""
MAX_CONFIG_BYTES = 1 << 20
"""A config file is a few kB; past a MiB it is refused before YAML parses it (a 20 MB file
took PyYAML over a minute)."""


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """A YAML file whose top level is a mapping of ids to entries: a regular file of at
    most `MAX_CONFIG_BYTES`, read with `yaml.safe_load`."""
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise ConfigError(f"{path}: not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: more than the {MAX_CONFIG_BYTES} bytes a config may hold")
        text = data.decode("utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from error
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    try:
        repeated = _repeated_key(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {error}") from error
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a config") from None
    if repeated is not None:
        line = repeated.start_mark.line + 1
        raise ConfigError(f"{path}: line {line}: the key {shown(repeated.value)} is repeated")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of ids to entries")
    return data


def load_entries(cls: type[T], path: Path) -> dict[str, T]:
    """A YAML file of `id: {fields}` entries as dataclasses, each given its `id`."""
    entries = {}
    for key, entry in read_yaml_mapping(path).items():
        plain = isinstance(key, str) and len(key) <= 60 and key.isprintable()
        where = f"{path}: {key if plain else shown(key)}"
        if not isinstance(key, str):
            raise ConfigError(f"{where}: an id must be a string")
        if entry is not None and not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: expected a mapping of keys, got {shown(entry)}")
        if entry and "id" in entry:
            raise ConfigError(f"{where}: the id is the entry's key; remove its 'id' field")
        entries[key] = build(cls, {"id": key, **(entry or {})}, where)
    return entries


def load_tables(
    catalog: type[T], system: str, files: Mapping[str, str | Path | None]
) -> tuple[T, dict[str, Path]]:
    """A system's catalog: each field of the dataclass `catalog`, a `dict[str, Entry]`,
    is the table of one YAML file (the one `files` gives under the field's name, else
    the packaged `configs/<system>/<field>.yaml`), loaded as `Entry`s; also each table's
    path, for the errors of the system's own cross-checks."""
    hints = typing.get_type_hints(catalog)
    paths = {
        name: Path(files.get(name) or packaged_config(f"{system}/{name}.yaml")) for name in hints
    }
    tables = {name: load_entries(typing.get_args(hints[name])[1], paths[name]) for name in hints}
    return catalog(**tables), paths


def build(cls: type[T], values: Mapping[str, Any], where: str) -> T:
    """Build dataclass `cls` from `values`, checking keys and types.

    `where` prefixes every error (e.g. "configs/infierno/weapons.yaml: revolver").
    Fields without a default are required; unknown keys are errors.
    """
    if not isinstance(values, Mapping):
        raise ConfigError(f"{where}: expected a mapping of keys, got {shown(values)}")
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{where}: {cls!r} is not a dataclass")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {shown(unknown[0])} (known keys: {', '.join(sorted(fields))})"
        )
    kwargs = {}
    for name, field in fields.items():
        if name in values:
            kwargs[name] = _coerce(hints[name], values[name], f"{where}.{name}")
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ConfigError(f"{where}: missing required key {name!r}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"{where}: {error}") from error


def _coerce(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{where}: {shown(value)} is not one of {', '.join(map(repr, args))}")
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(inner, value, where)
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: expected a mapping, got {shown(value)}")
        return dict(value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {shown(value)}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(args[0], item, f"{where}[{i}]") for i, item in enumerate(value))
        if len(value) != len(args):
            raise ConfigError(f"{where}: expected {len(args)} items, got {shown(value)}")
        return tuple(
            _coerce(a, item, f"{where}[{i}]")
            for i, (a, item) in enumerate(zip(args, value, strict=True))
        )
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError:
            known = ", ".join(repr(member.value) for member in hint)
            raise ConfigError(f"{where}: {shown(value)} is not one of {known}") from None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return build(hint, value, where)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {shown(value)}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {shown(value)}")
        if not -MAX_INT <= value <= MAX_INT:
            raise ConfigError(f"{where}: {shown(value)} is past the range of any setting")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: expected a number, got {shown(value)}")
        try:
            number = float(value)
        except OverflowError:  # an int past 1.8e308
            number = math.inf
        if not math.isfinite(number):
            raise ConfigError(f"{where}: {shown(value)} is not a finite number")
        return number
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {shown(value)}")
        return value
    raise TypeError(f"{where}: unsupported field type {hint!r}")  # a bug in a dataclass, not input


def options_of(cls: type[T], values: T | Mapping[str, Any] | None, what: str) -> T:
    """A ruleset's options, given whole or as a dict of their fields (e.g. gymnasium.make
    kwargs, a config's `options`), checked like a config file; `what` prefixes errors."""
    if isinstance(values, cls):
        return values
    return build(cls, typing.cast(Mapping[str, Any] | None, values) or {}, what)


def entry_of(value: Any, cls: type[T], lookup: Callable[[str], T], what: str) -> T:
    """A config entry given by id (looked up) or as the dataclass itself."""
    if isinstance(value, str):
        return lookup(value)
    if isinstance(value, cls):
        return value
    raise ConfigError(f"{what} must be an id or a {cls.__name__}, not {shown(value)}")


def fight_of(
    scenario: Any,
    fighters: Any,
    scenarios: tuple[type[S], Callable[[str], S]],
    characters: tuple[type[T], Callable[[str], T]],
) -> tuple[S, tuple[T, T]]:
    """What a ruleset is built for: the scenario (an id or the entry; `scenarios` is its
    class and the catalog's lookup), and two fighters, the scenario's own unless given."""
    chosen = entry_of(scenario, *scenarios, "scenario")
    names = chosen.fighters if fighters is None else fighters
    return chosen, pair_of(names, *characters, "fighters")


def pair_of(value: Any, cls: type[T], lookup: Callable[[str], T], what: str) -> tuple[T, T]:
    """Two config entries (the two sides of a duel), each given by id or as the dataclass."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ConfigError(f"{what} must be two ids or {cls.__name__}s, not {shown(value)}")
    first, second = (entry_of(v, cls, lookup, f"{what}[{i}]") for i, v in enumerate(value))
    return first, second


def party_of(
    value: Any, count: int, cls: type[T], lookup: Callable[[str], T], order: str
) -> tuple[T, ...]:
    """The `count` fighters of a skirmish, each given by id or as the dataclass, in the
    scenario's seat `order` (said in the error)."""
    if not isinstance(value, tuple | list) or len(value) != count:
        raise ConfigError(
            f"fighters must name the scenario's {count} fighters, {order}, not {shown(value)}"
        )
    return tuple(entry_of(v, cls, lookup, f"fighters[{i}]") for i, v in enumerate(value))


MAX_NAME = 60
"""Characters of a name shown in the narration."""


def require_printable(name: str) -> None:
    """A name the narration prints: printable and short, so that no control character or
    newline in a config can forge a line of a duel's narration."""
    if not (name.isprintable() and 0 < len(name) <= MAX_NAME):
        raise ValueError(f"name {shown(name)} must be 1..{MAX_NAME} printable characters")


def require(condition: bool, where: str, message: str) -> None:
    """Raise a ConfigError at `where` unless `condition` holds."""
    if not condition:
        raise ConfigError(f"{where}: {message}")


def unknown(kind: str, name: Any, table: Mapping[str, Any]) -> str:
    """The message for an id that `table` lacks, listing the ids it has."""
    return f"unknown {kind} {shown(name)} (known: {', '.join(sorted(table))})"


def known(table: Mapping[str, T], name: str, kind: str) -> T:
    """`table[name]`, or a ConfigError that lists the ids `table` has."""
    if name not in table:
        raise ConfigError(unknown(kind, name, table))
    return table[name]


def require_known(name: str, table: Mapping[str, Any], where: str, kind: str) -> None:
    """A cross-reference between config files: `name` must be an id of `table`."""
    require(name in table, where, unknown(kind, name, table))


def require_fighters(
    scenarios: Mapping[str, Any], characters: Mapping[str, Any], path: Path
) -> None:
    """Every scenario of a scenarios file names known characters as its fighters."""
    for key, scenario in scenarios.items():
        for i, fighter in enumerate(scenario.fighters):
            require_known(fighter, characters, f"{path}: {key}.fighters[{i}]", "character")


@dataclasses.dataclass(frozen=True)
class SkirmishCatalog(Generic[W, C, S]):
    """A system's weapons and characters (its duel's) and its fights of several a side."""

    weapons: dict[str, W]
    characters: dict[str, C]
    skirmishes: dict[str, S]

    def skirmish(self, name: str) -> S:
        return known(self.skirmishes, name, "skirmish")

    def character(self, name: str) -> C:
        return known(self.characters, name, "character")


def load_skirmishes(
    weapons: dict[str, W], characters: dict[str, C], scenario: type[S], path: Path
) -> SkirmishCatalog[W, C, S]:
    """The skirmishes file at `path`, each of its fighters a known character."""
    table = load_entries(scenario, path)
    require_fighters(table, characters, path)
    return SkirmishCatalog(weapons, characters, table)
