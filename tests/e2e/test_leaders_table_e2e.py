"""The Leaders table's own controls on the real page, each answered from an engine position (the page's game
socket is answered by the test, as in test_leaders_actions_e2e): the piece symbols, the message for a click
that does nothing legal, the End-actions confirmation and its setting, the banner of North's two first
recruitments, acted pieces badged (never faded), "already acted" naming only your own pieces, and the phone
layout keeping the market and the recruitment cells on one screen for either side (the page scrolls the cells
into sight when a card is picked); a market card's symbol beside its name; and the screenshots of the table
at 1366×800 and 390×844 in English, Persian and Japanese (after a turn of the opponent, one piece of yours
acted, another selected)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import PHONE, Contexts, choose_named_bot, screenshot
from tests.e2e.test_leaders_actions_e2e import EngineSocket, click, expect_sent
from tests.e2e.test_narrated_turns_e2e import open_table as open_turn_table
from throne.games import leaders
from throne.games.leaders.pieces import CODES

pytestmark = pytest.mark.e2e

REST = "market=IL,VI,MA deck=WA,BM,AR recruits=1 turns=6"
WIDE = {"width": 1366, "height": 800}


def open_table(
    contexts: Contexts,
    position: str | leaders.State,
    seat: int | None,
    *,
    lang: str = "en",
    viewport: dict | None = None,
) -> tuple[Page, EngineSocket]:
    """A real table page whose socket is answered from the engine ``position`` (or state) for ``seat``."""
    state = leaders.from_position(position) if isinstance(position, str) else position
    engine = EngineSocket(state, seat)
    page = contexts.page(lang=lang, viewport=viewport)
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    return page, engine


# Rasterise every symbol alone, black on transparent, at 40 px: the share of pixels two symbols disagree on.
SYMBOL_DIFFERENCES = """async (codes) => {
  const masks = [];
  for (const code of codes) {
    const symbol = document.getElementById(`lp-${code}`);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-12 -12 24 24" width="40" height="40"`
      + ` color="black">${symbol.innerHTML}</svg>`;
    const img = new Image();
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = 40; canvas.height = 40;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, 40, 40).data;
    const mask = [];
    for (let i = 3; i < data.length; i += 4) mask.push(data[i] > 96 ? 1 : 0);
    masks.push(mask);
  }
  const out = [];
  for (let a = 0; a < masks.length; a += 1) {
    const ink = masks[a].reduce((s, v) => s + v, 0) / 1600;
    for (let b = a + 1; b < masks.length; b += 1) {
      let diff = 0;
      for (let i = 0; i < 1600; i += 1) diff += masks[a][i] !== masks[b][i] ? 1 : 0;
      out.push([codes[a], codes[b], diff / 1600, ink]);
    }
  }
  return out;
}"""


def test_every_piece_has_a_distinct_symbol_and_the_side_is_a_shape(contexts: Contexts) -> None:
    south = "S=Ld1,ACa1,RIb1,BRc1,RGe1,ILf1,CLg1,MAd3"
    north = "N=Ld7,WAa4,BMb5,ARc6,ASb4,JAf5,PRg4,VIc4,HEc5,CUe5,NEd5"
    position = f"{south} {north} turn=S phase=action acted=- market=- deck=- recruits=1 turns=6"
    page, _ = open_table(contexts, position, seat=0)
    expect(page.locator("#board .piece")).to_have_count(len(CODES) + 1)  # both Leaders
    for code in CODES:  # the engine's piece list: the Leader and every champion, the Cub included
        assert page.locator(f"#lp-{code} > *").count() >= 1, code
        use = page.locator(f'#board .piece[data-piece="{code}"] use.glyph').first
        expect(use).to_have_attribute("href", f"#lp-{code}")
        expect(page.locator(f'#board .piece[data-piece="{code}"] text.code').first).to_have_text(code)
    for symbol_id in page.eval_on_selector_all("#leaders-piece-sprite symbol", "ss => ss.map(s => s.id)"):
        assert symbol_id.removeprefix("lp-") in CODES
    # the side by shape as well as colour: South round tokens, North diamonds
    expect(page.locator('#board .piece[data-side="0"] > circle.body')).to_have_count(8)
    expect(page.locator('#board .piece[data-side="1"] > polygon.body')).to_have_count(11)
    # at 40 px in one colour (greyscale) every two symbols differ in a tenth of their pixels or more
    pairs = page.evaluate(SYMBOL_DIFFERENCES, list(CODES))
    assert len(pairs) == len(CODES) * (len(CODES) - 1) // 2
    too_close = [(a, b, round(d, 3)) for a, b, d, _ in pairs if d < 0.1]
    assert too_close == []
    assert all(ink > 0.08 for *_, ink in pairs)  # none is a speck
    # the help of a piece shows its symbol on its side's token
    click(page, "d5")  # North's Nemesis: not a move for South, so a click opens its help
    expect(page.locator("#help-dialog .help-symbol svg.north use")).to_have_attribute("href", "#lp-NE")
    page.keyboard.press("Escape")
    # a market card shows the symbol of its piece
    page, _ = open_table(contexts, f"S=Ld1 N=Ld7 turn=S phase=action acted=- {REST}", seat=0)
    expect(page.locator('#market .market-card[data-code="IL"] use.glyph')).to_have_attribute("href", "#lp-IL")


def test_a_click_that_does_nothing_legal_says_why(contexts: Contexts) -> None:
    position = f"S=Ld1,RIb1,PRc1 N=Ld7,ACd5 turn=S phase=action acted=RI {REST}"
    page, engine = open_table(contexts, position, seat=0)
    message = page.locator("#board-msg")
    expect(message).to_be_hidden()
    click(page, "b1")  # the Rider acted this turn: the reason, not its help
    expect(message).to_have_text("Your Rider has already acted this turn.")
    expect(page.locator("#help-dialog")).to_be_hidden()
    click(page, "d4")  # an empty cell with no piece selected
    expect(message).to_have_text("Nothing to do on d4: click one of your pieces first.")
    click(page, "d1")  # the Leader selected, then a cell no move reaches
    expect(page.locator("#board .cell.dest").first).to_be_visible()
    click(page, "g4")
    expect(message).to_have_text("No legal move goes to g4: click a highlighted cell.")
    expect(page.locator('#board .cell[data-cell="d1"]')).to_have_class(re.compile(r"\bselected\b"))
    click(page, "d2")  # a legal move: the message goes
    expect_sent(page, engine, "d1-d2", 10)
    expect(message).to_be_hidden()
    assert engine.moves == [{"type": "move", "move": "d1-d2", "ply": 10}]


def test_the_refusal_is_in_the_page_language_and_says_whose_turn_it_is(contexts: Contexts) -> None:
    page, _ = open_table(contexts, f"S=Ld1,RIb1 N=Ld7 turn=S phase=action acted=- {REST}", seat=1, lang="ja")
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "false")
    click(page, "d4")
    expect(page.locator("#board-msg")).to_have_text("あなたの番ではありません：南が手番です。")


def test_end_actions_asks_while_a_piece_can_act_and_the_setting_turns_it_off(contexts: Contexts) -> None:
    page, engine = open_table(contexts, f"S=Ld1,RIb1 N=Ld7 turn=S phase=action acted=- {REST}", seat=0)
    confirm = page.locator("#end-confirm")
    page.click("#end-actions")
    expect(confirm).to_be_visible()
    question = "Leader and Rider can still act. End your actions anyway?"
    expect(page.locator("#end-confirm-text")).to_have_text(question)
    page.click("#end-confirm-no")
    expect(confirm).to_be_hidden()
    assert engine.moves == []
    page.click("#end-actions")
    expect(page.locator("#end-confirm-yes")).to_be_focused()
    page.keyboard.press("Escape")  # Escape is "keep playing" too
    expect(confirm).to_be_hidden()
    expect(page.locator("#end-actions")).to_be_focused()
    page.click("#end-actions")
    page.click("#end-confirm-yes")
    expect_sent(page, engine, "end", 10)

    # the setting, kept in this browser: no question any more, even after a reload
    page, engine = open_table(contexts, f"S=Ld1,RIb1 N=Ld7 turn=S phase=action acted=- {REST}", seat=0)
    setting = page.locator("#confirm-end-setting")
    expect(setting).to_be_checked()
    setting.uncheck()
    assert page.evaluate("localStorage.getItem('throne.leaders.confirmEnd')") == "off"
    page.reload()
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")
    expect(page.locator("#confirm-end-setting")).not_to_be_checked()
    engine.moves.clear()
    page.click("#end-actions")
    expect_sent(page, engine, "end", 10)
    expect(confirm).to_be_hidden()


def test_end_actions_does_not_ask_when_no_piece_can_act(contexts: Contexts) -> None:
    page, engine = open_table(contexts, f"S=Ld1,RIb1 N=Ld7 turn=S phase=action acted=L,RI {REST}", seat=0)
    expect(page.locator("#confirm-end-setting")).to_be_checked()
    page.click("#end-actions")
    expect_sent(page, engine, "end", 10)
    expect(page.locator("#end-confirm")).to_be_hidden()


def test_north_first_turn_banner_announces_two_recruitments(contexts: Contexts) -> None:
    first = "S=Ld1,RIa1 N=Ld7 turn=N phase=action acted=- market=IL,VI,MA deck=WA,BM,AR recruits=2 turns=1"
    page, _ = open_table(contexts, first, seat=0)  # South watches North's first turn
    theirs = "North's first turn: North recruits two champions this turn."
    expect(page.locator("#recruit-banner")).to_have_text(theirs)

    page, engine = open_table(contexts, first, seat=1)
    banner = page.locator("#recruit-banner")
    expect(banner).to_have_text("Your first turn: you recruit two champions this turn, one after the other.")
    page.click("#end-actions")
    page.click("#end-confirm-yes")
    expect_sent(page, engine, "end", 10)
    expect(page.locator("#table-root")).to_have_attribute("data-phase", "recruit")
    expect(banner).to_contain_text("Recruitment 1 of 2.")
    page.click('#market .market-card[data-code="VI"]')
    click(page, "a4")
    expect(page.locator("#table-root")).to_have_attribute("data-ply", "12")
    expect(banner).to_contain_text("Recruitment 2 of 2.")
    page.click('#market .market-card[data-code="IL"]')
    click(page, "g4")
    expect(page.locator("#table-root")).to_have_attribute("data-ply", "13")
    expect(banner).to_be_hidden()  # South's turn: one recruitment again
    assert [m["move"] for m in engine.moves] == ["end", "+VI@a4", "+IL@g4"]


OPACITY = """els => els.map(el => {
  let o = 1;
  for (let n = el; n && n.tagName !== 'svg'; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
  return o;
})"""


def test_acted_pieces_are_badged_not_faded_and_only_your_own_are_listed(contexts: Contexts) -> None:
    position = f"S=Ld1,RIb1,PRc1 N=Ld7,ACd5 turn=S phase=action acted=L,RI {REST}"
    page, _ = open_table(contexts, position, seat=0)
    acted = page.locator("#board .piece.acted")
    expect(acted).to_have_count(2)
    expect(page.locator("#board .piece.acted .acted-mark")).to_have_count(2)
    opacities = page.eval_on_selector_all("#board .piece.acted .body, #board .piece.acted use", OPACITY)
    assert opacities == [1.0] * 4
    expect(page.locator("#acted")).to_have_text("Already acted: Leader and Rider")
    title = page.eval_on_selector('#board .cell[data-cell="b1"] title', "t => t.textContent")
    assert "acted this turn" in title

    # North's turn, seen by South: North's acted pieces are not listed as yours
    page, _ = open_table(contexts, f"S=Ld1,RIb1 N=Ld7,ACd5 turn=N phase=action acted=L {REST}", seat=0)
    expect(page.locator("#acted")).to_be_hidden()
    page, _ = open_table(contexts, f"S=Ld1,RIb1 N=Ld7,ACd5 turn=N phase=action acted=L {REST}", seat=1)
    expect(page.locator("#acted")).to_have_text("Already acted: Leader")
    page, _ = open_table(contexts, f"S=Ld1,RIb1 N=Ld7,ACd5 turn=N phase=action acted=L {REST}", seat=None)
    expect(page.locator("#acted")).to_have_text("North already acted: Leader")  # a spectator: side to play

    # a finished game: no badge, nothing faded
    over = leaders.from_position(f"S=Ld1,ASd5 N=Ld7 turn=S phase=action acted=- {REST}")
    over.play("d5-d6")  # the Assassin steps next to North's Leader: South wins
    assert over.is_over and over.acted == {"AS"}
    page, _ = open_table(contexts, over, seat=0)
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#board .acted-mark")).to_have_count(0)
    assert page.eval_on_selector_all("#board .piece .body, #board .piece use", OPACITY) == [1.0] * 6
    expect(page.locator("#acted")).to_be_hidden()


STRATEGIST = "market=- deck=- recruits=1 turns=6 mode=strategist banned=NE,AS"
SOUTH_CELLS = ("a1", "c1", "e1", "f1", "g1")
NORTH_CELLS = ("a4", "b5", "c6", "e6", "f5", "g4")  # North's board is turned: its edge cells at the bottom
TO_RECRUIT = "S=Ld1,RIb1 N=Ld7,ACd5 turn={side} phase=recruit acted=L"
PHONE_RECRUITMENTS = {
    "discovery": (TO_RECRUIT.format(side="S"), REST, "VI", 0, SOUTH_CELLS),
    # Strategist mode: every card not taken or banished is on offer; the strip scrolls inside itself
    "strategist": (TO_RECRUIT.format(side="S"), STRATEGIST, "BR", 0, SOUTH_CELLS),
    "north": (TO_RECRUIT.format(side="N"), REST, "VI", 1, NORTH_CELLS),
    "north-strategist": (TO_RECRUIT.format(side="N"), STRATEGIST, "BR", 1, NORTH_CELLS),
}


@pytest.mark.parametrize("mode", sorted(PHONE_RECRUITMENTS))
def test_phone_keeps_the_market_and_the_recruitment_cells_on_one_screen(
    contexts: Contexts, mode: str
) -> None:
    pieces, rest, code, seat, cells = PHONE_RECRUITMENTS[mode]
    page, engine = open_table(contexts, f"{pieces} {rest}", seat=seat, viewport=PHONE)
    assert page.evaluate("window.scrollY") == 0  # the page as it opens: title and controls above the market

    def on_screen(selector: str) -> tuple[float, float]:
        """The centre of ``selector``, asserted to lie wholly in the phone's viewport (no scrolling)."""
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], selector
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    page.mouse.click(*on_screen(f'#market .market-card[data-code="{code}"]'))
    expect(page.locator("#board .cell.dest")).to_have_count(len(cells))
    on_screen(f'#market .market-card[data-code="{code}"]')  # the strip stays in sight with the cells
    for cell in cells:
        on_screen(f'#board .cell.dest[data-cell="{cell}"]')
    page.mouse.click(*on_screen(f'#board .cell[data-cell="{cells[0]}"] .hex'))
    expect_sent(page, engine, f"+{code}@{cells[0]}", 10)


# North swapped nothing yet: it steps its Archer and its Leader, then recruits; South then plays its Rider.
SHOT_POSITION = (
    "S=Ld2,BRc3,RIb1,ACe1 N=Ld6,ILc6,ARf5,JAg4 turn=N phase=action acted=- "
    "market=VI,MA,WA deck=BM,PR,AS,CL recruits=1 turns=7"
)
SHOT_TURN = ["f5-e5", "d6-d5", "end", "+VI@d7"]


@pytest.mark.parametrize("lang", ["en", "fa", "ja"])
def test_screenshots_of_the_table_in_the_middle_of_a_game(contexts: Contexts, lang: str) -> None:
    for viewport, suffix in ((WIDE, ""), (PHONE, "-phone")):
        page, engine = open_turn_table(contexts, SHOT_POSITION, lang=lang, viewport=viewport)
        root = page.locator("#table-root")
        for move in SHOT_TURN:
            engine.play(move)
            expect(root).to_have_attribute("data-ply", str(engine.ply))
        expect(root).to_have_attribute("data-my-turn", "true")
        expect(page.locator("#board .cell.marked")).to_have_count(5)  # e5, f5, d5, d6 and the recruit on d7
        click(page, "b1")
        click(page, "b3")
        expect(root).to_have_attribute("data-ply", str(engine.ply))
        assert [m["move"] for m in engine.sent] == ["b1-b3"]
        expect(page.locator('#board .piece.acted[data-piece="RI"]')).to_have_count(1)
        click(page, "c3")  # the Bruiser selected: where it may go
        expect(page.locator("#board .cell.dest")).to_have_count(5)
        expect(page.locator("#away-notice")).to_be_hidden()
        if suffix:  # a phone from the hint down: the hint, the market strip and the whole board
            page.locator(".leaders-status").evaluate("el => el.scrollIntoView({ block: 'start' })")
        screenshot(page, f"leaders-{lang}{suffix}")


LABEL_CONTRAST = """() => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  return [...document.querySelectorAll('#board .cell')]
    .filter((g) => !g.querySelector('.piece') || g.matches('.target, .dest'))
    .map((g) => {
      const [a, b] = [lum(getComputedStyle(g.querySelector('.cell-label')).fill),
                      lum(getComputedStyle(g.querySelector('.hex')).fill)].sort((x, y) => y - x);
      return [g.dataset.cell, (a + 0.05) / (b + 0.05)];
    });
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_cell_names_are_readable_on_empty_cells_and_targets(contexts: Contexts, scheme: str) -> None:
    page, _ = open_table(contexts, f"S=Ld1,BRc2 N=Ld7,RIc3 turn=S phase=action acted=- {REST}", seat=0)
    page.emulate_media(color_scheme=scheme)
    click(page, "c2")  # the Bruiser: the Rider it may push is a target, the empty cells around destinations
    expect(page.locator("#board .cell.target")).to_have_count(1)
    ratios = page.evaluate(LABEL_CONTRAST)
    assert len(ratios) == 37 - 4 + 1  # every empty cell and the target
    assert [(cell, round(r, 2)) for cell, r in ratios if r < 4.5] == []
    # an occupied cell keeps its name visible under the token, not hidden by it
    label = page.locator('#board .cell[data-cell="c3"] .cell-label').bounding_box()
    token = page.locator('#board .cell[data-cell="c3"] .piece .body').bounding_box()
    assert label is not None and token is not None
    assert label["y"] + label["height"] / 2 >= token["y"] + token["height"]  # its middle below the token


# Per card: does the symbol share a line with the first line of the name, and does it stand before the name
# (on its left, or on its right in a right-to-left page)?
CARD_ROWS = """(rtl) => [...document.querySelectorAll('#market .market-card[data-code]')].map((card) => {
  const icon = card.querySelector('.piece-icon').getBoundingClientRect();
  const name = card.querySelector('strong').getClientRects()[0];
  const before = rtl ? name.right <= icon.left + 1 : icon.right <= name.left + 1;
  return [card.dataset.code, icon.top < name.bottom && name.top < icon.bottom, before];
})"""


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_market_card_keeps_its_symbol_beside_its_name(contexts: Contexts, lang: str) -> None:
    market = "market=BM,MA,WA deck=CL,PR,AS recruits=1 turns=6"
    position = f"S=Ld1,RIb1 N=Ld7,ACd5 turn=S phase=action acted=- {market}"
    page, _ = open_table(contexts, position, 0, lang=lang, viewport=WIDE)
    rows = page.evaluate(CARD_ROWS, lang == "fa")
    assert rows == [[code, True, True] for code in ("BM", "MA", "WA")]
