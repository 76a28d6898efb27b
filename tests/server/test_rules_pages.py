"""The rules and help pages: served in every language, linked from every page, built from the engines."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from throne import i18n
from throne.games import leaders
from throne.games.hidden_leaders.cards import CARDS, THRESHOLDS
from throne.games.leaders.pieces import CODES
from throne.server import rules_diagrams
from throne.server.app import create_app
from throne.server.config import Settings

PAGES = ["/rules", "/rules/leaders", "/rules/hidden-leaders", "/help"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=tmp_path_factory.mktemp("rules")))) as c:
        yield c


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_every_language(client: TestClient, path: str, lang: str) -> None:
    page = client.get(path, cookies={"throne_lang": lang})
    assert page.status_code == 200
    assert f'<html lang="{lang}" dir="{"rtl" if lang == "fa" else "ltr"}">' in page.text
    assert "<script>" not in page.text and " style=" not in page.text  # the CSP allows neither
    assert 'href="/rules"' in page.text and 'href="/help"' in page.text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_leaders_page_has_every_piece_with_its_catalogue_text(client: TestClient, lang: str) -> None:
    text = client.get("/rules/leaders", cookies={"throne_lang": lang}).text
    for code in CODES:
        assert str(escape(i18n.t(lang, f"leaders.piece.{code}.text"))) in text
    # the Cub shares the Hermit's card
    assert len(re.findall(r'<section class="champion"', text)) == len(CODES) - 1
    assert i18n.t(lang, "rules.leaders.strategist") in text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_hidden_leaders_page_lists_every_card_and_threshold(client: TestClient, lang: str) -> None:
    text = client.get("/rules/hidden-leaders", cookies={"throne_lang": lang}).text
    listed = set(re.findall(r'id="card-([a-z-]+)"', text))
    assert listed == set(CARDS)
    for n in THRESHOLDS["full"].values():
        assert f"<td>{i18n.number(lang, n)}</td>" in text  # in the page's digits
    assert 'data-faction="undead"' in text and 'data-faction="water-folk"' in text


# (piece, cells its diagram must mark): what the engine says each piece can reach in its diagram position
@pytest.mark.parametrize(
    ("code", "marked"),
    [
        ("RI", {"d2", "d6", "b2", "b4", "f2"}),  # exactly 2 cells; the enemy on e4 blocks that line
        ("BR", {"d5", "c5", "d6", "e5"}),  # target d5 pushed to one of the 3 cells beyond
        ("AC", {"d6", "b4"}),  # jumps over d5 and over c4
        ("RG", {"a1", "a2", "b1", "b3", "c2", "c3"}),  # lands next to its Leader on b2
        ("AS", {"c3", "c4", "d3", "d5", "e3", "e4"}),
        ("AR", {"b2", "b4", "d2", "d6", "f2", "f4", "c3", "c4", "d3", "d5", "e3", "e4"}),
    ],
)
def test_diagrams_mark_what_the_engine_allows(code: str, marked: set[str]) -> None:
    diagram = rules_diagrams.champion_diagrams()[code]
    assert {h.name for h in diagram.hexes if h.mark} == marked


def test_every_piece_has_a_diagram_and_every_loss_example_is_a_loss_for_the_engine() -> None:
    assert set(rules_diagrams.champion_diagrams()) == set(CODES)
    for _, pos, how in rules_diagrams.LOSS_EXAMPLES:
        st = leaders.from_position(f"{pos} turn=S phase=action acted=- market=- deck=- recruits=1 turns=4")
        assert (st.winner, st.termination) == (0, how)


def test_a_diagram_the_engine_does_not_confirm_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_diagrams, "LOSS_EXAMPLES", (("x", "S=Ld1,RId3 N=Ld4", "capture"),))
    rules_diagrams.loss_diagrams.cache_clear()
    try:
        with pytest.raises(AssertionError, match="does not read"):
            rules_diagrams.loss_diagrams()
    finally:
        monkeypatch.undo()
        rules_diagrams.loss_diagrams.cache_clear()


@pytest.mark.parametrize(("lang", "rtl"), [("en", False), ("fa", True), ("ja", False)])
def test_rules_track_runs_in_the_reading_direction(client: TestClient, lang: str, rtl: bool) -> None:
    """The power track's spaces are numbered in the page's digits, 1 on the reading side (the right in fa)."""
    text = client.get("/rules/hidden-leaders", cookies={"throne_lang": lang}).text
    spaces = re.findall(r'<text class="tnum" x="([\d.]+)"[^>]*>([^<]+)</text>', text)
    x = {label: float(at) for at, label in spaces}
    one, twelve = x[i18n.number(lang, 1)], x[i18n.number(lang, 12)]
    assert (one > twelve) if rtl else (one < twelve)
