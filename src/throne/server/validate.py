"""Integer bounds for everything that arrives from outside: ids, plies, seats, offsets and option values.

Every integer the store keeps fits a signed 64-bit column, and its ids a 32-bit one (PostgreSQL's `integer`
keys), so a number outside those ranges can never name anything; it is refused with a precise 4xx before it
reaches the database or an engine.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastapi import Path
from pydantic import Field

INT63_MAX = 2**63 - 1
INT63_MIN = -(2**63)
_DIGITS_MAX = 20  # any longer decimal literal is out of range; it is never converted (CPython caps at 4300)
OUT_OF_RANGE = 2**64  # what an over-long literal parses to: out of range, cheap, and refused downstream

ID_MAX = 2**31 - 1  # ids are 32-bit keys on PostgreSQL (SQLite's are 64-bit): no id is larger
GameId = Annotated[int, Path(ge=1, le=ID_MAX, description="a game id")]
UserId = Annotated[int, Path(ge=1, le=ID_MAX, description="a user id")]
Ply = Annotated[int, Field(ge=0, le=INT63_MAX)]
SeatNo = Annotated[int, Field(ge=0, le=INT63_MAX)]


def in_range(value: int) -> bool:
    return INT63_MIN <= value <= INT63_MAX


def _parse_int(literal: str) -> int:
    return int(literal) if len(literal) <= _DIGITS_MAX else OUT_OF_RANGE


_DECODER = json.JSONDecoder(parse_int=_parse_int)  # one for every message: json.loads(text, **kw) builds one


class LoneSurrogate(ValueError):
    """A JSON string escape names half of a surrogate pair (`"\\ud800"`): valid JSON, but no Unicode text,
    so nothing could encode it again (not an answer quoting it, not a hash of it)."""


def loads(text: str) -> Any:
    """json.loads whose integers are never huge to build (an over-long literal becomes OUT_OF_RANGE) and whose
    strings are all Unicode text (else LoneSurrogate)."""
    value = _DECODER.decode(text)
    if "\\u" in text and _has_lone_surrogate(value):  # only an escape can make one
        raise LoneSurrogate("a string escape names a lone surrogate")
    return value


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def first_bad_int(value: Any, depth: int = 0) -> int | None:
    """The first integer outside the 63-bit range anywhere in a JSON value (None when there is none)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if in_range(value) else value
    if depth > 32:
        return None
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        bad = first_bad_int(item, depth + 1)
        if bad is not None:
            return bad
    return None
