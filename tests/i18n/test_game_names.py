"""Every name the engines use has a text in every language: Leaders pieces, Hidden Leaders cards, leaders,
factions and Fate cards (leaders.md §2, hidden-leaders.md §1 and §6, hidden-leaders-legends.md)."""

from __future__ import annotations

import pytest

from throne import i18n
from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.cards import GUARDIANS
from throne.games.hidden_leaders.fate import FATE_KINDS
from throne.games.leaders.pieces import CODES

CARDS, FACTIONS, LEADERS = hl.CARDS, hl.FACTIONS, hl.LEADERS


def _keys() -> list[str]:
    keys = [f"leaders.piece.{code}.{part}" for code in CODES for part in ("name", "text")]
    keys += [f"hl.card.{card}.{part}" for card in CARDS for part in ("name", "markers", "text")]
    keys += [f"hl.leader.{leader}" for leader in LEADERS]
    keys += [f"hl.faction.{faction}" for faction in (*FACTIONS, GUARDIANS)]
    keys += [f"hl.fate.{kind}" for kind in FATE_KINDS]
    return keys


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_engine_name_has_a_text(lang: str) -> None:
    messages = i18n.catalog(lang)
    missing = [key for key in _keys() if not messages.get(key, "").strip()]
    assert missing == []


def test_catalogue_names_only_real_cards_and_pieces() -> None:
    """No stale entries: every card/piece key of the catalogue names something the engines know."""
    known = {f"hl.card.{card}" for card in CARDS} | {f"leaders.piece.{code}" for code in CODES}
    prefixes = ("hl.card.", "leaders.piece.")
    keys = {key.rsplit(".", 1)[0] for key in i18n.catalog("en") if key.startswith(prefixes)}
    assert sorted(keys - known) == []


def test_english_card_names_match_the_engine() -> None:
    differ = {c.id: c.name for c in CARDS.values() if i18n.t("en", f"hl.card.{c.id}.name") != c.name}
    assert differ == {}


def test_every_decision_kind_has_a_prompt() -> None:
    from throne.games.hidden_leaders.rules import PROMPTS

    for lang in i18n.LANGUAGES:
        messages = i18n.catalog(lang)
        assert [kind for kind in PROMPTS if f"hl.decision.{kind}" not in messages] == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_decision_purpose_has_a_prompt(lang: str) -> None:
    """What a choice is for (the view's decision.purpose): every continuation and the turn's own decisions."""
    from throne.games.hidden_leaders.frames import Cont

    messages = i18n.catalog(lang)
    purposes = [c.value for c in Cont] + ["setup", "action", "draw", "discard"]
    assert [p for p in purposes if not messages.get(f"hl.purpose.{p}", "").strip()] == []
    stale = {k[len("hl.purpose."):] for k in messages if k.startswith("hl.purpose.")} - set(purposes)
    assert stale == set()
