"""The three catalogues stay complete and consistent: same keys, no empty texts, same placeholders."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from throne import i18n

OTHERS = [lang for lang in i18n.LANGUAGES if lang != "en"]
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def _words(text: str) -> str:
    return _PLACEHOLDER.sub("", text)


def _raw(lang: str) -> dict[str, str]:
    return json.loads(resources.files("throne.i18n").joinpath(f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", OTHERS)
def test_no_missing_keys(lang: str) -> None:
    missing = sorted(set(_raw("en")) - set(_raw(lang)))
    assert missing == [], f"{lang} lacks {missing[:10]}"


@pytest.mark.parametrize("lang", OTHERS)
def test_no_extra_keys(lang: str) -> None:
    extra = sorted(set(_raw(lang)) - set(_raw("en")))
    assert extra == [], f"{lang} has keys English lacks: {extra[:10]}"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_no_empty_or_non_string_texts(lang: str) -> None:
    bad = [key for key, text in _raw(lang).items() if not isinstance(text, str) or not text.strip()]
    assert bad == []


@pytest.mark.parametrize("lang", OTHERS)
def test_placeholders_match_english(lang: str) -> None:
    english, other = _raw("en"), _raw(lang)
    differ = {
        key: (sorted(i18n.placeholders(english[key])), sorted(i18n.placeholders(other[key])))
        for key in english.keys() & other.keys()
        if i18n.placeholders(english[key]) != i18n.placeholders(other[key])
    }
    assert differ == {}


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_are_not_english_copies(lang: str) -> None:
    """Long texts are translated, not copied (short ones such as notation may legitimately match)."""
    english, other = _raw("en"), _raw(lang)
    copied = [key for key, text in english.items() if len(_words(text)) > 12 and other[key] == text]
    assert copied == []


@pytest.mark.parametrize(
    ("lang", "key", "kw", "expected"),
    [
        ("en", "ui.lobby.seat", {"n": 2}, "Seat 2"),
        ("fa", "hl.zone.harbor", {}, "بندرگاه"),
        ("fa", "hl.zone.tavern", {}, "میخانه"),
        ("fa", "hl.zone.wilderness", {}, "صحرا"),
        ("fa", "hl.zone.graveyard", {}, "قبرستان"),
        ("fa", "hl.zone.party", {}, "گروه"),
        ("ja", "leaders.piece.AC.name", {}, "アクロバット"),
        ("ja", "leaders.piece.RG.name", {}, "ロイヤルガード"),
        ("ja", "leaders.piece.NE.name", {}, "ネメシス"),
        ("ja", "ui.replay.step", {"n": 3, "total": 9}, "9手中 3手目"),
    ],
)
def test_t_fills_placeholders_and_uses_players_words(lang: str, key: str, kw: dict, expected: str) -> None:
    assert i18n.t(lang, key, **kw) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("fa-IR,fa;q=0.9,en;q=0.8", "fa"),
        ("ja", "ja"),
        ("de-DE,de;q=0.9", "en"),
        ("de,ja;q=0.5,fa;q=0.7", "fa"),
        ("en;q=0.2, ja;q=0.9", "ja"),
        ("fa;q=0, ja;q=0.1", "ja"),
        ("***, ja", "ja"),
        ("ja;q=abc, fa", "fa"),
    ],
)
def test_negotiate(header: str | None, expected: str) -> None:
    assert i18n.negotiate(header) == expected


def test_is_rtl() -> None:
    assert [i18n.is_rtl(lang) for lang in i18n.LANGUAGES] == [False, True, False]


def test_unknown_language_and_key_raise_precise_errors() -> None:
    with pytest.raises(i18n.UnknownLanguageError):
        i18n.catalog("de")
    with pytest.raises(i18n.UnknownMessageError):
        i18n.t("en", "ui.no.such.key")


def test_catalog_returns_a_copy() -> None:
    i18n.catalog("en")["ui.site.title"] = "changed"
    assert i18n.t("en", "ui.site.title") == "Throne"


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [("en", 8, "8"), ("fa", 8, "۸"), ("fa", 1500, "۱۵۰۰"), ("fa", 12345, "۱۲٬۳۴۵"), ("fa", 2.5, "۲٫۵"),
     ("ja", 12345, "12,345"), ("en", 1500, "1500")],
)
def test_number_in_the_languages_digits(lang: str, n: float, expected: str) -> None:
    assert i18n.number(lang, n) == expected


def test_persian_texts_write_persian_digits() -> None:
    """Persian prose writes Persian digits; Latin ones only in notation: a cell (c3), a marker (R+1)."""
    notation = re.compile(r"[A-Za-z][+−±-]?[0-9]+|[0-9]+[A-Za-z]|\{[a-z_]+\}")
    latin = {key: text for key, text in _raw("fa").items() if re.search(r"[0-9]", notation.sub("", text))}
    assert latin == {}
