"""The pages in Persian and Japanese: no English interface word left, numbers in the page's digits (clocks,
the power track, the narrated log, the move list, the replay), names and notation isolated with <bdi> (a Latin
line in a Persian page keeps its order), the power track mirrored right to left, the replay naming pieces as
the live table does."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, LeadersClicker, is_over
from tests.e2e.helpers import Contexts
from throne.games import registry

pytestmark = pytest.mark.e2e

CATALOGUES = Path(__file__).resolve().parents[2] / "src/throne/i18n"
LATIN_DIGIT = re.compile(r"[0-9]")
PERSIAN_DIGIT = re.compile(r"[۰-۹]")
# Words that stay as they are in every language: the keys of a keyboard, and "end", a word of the notation.
KEEP = {"Tab", "Enter", "Space", "Escape", "end"}

# The visible texts of the page (and its titles, labels, placeholders), leaving out what is not interface:
# <bdi> (names, notation), code, elements in another language (the language switch), hidden elements.
TEXTS = """() => {
  const page = document.documentElement.lang;
  const skip = (el) => el.closest('bdi, code, kbd, .code, script, style, [hidden]')
    || (el.closest('[lang]') && el.closest('[lang]').lang !== page);
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || skip(el) || (!el.getClientRects().length && el.tagName !== 'OPTION')) continue;
    if (n.textContent.trim()) out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (skip(el)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) {
      if (el.getAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  return out;
}"""


# Games and bots other tests register in this process (toy games, test bots) have no catalogue texts of their
# own: the lobby scanned here shows the built-in games only.
BUILT_IN_ONLY = """async (games) => {
  const meta = await (await fetch('/api/meta')).json();
  const bots = new Set(games.flatMap((g) => meta.games[g].bots || []));
  const drop = (sel, keep) => document.querySelectorAll(sel).forEach((el) => keep(el) || el.remove());
  drop('[data-game]', (el) => games.includes(el.dataset.game));
  drop('#quick-level option', (o) => !o.value || bots.has(o.value));
  drop('#create-game option', (o) => games.includes(o.value));
}"""


def english_words() -> set[str]:
    """Every word of the English catalogue (placeholders left out), lower case."""
    en = json.loads((CATALOGUES / "en.json").read_text())
    texts = [re.sub(r"\{\w+\}", "", text) for text in en.values()]
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]{3,}", text)}


def english_left(page: Page, words: set[str]) -> dict[str, str]:
    """English interface words shown on the page (acronyms such as MCTS apart), each with its text."""
    found = {}
    for text in page.evaluate(TEXTS):
        for word in re.findall(r"[A-Za-z]{3,}", text):
            if word.lower() in words and word not in KEEP and not word.isupper():
                found.setdefault(word, text[:80])
    return found


def start(page: Page, button: str, lang: str, time: str | None = None) -> str:
    page.goto(f"/lang/{lang}?next=/", wait_until="networkidle")  # the lobby script has its handlers
    if time:
        page.select_option("#quick-time", time)
    page.click(button)
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    return page.url.rsplit("/", 1)[1]


@pytest.mark.parametrize("lang", ["fa", "ja"])
def test_no_english_left(contexts: Contexts, lang: str) -> None:
    words = english_words()
    page = contexts.page(lang=lang)
    page.goto(f"/lang/{lang}?next=/", wait_until="networkidle")  # the lobby has drawn its choices
    expect(page.locator("#quick-levels input")).to_have_count(3)
    page.click("#quick-advanced > summary")  # the named bots too
    page.evaluate(BUILT_IN_ONLY, [importlib.import_module(name).SPEC.id for name in registry.BUILTIN])
    left = {"lobby": english_left(page, words)}
    for path in ["/rules", "/rules/leaders", "/rules/hidden-leaders", "/help", "/leaderboard", "/tutorial"]:
        page.goto(path)
        left[path] = english_left(page, words)
    start(page, "#play-bot-leaders", lang, time="2")
    expect(page.locator("#board .cell")).to_have_count(37)
    page.wait_for_function(MY_TURN_OR_OVER)
    left["leaders"] = english_left(page, words)
    game = start(page, "#play-bot-hidden-leaders", lang)
    expect(page.locator("#power-track .space")).to_have_count(12)
    page.wait_for_function(MY_TURN_OR_OVER)
    left["hidden-leaders"] = english_left(page, words)
    page.goto(f"/games/{game}/replay")
    expect(page.locator("#replay-step")).not_to_be_empty()
    left["replay"] = english_left(page, words)
    assert {where: found for where, found in left.items() if found} == {}


def outside_bdi(page: Page, selector: str) -> list[str]:
    """The texts of the elements matched, each without what its <bdi> children hold."""
    return page.eval_on_selector_all(
        selector,
        "els => els.map(el => { const c = el.cloneNode(true);"
        " c.querySelectorAll('bdi').forEach(b => b.remove()); return c.textContent; })",
    )


def test_persian_digits_and_isolated_names_on_the_leaders_table_and_replay(contexts: Contexts) -> None:
    page = contexts.page(lang="fa")
    game = start(page, "#play-bot-leaders", "fa", time="2")
    player = LeadersClicker(page)
    player.take_turn()
    page.wait_for_function(MY_TURN_OR_OVER)
    # clocks: Persian digits, each seat's name isolated
    clocks = page.locator("#clocks .clock-time")
    expect(clocks).to_have_count(2)
    for text in clocks.all_inner_texts():
        assert PERSIAN_DIGIT.search(text) and not LATIN_DIGIT.search(text), text
    assert page.locator("#clocks .clock > bdi").count() == 2
    # the move list: each move a <bdi> (notation keeps its Latin order), numbered in Persian
    moves = page.locator("#moves .mv")
    assert moves.count() >= 1
    assert set(moves.evaluate_all("els => els.map(e => e.tagName)")) == {"BDI"}
    notation = set(moves.all_inner_texts())
    assert page.eval_on_selector("#moves", "ol => getComputedStyle(ol).listStyleType") == "persian"
    # the narrated log: Latin cells (notation) only inside <bdi>; a turn's number in Persian digits
    log = outside_bdi(page, "#event-log li")
    assert log and not any(LATIN_DIGIT.search(line) for line in log), log
    turns = page.locator('#event-log li[data-type="turn-end"]').all_inner_texts()
    assert turns and all(PERSIAN_DIGIT.search(x) and not LATIN_DIGIT.search(x) for x in turns), turns
    mine = [x for x in turns if x.split()[0] == "شما"]  # the verb agrees with "you" (شما … رساندید)
    assert mine and all("رساندید" in x for x in mine), turns
    assert page.locator("#seats li").first.inner_text().count("\u2068") == 1  # the seat's name isolated

    page.goto(f"/games/{game}/replay")
    step = page.locator("#replay-step")
    expect(step).to_have_text(re.compile("[۰-۹]"))
    assert not LATIN_DIGIT.search(step.inner_text())
    assert set(page.locator("#replay-moves button bdi").all_inner_texts()) >= notation
    # The replay names the pieces that acted, as the live table does, never by their codes.
    none = page.evaluate("async () => (await (await fetch('/i18n/fa.json')).json())['ui.leaders.none']")
    buttons = page.locator("#replay-moves button")
    for i in range(buttons.count()):
        buttons.nth(i).click()
        acted = page.locator("#acted").inner_text()
        if none not in acted:
            break
    assert none not in acted, "no step with a piece that acted"
    assert not re.search(r"\b[A-Z]{1,2}\b", acted), acted
    expect(page.locator("#replay-move bdi")).to_have_count(1)


@pytest.mark.parametrize(("lang", "rtl"), [("en", False), ("fa", True)])
def test_power_track_mirrored_right_to_left(contexts: Contexts, lang: str, rtl: bool) -> None:
    page = contexts.page(lang=lang)
    start(page, "#play-bot-hidden-leaders", lang)
    spaces = page.locator("#power-track .space")
    expect(spaces).to_have_count(12)
    # laid out: the spaces exist before the table's stylesheet has placed them side by side; read in the same
    # frame as checked (the bot's moves redraw the track meanwhile)
    xs = page.wait_for_function(
        "() => { const s = [...document.querySelectorAll('#power-track .space')];"
        " const xs = s.map(e => e.getBoundingClientRect().x);"
        " return s.length === 12 && xs[0] !== xs[11] ? xs : null; }"
    ).json_value()
    assert xs == sorted(xs, reverse=rtl), "space 1 on the reading side, 12 at the far end"
    assert xs[0] != xs[-1]
    numbers = spaces.locator("span:first-child").all_inner_texts()
    assert numbers == ([f"{n:,}".translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")) for n in range(1, 13)]
                       if rtl else [str(n) for n in range(1, 13)])
    assert not is_over(page)


def test_chat_line_keeps_its_order_in_a_persian_page(contexts: Contexts) -> None:
    """The bidi bug: "Guest: R+1 121." shown as "Guest: R+1 .121": the name and the text each isolated."""
    page = contexts.page(lang="fa")
    start(page, "#play-bot-leaders", "fa", time="2")
    page.fill("#chat-text", "R+1 121.")
    page.click("#chat-send")
    line = page.locator("#chat-list li").first
    expect(line.locator(".chat-text")).to_have_text("R+1 121.")
    assert line.locator("strong > bdi").count() == 1
    assert line.locator(".chat-text").evaluate("e => e.tagName === 'BDI' && e.dir === 'auto'")
    # isolated left to right: the full stop ends the text on its right, as typed
    assert line.locator(".chat-text").evaluate("e => getComputedStyle(e).direction") == "ltr"


def test_history_in_persian_digits(contexts: Contexts) -> None:
    page = contexts.page(lang="fa")
    start(page, "#play-bot-leaders", "fa")
    page.goto("/me")
    row = page.locator("#history tbody tr").first
    expect(row).to_be_visible()
    cells = row.locator("td").all_inner_texts()
    number, players, when = cells[0], cells[2], cells[4]
    for text in (number, players, when):
        assert PERSIAN_DIGIT.search(text) and not LATIN_DIGIT.search(text), cells
