"""Players that act only through clicks on the page, reading what the page shows (highlighted cells, buttons).

The Leaders player walks its pieces toward the enemy Leader (board geometry only, no rules): the game ends
quickly by a capture or a surround, whichever side makes it. The Hidden Leaders player prefers playing cards
(the game ends once enough heroes are face up) and otherwise takes the first option the page offers.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.helpers import Contexts, choose_named_bot
from throne.games import hidden_leaders as hl

ROOT = "#table-root"
MY_TURN_OR_OVER = (
    "() => { const r = document.querySelector('#table-root');"
    " return r.dataset.myTurn === 'true' || r.dataset.over === 'true'; }"
)


def axial(cell: str) -> tuple[int, int]:
    q = "abcdefg".index(cell[0]) - 3
    return q, min(3, 3 - q) - int(cell[1:]) + 1


def distance(a: str, b: str) -> int:
    (q1, r1), (q2, r2) = axial(a), axial(b)
    return (abs(q1 - q2) + abs(r1 - r2) + abs(q1 + r1 - q2 - r2)) // 2


def data(page: Page, name: str) -> str | None:
    return page.eval_on_selector(ROOT, f"r => r.dataset.{name} ?? null")


def ply(page: Page) -> int:
    return int(data(page, "ply") or -1)


def wait_ply_after(page: Page, before: int) -> None:
    page.wait_for_function(
        "(before) => Number(document.querySelector('#table-root').dataset.ply) > before", arg=before
    )


def is_over(page: Page) -> bool:
    return data(page, "over") == "true"


class LeadersClicker:
    """Plays one side of a Leaders game in the page by clicking."""

    def __init__(self, page: Page, *, bot_reacts: bool = False) -> None:
        self.page = page
        self.confirmed = 0  # how many times 'End actions' asked first
        # against a bot: its Nemesis's reactions within our turn are waited out (see my_turn_goes_on); a
        # human opponent's reaction is played by its own clicker, so take_turn returns to let it
        self.bot_reacts = bot_reacts

    def seat(self) -> int:
        return int(data(self.page, "seat"))

    def enemy_leader(self) -> str:
        side = 1 - self.seat()
        return self.page.eval_on_selector(
            f'.cell:has(.piece[data-piece="L"][data-side="{side}"])', "g => g.dataset.cell"
        )

    def cells(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(selector, "gs => gs.map(g => g.dataset.cell)")

    def click_cell(self, cell: str) -> None:
        self.page.click(f'#board .cell[data-cell="{cell}"]')

    def finish(self, before: int) -> None:
        """Complete the move under way: 'finish here' when offered, else the step nearest the enemy Leader."""
        for _ in range(6):
            if ply(self.page) > before:
                return
            if self.page.is_visible("#finish-step"):
                self.page.click("#finish-step")
                break
            options = self.cells("#board .cell.dest, #board .cell.target")
            if not options:
                break
            goal = self.enemy_leader()
            self.click_cell(min(options, key=lambda c: distance(c, goal)))
        wait_ply_after(self.page, before)

    def my_turn_goes_on(self) -> bool:
        """Whether the page says it is this side's move. A bot's Nemesis reaction to one of our actions
        (leaders.md: after any action that moves its enemy Leader) is waited out first: the turn comes back
        to us after it, with the pieces that acted so far still spent."""
        page = self.page
        reacting = data(page, "myTurn") != "true" and data(page, "phase") == "reaction"
        if self.bot_reacts and reacting and not is_over(page):
            page.wait_for_function(
                "() => { const r = document.querySelector('#table-root');"
                " return r.dataset.phase !== 'reaction' || r.dataset.myTurn === 'true'"
                " || r.dataset.over === 'true'; }",
                timeout=60_000,
            )
        return not is_over(page) and data(page, "myTurn") == "true"

    def take_turn(self) -> bool:
        """Play until the turn passes; False once the game is over."""
        page = self.page
        page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
        tried: set[str] = set()
        while self.my_turn_goes_on():
            before = ply(page)
            phase = data(page, "phase")
            if phase == "recruit":
                page.click("#market .market-card.clickable")
                self.finish(before)
                continue
            if phase == "reaction":
                self.click_cell(self.cells("#board .cell.clickable")[0])
                self.finish(before)
                continue
            if not self.act_once(tried, before):
                self.end_actions(before)
        return not is_over(page)

    def end_actions(self, before: int) -> None:
        """'End actions', confirmed when the table asks (a piece could still act)."""
        self.page.click("#end-actions")
        self.page.wait_for_function(
            "(before) => Number(document.querySelector('#table-root').dataset.ply) > before"
            " || !document.querySelector('#end-confirm').hidden",
            arg=before,
        )
        if self.page.is_visible("#end-confirm"):
            self.confirmed += 1
            self.page.click("#end-confirm-yes")
        wait_ply_after(self.page, before)

    def act_once(self, tried: set[str], before: int) -> bool:
        """Move one piece closer to the enemy Leader if some piece can; False when none can."""
        goal = self.enemy_leader()
        for cell in self.cells("#board .cell.clickable"):
            if cell in tried:
                continue
            tried.add(cell)
            self.click_cell(cell)
            options = self.cells("#board .cell.dest, #board .cell.target")
            best = min(options, key=lambda c: distance(c, goal), default=None)
            if best is not None and distance(best, goal) < distance(cell, goal):
                self.click_cell(best)
                self.finish(before)
                return True
            self.page.click("#cancel-move")
        return False


class HiddenClicker:
    """Makes every decision of one seat of a Hidden Leaders game with the table's direct controls only: hand
    cards clicked to keep/discard at setup and to select a discard, a card's Play button, highlighted cards,
    piles and parties clicked, and the decision panel's confirm and option buttons. ``met`` counts the
    decision kinds and purposes seen; ``multi_discards`` the main-action discards of 2 or more cards."""

    def __init__(self, page: Page, discard_turns: tuple[int, ...] = (0,)) -> None:
        self.page = page
        self.met: dict[str, int] = {}
        self.purposes: set[str] = set()
        self.actions = 0
        self.multi_discards = 0
        self.discard_turns = discard_turns

    def decide(self) -> bool:
        page = self.page
        page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
        if is_over(page):
            return False
        before = ply(page)
        kind = data(page, "kind") or ""
        self.met[kind] = self.met.get(kind, 0) + 1
        self.purposes.add(page.get_attribute("#decision", "data-purpose") or "")
        check_decision_panel(page)
        if kind == "setup":
            self.setup()
        elif kind == "action":
            self.action()
        else:
            self.choose()
        wait_ply_after(page, before)
        return True

    def setup(self) -> None:
        page = self.page
        expect(page.locator("#setup-confirm")).to_be_disabled()  # nothing is chosen for you
        assert page.locator("#my-hand .hl-card.chosen").count() == 0
        hand = page.locator("#my-hand .hl-card")
        hand.nth(1).locator(".name").click()  # the card itself, not its Play button
        hand.nth(3).locator(".name").click()
        expect(page.locator("#my-hand .hl-card.chosen")).to_have_count(2)
        page.click("#setup-confirm")

    def action(self) -> None:
        page = self.page
        turn = self.actions
        self.actions += 1
        hand = page.locator("#my-hand .hl-card")
        if turn in self.discard_turns and hand.count() >= 2:
            hand.nth(0).locator(".name").click()
            hand.nth(hand.count() - 1).locator(".name").click()
            expect(page.locator("#discard-confirm")).to_be_enabled()
            self.multi_discards += 1
            page.click("#discard-confirm")
            return
        page.locator("#my-hand .play-card").first.click()

    def choose(self) -> None:
        """A decision inside a card or of the draw/discard steps: a highlighted element, else an option."""
        page = self.page
        cards = page.locator("#hidden-ui .pickable")
        if cards.count():
            cards.first.click()
            return
        page.locator("#decision-options button[data-move]").first.click()


def check_decision_panel(page: Page) -> None:
    """Every decision panel of the page: the prompt once, naming the card being resolved; no button that lists
    a combination of cards; the panel inside the viewport."""
    prompt = page.inner_text("#decision-prompt").strip()
    assert prompt, "an empty prompt"
    card = page.locator("#decision-card .name")
    if card.count():
        assert prompt.startswith(card.first.inner_text().strip() + ":"), prompt
    assert page.inner_text("#decision").count(prompt) == 1
    moves = page.eval_on_selector_all("#decision-options button[data-move]",
                                      "bs => bs.map(b => b.dataset.move)")
    combos = [m for m in moves if m.startswith("keep ") or (m.startswith("discard ") and " " in m[8:])]
    assert combos == [], moves
    box = page.eval_on_selector("#decision", "e => [e.getBoundingClientRect().top,"
                                             " e.getBoundingClientRect().bottom]")
    assert box[0] >= -1 and box[1] <= page.viewport_size["height"] + 1, box


class EngineSocket:
    """Answers the page's game socket like the server does, from a Hidden Leaders state and a fixed seat."""

    def __init__(self, state: hl.State, seat: int) -> None:
        self.state, self.seat, self.ply = state, seat, 10
        self.moves: list[str] = []
        self.game_id = 0

    def handler(self, ws: WebSocketRoute) -> None:
        self.game_id = int(re.search(r"/ws/games/(\d+)", ws.url).group(1))
        ws.on_message(lambda message: self.on_message(ws, message))

    def state_message(self) -> dict[str, Any]:
        st = self.state
        view = st.view(self.seat)
        mine = view["to_play"] == self.seat
        return {"type": "state", "game_id": self.game_id, "status": "finished" if st.is_over else "live",
                "ply": self.ply, "seat": self.seat, "to_play": view["to_play"], "your_turn": mine,
                "legal_moves": view["legal_moves"], "last_move": view["last_move"], "view": view,
                "result": None}

    def on_message(self, ws: WebSocketRoute, message: str | bytes) -> None:
        msg = json.loads(message)
        if msg.get("type") == "hello":
            ws.send(json.dumps({"type": "welcome", "game_id": self.game_id, "seat": self.seat}))
            self.others_play()
            ws.send(json.dumps(self.state_message()))
        elif msg.get("type") == "move":
            self.moves.append(msg["move"])
            self.state.play(msg["move"])
            self.ply += 1
            self.others_play()
            ws.send(json.dumps(self.state_message()))

    def others_play(self) -> None:
        """The other seats' decisions (none here: the position is the test's)."""


class GameSocket(EngineSocket):
    """A whole game from a seed: the other seats play seeded random moves, so the game is reproducible."""

    def __init__(self, state: hl.State, seat: int, seed: int) -> None:
        super().__init__(state, seat)
        self.rng = random.Random(seed)

    def others_play(self) -> None:
        st = self.state
        while not st.is_over and st.to_play != self.seat:
            st.play(self.rng.choice(st.legal_moves()))
            self.ply += 1


def open_table(contexts: Contexts, state: hl.State, seat: int, lang: str = "en",
               viewport: dict | None = None, engine: EngineSocket | None = None) -> tuple[Page, EngineSocket]:
    """A table page whose game socket is answered from ``state`` for ``seat`` (the lobby starts a real game,
    whose socket this replaces)."""
    engine = engine or EngineSocket(state, seat)
    page = contexts.page(lang=lang, viewport=viewport)
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    page.goto("/")
    choose_named_bot(page, "random")
    page.select_option("#quick-side-hidden-leaders", str(seat))  # the player's name is on the engine's seat
    page.click("#play-bot-hidden-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    return page, engine
