"""The end banner of a person whose seat a bot played to the end (they resigned, ran out of time or were
away): never "You won!", whatever the bot reached in their seat (docs/server-api.md: such a seat is ranked
last, and a game a bot finished is not credited to its person), but why they are out and how the game ended
for the others. A real 4-player Hidden Leaders game against bots, resigned at the first decision, seen at
its end in English, Persian and Japanese on a desktop and a phone; and, from engine states, the case the
bot won in their seat, the Leaders result line and the table controls' line."""

from __future__ import annotations

import json
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, EngineSocket, open_table
from tests.e2e.helpers import DESKTOP, PHONE, Contexts, screenshot
from tests.e2e.test_hidden_leaders_e2e import start_hidden_vs_bots
from throne import i18n
from throne.games import hidden_leaders as hl

pytestmark = pytest.mark.e2e
LANGS = ("en", "fa", "ja")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}


@cache
def catalog(lang: str) -> dict[str, str]:
    return json.loads((Path(i18n.__file__).parent / f"{lang}.json").read_text(encoding="utf-8"))


def text(lang: str, key: str, **params: Any) -> str:
    """A catalogue text with its placeholders filled as the page's t() fills them (strings only)."""
    return re.sub(r"\{([a-z_]+)\}", lambda m: str(params.get(m.group(1), m.group(0))), catalog(lang)[key])


def shoot(page: Page, name: str) -> None:
    """The page's top (the banner sits there); nothing wider than the screen, the banner inside it."""
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 1, name
    box = page.locator("#result").bounding_box()
    width = page.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (name, box)
    screenshot(page, name)


def test_a_person_who_resigned_is_told_so_not_that_they_won(contexts: Contexts) -> None:
    page = contexts.page(viewport=SIZES["desktop"])
    start_hidden_vs_bots(page)
    page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#ctl-resign")
    # a spectator while the bot plays (random bots may also finish the game first: then it is over at once)
    page.wait_for_function(
        "() => { const r = document.querySelector('#table-root');"
        " return r.dataset.seat === '' || r.dataset.status === 'finished'; }"
    )
    expect(page.locator("#table-root")).to_have_attribute("data-status", "finished", timeout=120_000)
    seat = int(page.get_attribute("#table-root", "data-seat"))  # theirs again: the finished game is revealed
    winner = page.evaluate(
        "() => { const td = document.querySelector('#scores td.win');"
        " return td ? Number(td.parentElement.dataset.seat) : null; }"
    )
    banner = page.locator("#result")
    for lang in LANGS:
        if lang != "en":  # the page is loaded again: the finished game's state comes from the server anew
            page.click(f'.lang-switch a[data-lang="{lang}"]')
            expect(page.locator("html")).to_have_attribute("lang", lang)
            expect(page.locator("#table-root")).to_have_attribute("data-status", "finished")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text(text(lang, "ui.table.left.resign"))
        # nor is what the bot reached in their seat told as theirs
        you_reached = re.escape(text(lang, "ui.ev.hl.reached", who=text(lang, "ui.ev.you")))
        you_reached = you_reached.replace(r"\{n\}", r"\d+")
        expect(page.locator("#end-why")).not_to_contain_text(re.compile(you_reached))
        expect(banner).not_to_contain_text(text(lang, "ui.table.you_won"))
        if winner == seat:
            expect(banner).to_contain_text(text(lang, "ui.table.left.bot_won"))
        elif winner is None:
            expect(banner).to_contain_text(text(lang, "ui.table.no_winner"))
        else:
            expect(banner).to_contain_text(text(lang, "ui.table.winner", name="").strip())
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            shoot(page, f"hl-resigned-{lang}-{size}")
        page.set_viewport_size(SIZES["desktop"])
    assert page.get_attribute("#table-root", "data-seat") == str(seat)


@cache
def won_game(players: int = 4) -> hl.State:
    """A finished game of random moves that a seat won (the first seed that gives one)."""
    for seed in range(100):
        state = hl.new_game(players, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.play(rng.choice(state.legal_moves()))
        if state.winner is not None:
            return state
    raise AssertionError("no seed of 100 gave a winner")


class LeftSocket(EngineSocket):
    """A finished game's state, as the server sends it to a person whose seat a bot played to the end."""

    def __init__(self, state: hl.State, seat: int, left: str) -> None:
        super().__init__(state, seat)
        self.left = left

    def state_message(self) -> dict[str, Any]:
        message = super().state_message()
        message["result"] = {"winner": self.state.winner, "faction": self.state.winning_faction}
        message["left"] = self.left
        return message


@pytest.mark.parametrize(("left", "lang"), [("resign", "en"), ("timeout", "fa"), ("abandoned", "ja")])
def test_when_the_bot_won_in_the_seat_the_person_is_not_told_they_won(
    contexts: Contexts, left: str, lang: str
) -> None:
    state = won_game()
    seat = state.winner
    engine = LeftSocket(state, seat, left)
    page, _ = open_table(contexts, state, seat, lang=lang, viewport=SIZES["desktop"], engine=engine)
    head, bot_won = text(lang, f"ui.table.left.{left}"), text(lang, "ui.table.left.bot_won")
    expect(page.locator("#result")).to_have_text(text(lang, "ui.table.left.line", why=head, rest=bot_won))
    expect(page.locator(f'#scores tr[data-seat="{seat}"] td.win')).to_have_count(1)  # the seat did win
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        shoot(page, f"hl-{left}-bot-won-{lang}-{size}")


@pytest.mark.parametrize("lang", LANGS)
def test_another_seats_win_is_named_and_a_player_who_stayed_still_wins(contexts: Contexts, lang: str) -> None:
    state = won_game()
    other = (state.winner + 1) % state.players
    engine = LeftSocket(state, other, "resign")
    page, _ = open_table(contexts, state, other, lang=lang, viewport=SIZES["desktop"], engine=engine)
    winner = page.inner_text(f'#scores tr[data-seat="{state.winner}"] td:first-child')
    line = text(
        lang,
        "ui.table.left.line",
        why=text(lang, "ui.table.left.resign"),
        rest=text(lang, "ui.table.winner", name=winner),
    )
    expect(page.locator("#result")).to_have_text(line)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        shoot(page, f"hl-resign-other-won-{lang}-{size}")
    if lang == "en":
        engine = LeftSocket(state, state.winner, None)
        page, _ = open_table(contexts, state, state.winner, engine=engine)
        expect(page.locator("#result")).to_have_text(text("en", "ui.table.you_won"))  # played to the end


RESULT_LINES = """async ({ lang }) => {
  await (await import('/static/js/i18n.js')).loadCatalog(lang);
  const { resultText } = await import('/static/js/leaders-table.js');
  const { winnerText } = await import('/static/js/generic-table.js');
  const view = { is_over: true, winner: 1, termination: "capture" };
  return {
    leaders_away: resultText(view, 1, "abandoned"),
    leaders_played: resultText(view, 1),
    leaders_away_lost: resultText(view, 0, "abandoned"),
    generic_resigned: winnerText({ winner: 2 }, 2, ["A", "B", "C"], "resign"),
    generic_played: winnerText({ winner: 2 }, 2, ["A", "B", "C"]),
    generic_timeout_other: winnerText({ winner: 0 }, 2, ["A", "B", "C"], "timeout"),
  };
}"""


def test_the_leaders_and_generic_result_lines(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/leaderboard")
    got = page.evaluate(RESULT_LINES, {"lang": "en"})
    capture, bot_won = text("en", "ui.leaders.termination.capture"), text("en", "ui.table.left.bot_won")
    assert got == {
        "leaders_away": f"You were away, so a bot played for you. {bot_won} {capture}",
        "leaders_played": f"You won! {capture}",
        "leaders_away_lost": f"You were away, so a bot played for you. Winner: North {capture}",
        "generic_resigned": f"You resigned. {bot_won}",
        "generic_played": "You won!",
        "generic_timeout_other": "You ran out of time. Winner: A",
    }


# (the catalogue loaded first: the page may not have loaded its own yet, and a line drawn before shows keys)
CONTROLS_LINE = """({ left }) => import('/static/js/i18n.js').then(({ loadCatalog }) => loadCatalog())
.then(() => import('/static/js/controls.js')).then(({ TableControls }) => {
  const controls = new TableControls({ send() {}, seatName: (s) => ["South", "North"][s] });
  controls.seat = 0;
  const result = { winner: 0, termination: "resign" };
  controls.renderEnding({ status: "finished", result, left, view: { is_over: false } });
  return document.querySelector('#result').textContent;
})"""


def test_the_controls_line_when_the_opponent_resigned_to_the_bot_in_ones_seat(contexts: Contexts) -> None:
    """Leaders: the person was away, a bot took the seat over, then the opponent resigned."""
    page = contexts.page(viewport=DESKTOP)
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), lambda ws: None)  # the table gets no state
    page.goto("/")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#ctl-resign")).to_be_attached()
    assert page.evaluate(CONTROLS_LINE, {"left": "abandoned"}) == (
        f"You were away, so a bot played for you. {text('en', 'ui.table.left.bot_won')} Resigned."
    )
    assert page.evaluate(CONTROLS_LINE, {"left": None}) == "You won! Resigned."
