"""Strict loading of YAML configs into frozen dataclasses.

Config files come from users as often as from us, so every mistake (an unknown
key, a misspelt weapon, a negative HP, a wrong type) is an error that names the
file, the key and the value. YAML is read with `yaml.safe_load` only.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

T = TypeVar("T")


class ConfigError(ValueError):
    """A config file or option is invalid; the message names where and why."""


def packaged_config(relative: str) -> Path:
    """The path of a YAML file shipped under `configs/` (e.g. "infierno/weapons.yaml")."""
    return Path(str(resources.files("duelo.configs").joinpath(relative)))


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """A YAML file whose top level is a mapping of ids to entries."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from error
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of ids to entries")
    return data


def load_entries(cls: type[T], path: Path) -> dict[str, T]:
    """A YAML file of `id: {fields}` entries as dataclasses, each given its `id`."""
    return {
        key: build(cls, {"id": key, **(entry or {})}, f"{path}: {key}")
        for key, entry in read_yaml_mapping(path).items()
    }


def build(cls: type[T], values: Mapping[str, Any], where: str) -> T:
    """Build dataclass `cls` from `values`, checking keys and types.

    `where` prefixes every error (e.g. "configs/infierno/weapons.yaml: revolver").
    Fields without a default are required; unknown keys are errors.
    """
    if not isinstance(values, Mapping):
        raise ConfigError(f"{where}: expected a mapping of keys, got {values!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known keys: {', '.join(sorted(fields))})"
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
            raise ConfigError(f"{where}: {value!r} is not one of {', '.join(map(repr, args))}")
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(inner, value, where)
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        return dict(value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(args[0], item, f"{where}[{i}]") for i, item in enumerate(value))
        if len(value) != len(args):
            raise ConfigError(f"{where}: expected {len(args)} items, got {value!r}")
        return tuple(
            _coerce(a, item, f"{where}[{i}]")
            for i, (a, item) in enumerate(zip(args, value, strict=True))
        )
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError:
            known = ", ".join(repr(member.value) for member in hint)
            raise ConfigError(f"{where}: {value!r} is not one of {known}") from None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return build(hint, value, where)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    raise TypeError(f"{where}: unsupported field type {hint!r}")  # a bug in a dataclass, not input


def require(condition: bool, where: str, message: str) -> None:
    """Raise a ConfigError at `where` unless `condition` holds."""
    if not condition:
        raise ConfigError(f"{where}: {message}")
