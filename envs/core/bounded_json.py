"""JSON from files anyone may have written (results, run states, brain manifests): read
within bounds of size, nesting and number range, every refusal a `ValueError` naming
where the text came from.

Python's own `json.loads` raises `RecursionError` on deep nesting, a bare `ValueError`
past 4,300 digits, `UnicodeDecodeError` on bytes that are not UTF-8, and accepts NaN
and Infinity, none of which names the file or the line.
"""

from __future__ import annotations

import json
import math
from typing import Any

from duelo.envs.core.referee import summary

MAX_DEPTH = 16
"""Nesting a duelo file may use (the deepest, a brain manifest, needs 4)."""
MAX_INT_DIGITS = 40
"""Digits an integer may have: a 128-bit seed has 39."""


def loads(data: bytes | str, where: str, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `data`, or a `ValueError` that starts with `where`."""
    if len(data) > max_bytes:
        raise ValueError(f"{where}: more than the {max_bytes} bytes it may hold")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{where}: not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(
            data, parse_int=_integer, parse_float=_finite, parse_constant=_no_constant
        )
    except RecursionError:
        raise ValueError(f"{where}: nested deeper than {max_depth} levels") from None
    except ValueError as error:
        raise ValueError(f"{where}: not JSON ({summary(str(error))})") from None
    if depth(value, max_depth) > max_depth:
        raise ValueError(f"{where}: nested deeper than {max_depth} levels")
    return value


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep containers nest in `value`, counted no further than one past `limit`
    (iteratively: no recursion to exhaust)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= limit:
                children = item.values() if isinstance(item, dict) else item
                todo += [(child, level + 1) for child in children]
    return deepest


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits, more than {MAX_INT_DIGITS}")
    return int(text)


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{summary(text)} is past a float's range")
    return number


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")
