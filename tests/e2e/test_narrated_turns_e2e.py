"""An opponent turn of several actions on the real table page: every action is marked on the board (contrast
at least 3:1), narrated in the log in plain language (en, fa, ja), replayed as an animation that can be
skipped, and the marks go once the player acts; a capture explains who took which Leader where.

The page is the real game page of a real table; its game socket is answered by the test like the server
does: the opponent's moves are played on an engine state and each `state` message carries the engine's
events for that move (``GameSpec.move_events``)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from tests.e2e.helpers import DESKTOP, PHONE, Contexts, choose_named_bot, screenshot
from throne import games
from throne.games import leaders

pytestmark = pytest.mark.e2e

SPEC = games.get("leaders")
# South (the page) has an Assassin on d4 next to North's Bruiser on d5; North pushes it, then recruits.
POSITION = (
    "S=Ld1,ASd4,RIb1 N=Ld7,BRd5 turn=N phase=action acted=- market=IL,VI,MA deck=WA,BM recruits=1 turns=7"
)
BOT_TURN = ["d5:d4>d3", "end", "+MA@a4"]


class TurnSocket:
    """Answers the page's game socket from an engine state; `bot` plays the opponent's moves."""

    def __init__(self, state: leaders.State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.ply = 20
        self.sent: list[dict[str, Any]] = []
        self.ws: WebSocketRoute | None = None
        self.game_id: int | None = None

    def handler(self, ws: WebSocketRoute) -> None:
        self.ws = ws
        self.game_id = int(re.search(r"/ws/games/(\d+)", ws.url).group(1))
        ws.on_message(lambda message: self.on_message(ws, message))

    def message(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        st = self.state
        view = st.view()
        to_play = None if st.is_over else st.to_play
        mine = to_play == self.seat
        return {"type": "state", "game_id": self.game_id, "status": "finished" if st.is_over else "live",
                "ply": self.ply, "seat": self.seat, "to_play": to_play, "your_turn": mine,
                "legal_moves": st.legal_moves() if mine else [], "last_move": view.get("last_move"),
                "view": view, "result": None, "events": events}

    def play(self, move: str) -> None:
        before = self.state.clone()
        seat = self.state.to_play
        self.state.play(move)
        self.ply += 1
        events = [{"ply": self.ply, "seat": seat, **ev}
                  for ev in SPEC.move_events(before, move, self.state, self.seat)]
        assert self.ws is not None
        self.ws.send(json.dumps(self.message(events)))

    def on_message(self, ws: WebSocketRoute, message: str | bytes) -> None:
        msg = json.loads(message)
        if msg.get("type") == "hello":
            ws.send(json.dumps({"type": "welcome", "game_id": self.game_id, "seat": self.seat}))
            ws.send(json.dumps(self.message([])))
        elif msg.get("type") == "move":
            self.sent.append(msg)
            self.play(msg["move"])


def _human_first(route: Route) -> None:
    """The real table behind the page seats its person at random: show it at seat 0, as the socket does, and
    connected (the server itself never sees the page's routed socket)."""
    response = route.fetch()
    body = response.json()
    if "game" in body:
        seats = sorted(body["game"]["seats"], key=lambda s: s["kind"] != "human")
        for i, seat in enumerate(seats):
            seat["seat"] = i
            if seat["kind"] == "human":
                seat["connected"] = True  # the test's socket stands in for the server's: the page is there
        body["game"]["seats"] = seats
        if body["game"].get("you"):
            body["game"]["you"]["seat"] = 0
    route.fulfill(response=response, json=body)


def open_table(contexts: Contexts, position: str, *, lang: str = "en", viewport: dict | None = None,
               reduced: bool = True) -> tuple[Page, TurnSocket]:
    engine = TurnSocket(leaders.from_position(position), seat=0)
    page = contexts.page(lang=lang, viewport=viewport)
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    # the table's history comes from the socket alone (the real table behind the page has other moves)
    page.route(re.compile(r"/api/games/\d+/record"), lambda route: route.fulfill(json={"moves": []}))
    page.route(re.compile(r"/api/games/\d+/replay"), lambda route: route.fulfill(json={"steps": []}))
    page.route(re.compile(r"/api/games/\d+$"), _human_first)
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    page.wait_for_load_state("networkidle")  # the (routed, empty) history has arrived before any move
    return page, engine


def bot_turn(page: Page, engine: TurnSocket) -> None:
    for move in BOT_TURN:
        engine.play(move)
        expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")


def marked(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all("#board .cell.marked", "gs => gs.map(g => g.dataset.cell)"))


CONTRAST = """(cell) => {
  const g = document.querySelector(`#board .cell[data-cell="${cell}"] polygon`);
  const style = getComputedStyle(g);
  const lum = (c) => {
    const [r, gg, b] = c.match(/\\d+/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * gg + 0.0722 * b;
  };
  const [a, b] = [lum(style.stroke), lum(style.fill)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def test_a_bot_turn_is_marked_narrated_and_cleared_when_you_act(contexts: Contexts) -> None:
    page, engine = open_table(contexts, POSITION)
    bot_turn(page, engine)
    log = page.locator("#event-log li")
    expect(log.last).to_contain_text("ended turn")
    texts = log.all_inner_texts()
    assert "North's Bruiser used its ability: d5 → d4" in texts
    assert "North's Bruiser pushed your Assassin d4 → d3" in texts
    assert "North recruited the Manipulator at a4" in texts
    assert any(t.startswith("North ended turn") for t in texts)
    assert page.locator("#event-log li.fresh").count() == len(texts)
    assert page.locator("#event-log li bdi").count() >= 6  # names and cells isolated for bidi text
    assert {"d3", "d4", "d5", "a4"} <= set(marked(page))
    badges = page.eval_on_selector_all("#board .mark-badge text", "ts => ts.map(t => t.textContent)")
    assert sorted(badges) == ["1", "2", "3"]  # the push, the push's victim, the recruit
    assert page.evaluate(CONTRAST, "d3") >= 3
    assert page.evaluate(CONTRAST, "a4") >= 3
    expect(page.locator("#moves")).to_contain_text("+MA@a4")  # the notation stays available

    page.click('#board .cell[data-cell="d1"]')  # you act: the marks of North's turn go
    page.click('#board .cell[data-cell="c1"]')
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    assert engine.sent[-1]["move"] == "d1-c1"
    assert marked(page) == []
    expect(page.locator("#event-log li.fresh")).to_have_count(0)
    expect(page.locator("#event-log li").last).to_have_text("Your Leader moved d1 → c1")


def test_the_turn_is_animated_and_the_animation_can_be_skipped(contexts: Contexts) -> None:
    page, engine = open_table(contexts, POSITION, reduced=False)
    engine.play(BOT_TURN[0])
    expect(page.locator("#skip-anim")).to_be_visible()
    moving = page.evaluate("() => document.getAnimations().filter(a => a.playState === 'running').length")
    assert moving >= 1
    page.click("#skip-anim")
    expect(page.locator("#skip-anim")).to_be_hidden()
    assert page.evaluate("() => document.getAnimations().filter(a => a.playState === 'running').length") == 0


def test_reduced_motion_plays_nothing(contexts: Contexts) -> None:
    page, engine = open_table(contexts, POSITION)
    engine.play(BOT_TURN[0])
    expect(page.locator("#event-log li")).to_have_count(2)
    assert page.evaluate("() => document.getAnimations().length") == 0
    expect(page.locator("#skip-anim")).to_be_hidden()


def test_a_capture_says_who_took_which_leader_where(contexts: Contexts) -> None:
    rest = "turn=S phase=action acted=- market=IL,VI,MA deck=WA,BM recruits=1 turns=8"
    page, _ = open_table(contexts, f"S=Ld1,RIb3,ARd6 N=Ld4,ACg1 {rest}")
    page.click('#board .cell[data-cell="b3"]')
    page.click('#board .cell[data-cell="c4"]')
    expect(page.locator("#result")).to_be_visible()
    captured = "Your Rider c4 and Archer d6 captured North's Leader on d4"
    expect(page.locator("#result")).to_contain_text(captured)
    culprits = sorted(page.eval_on_selector_all("#board .cell.culprit", "gs => gs.map(g => g.dataset.cell)"))
    assert culprits == ["c4", "d6"]


def test_a_rated_game_shows_the_rating_change(contexts: Contexts) -> None:
    """The table reads the player's rating while the game is live and again once it is over."""
    scores = iter([1500.0, 1512.4])
    rest = "turn=S phase=action acted=- market=IL,VI,MA deck=WA,BM recruits=1 turns=8"
    engine = TurnSocket(leaders.from_position(f"S=Ld1,RIb3,ARd6 N=Ld4,ACg1 {rest}"), seat=0)
    page = contexts.page()
    page.emulate_media(reduced_motion="reduce")
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    page.route(re.compile(r"/api/games/\d+/(record|replay)"), lambda route: route.fulfill(json={}))

    def rated(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        if "game" in body:
            body["game"]["rated"] = True
            for i, seat in enumerate(sorted(body["game"]["seats"], key=lambda s: s["kind"] != "human")):
                seat.update(seat=i, kind="human", registered=True, user_id=77 + i)
            body["game"]["seats"].sort(key=lambda s: s["seat"])
        route.fulfill(response=response, json=body)

    page.route(re.compile(r"/api/games/\d+$"), rated)
    asked: list[str] = []

    def player(route: Route) -> None:
        asked.append(route.request.url)
        rating = {"system": "glicko2", "score": next(scores)}
        route.fulfill(json={"user": {"id": 77}, "ratings": {"leaders": rating}})

    page.route(re.compile(r"/api/players/77$"), player)
    page.goto("/")
    choose_named_bot(page, "random")
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")
    for _ in range(100):  # the rating is read while the game is live
        if asked:
            break
        page.wait_for_timeout(50)
    assert asked
    page.click('#board .cell[data-cell="b3"]')
    page.click('#board .cell[data-cell="c4"]')
    expect(page.locator("#rating-change")).to_have_text("Rating: 1500 → 1512.4 (+12.4)")


@pytest.mark.parametrize("lang", ["en", "fa", "ja"])
def test_screenshots_of_a_narrated_turn(contexts: Contexts, lang: str) -> None:
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page, engine = open_table(contexts, POSITION, lang=lang, viewport=viewport)
        bot_turn(page, engine)
        expect(page.locator("#event-log li.fresh").first).to_be_visible()
        if lang == "fa":
            expect(page.locator("html")).to_have_attribute("dir", "rtl")
        if name == "phone":
            page.locator("#event-log").scroll_into_view_if_needed()
        screenshot(page, f"narrated-turn-{lang}-{name}")
