"""JSON read strictly, for files a user hands fitsub (`fitsub apply`'s edits): one meaning or
a one-line `InputError`.

Python's `json` reads ``NaN`` and ``Infinity`` (not JSON), keeps the last of two equal keys
without a word, and raises `RecursionError` on an array nested 100,000 deep. `loads` refuses
all three. The field readers check a value's type and range: a bool is not a number (``true``
is not 1), a whole number is not a string (``"42"`` is not 42), a float is finite.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fitsub.errors import InputError


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


MAX_DIGITS = 30  # a whole number longer than this is no index, count or limit


def _int(digits: str) -> int:
    """A JSON integer, refused past `MAX_DIGITS` digits (Python's own message for 5,000 digits
    speaks of `sys.set_int_max_str_digits`)."""
    n = len(digits.lstrip("-"))
    if n > MAX_DIGITS:
        raise ValueError(f"a number of {n:,} digits is out of range")
    return int(digits)


def loads(text: str, path: Path | None, what: str) -> Any:
    """The value of JSON `text`; `InputError` naming `what` for anything `json` would read
    loosely or not at all (module docstring)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_int=_int)
    except json.JSONDecodeError as err:
        raise InputError(
            path, f"{what} is not valid JSON (truncated?): {err.msg}", line=err.lineno
        ) from None
    except RecursionError:
        raise InputError(path, f"{what} nests arrays or objects too deep to be read") from None
    except ValueError as err:
        raise InputError(path, f"{what}: {err}") from None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {int: "a whole number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), "an object"
    )


def whole(path: Path | None, where: str, value: Any, *, least: int, most: int) -> int:
    """`value` when it is a whole number (not a bool, not a string) from `least` to `most`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, f"{where} must be a whole number, got {_kind(value)}")
    if not least <= value <= most:
        raise InputError(path, f"{where} must be from {least:,} to {most:,}, got {value:,}")
    return value


def number(path: Path | None, where: str, value: Any, most: float) -> float:
    """`value` when it is a finite number above 0 and at most `most` (not a bool or string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, f"{where} must be a number, got {_kind(value)}")
    if not (math.isfinite(value) and 0 < value <= most):
        raise InputError(path, f"{where} must be above 0 and at most {most:,g}, got {value!r}")
    return float(value)


def text(path: Path | None, where: str, value: Any, optional: bool = False) -> str | None:
    """`value` when it is a string (or null, when `optional`)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InputError(path, f"{where} must be a string, got {_kind(value)}")
    return value


def flag(path: Path | None, where: str, value: Any) -> bool:
    """`value` when it is true or false."""
    if not isinstance(value, bool):
        raise InputError(path, f"{where} must be true or false, got {_kind(value)}")
    return value


def table(path: Path | None, where: str, value: Any) -> dict[str, Any]:
    """`value` when it is an object."""
    if not isinstance(value, dict):
        raise InputError(path, f"{where} must be an object, got {_kind(value)}")
    return value
