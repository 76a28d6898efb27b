"""Message catalogues of the interface (English, Persian, Japanese) and the helpers that read them.

Every text a player sees — interface strings, Leaders piece names and abilities, Hidden Leaders card names,
marker and ability texts, leaders, factions, zones and decision prompts — is one key in each catalogue
(``en.json``, ``fa.json``, ``ja.json`` beside this file). Placeholders use ``{name}`` syntax.
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "fa", "ja")
DEFAULT_LANGUAGE = "en"
RTL_LANGUAGES: frozenset[str] = frozenset({"fa"})

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "UnknownLanguageError",
    "UnknownMessageError",
    "catalog",
    "is_rtl",
    "negotiate",
    "number",
    "placeholders",
    "t",
]


class UnknownLanguageError(ValueError):
    """A language code that has no catalogue."""


class UnknownMessageError(ValueError):
    """A message key that the catalogue does not define."""


def _check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise UnknownLanguageError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return lang


@cache
def _load(lang: str) -> dict[str, str]:
    text = resources.files(__package__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    return json.loads(text)


def catalog(lang: str) -> dict[str, str]:
    """The whole catalogue of ``lang`` (a copy: callers may not change the shared one)."""
    return dict(_load(_check_language(lang)))


def t(lang: str, key: str, **kw: Any) -> str:
    """The message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``kw``."""
    messages = _load(_check_language(lang))
    try:
        text = messages[key]
    except KeyError:
        raise UnknownMessageError(f"no message {key!r} in the {lang!r} catalogue") from None
    return text.format_map(kw) if kw else text


# Digits and separators of the languages that do not write Latin ones (as Intl.NumberFormat in the pages).
_DIGITS = {"fa": str.maketrans("0123456789.,", "۰۱۲۳۴۵۶۷۸۹٫٬")}


def number(lang: str, n: float) -> str:
    """``n`` written in ``lang``: Persian digits and separators in fa; thousands grouped from 5 digits on."""
    text = f"{n:,}" if abs(n) >= 10_000 else str(n)
    return text.translate(_DIGITS.get(_check_language(lang), {}))


def placeholders(text: str) -> frozenset[str]:
    """The names of the ``{placeholders}`` used in ``text``."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


_TAG = re.compile(r"^\s*([A-Za-z]{2,8})(?:[-_][A-Za-z0-9]{1,8})*\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$")


def negotiate(accept_language: str | None) -> str:
    """Pick ``"en"``, ``"fa"`` or ``"ja"`` from an HTTP ``Accept-Language`` header (q-values honoured).

    Unknown or malformed entries are ignored; with nothing usable the answer is English.
    """
    best, best_q = DEFAULT_LANGUAGE, -1.0
    for position, part in enumerate((accept_language or "").split(",")):
        match = _TAG.match(part)
        if not match:
            continue
        primary = match.group(1).lower()
        try:
            q = float(match.group(2)) if match.group(2) is not None else 1.0
        except ValueError:
            continue
        # Earlier entries win ties: subtract a tiny position penalty.
        score = q - position * 1e-6
        if primary in LANGUAGES and q > 0 and score > best_q:
            best, best_q = primary, score
    return best


def is_rtl(lang: str) -> bool:
    """Whether ``lang`` is written right to left (Persian)."""
    return _check_language(lang) in RTL_LANGUAGES
