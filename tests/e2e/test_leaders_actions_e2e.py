"""Leaders moves that random games rarely reach, made by clicks on the real table page: a Nemesis reaction, a
Hermit & Cub activation of both pieces and a Bruiser push with a chosen push cell.

The page is the real game page of a real table; only its game WebSocket is answered by the test, which sends
the state messages the server would send for a position built with the engine (``from_position`` + ``view()``)
and plays the move the page sends back on that engine state. Every clickable cell therefore comes from the
engine's legal moves, and the move string the page sends must be one of them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.helpers import Contexts, choose_named_bot
from throne.games import leaders

pytestmark = pytest.mark.e2e

REST = "market=IL,VI,MA deck=WA,BM recruits=1 turns=6"


class EngineSocket:
    """Answers the page's game socket like the server does, from an engine state and a fixed seat."""

    def __init__(self, state: leaders.State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.ply = 10
        self.moves: list[dict[str, Any]] = []
        self.game_id: int | None = None

    def handler(self, ws: WebSocketRoute) -> None:
        self.game_id = int(re.search(r"/ws/games/(\d+)", ws.url).group(1))
        ws.on_message(lambda message: self.on_message(ws, message))

    def state_message(self) -> dict[str, Any]:
        st = self.state
        view = st.view()
        to_play = None if st.is_over else st.to_play
        mine = to_play == self.seat
        return {
            "type": "state",
            "game_id": self.game_id,
            "status": "finished" if st.is_over else "live",
            "ply": self.ply,
            "seat": self.seat,
            "to_play": to_play,
            "your_turn": mine,
            "legal_moves": st.legal_moves() if mine else [],
            "last_move": view.get("last_move"),
            "view": view,
            "result": None,
        }

    def on_message(self, ws: WebSocketRoute, message: str | bytes) -> None:
        msg = json.loads(message)
        if msg.get("type") == "hello":
            ws.send(json.dumps({"type": "welcome", "game_id": self.game_id, "seat": self.seat}))
            ws.send(json.dumps(self.state_message()))
        elif msg.get("type") == "move":
            self.moves.append(msg)
            if msg.get("move") not in self.state.legal_moves():
                ws.send(json.dumps({"type": "error", "code": "illegal_move", "message": "not a legal move"}))
                return
            self.state.play(msg["move"])
            self.ply += 1
            ws.send(json.dumps(self.state_message()))


def open_table(contexts: Contexts, position: str, seat: int) -> tuple[Page, EngineSocket]:
    """A real table page whose game socket is answered from the engine ``position``, seen by ``seat``."""
    engine = EngineSocket(leaders.from_position(position), seat)
    page = contexts.page()
    page.route_web_socket(re.compile(r"/ws/games/\d+$"), engine.handler)
    page.goto("/")
    choose_named_bot(page, "random")  # there once the lobby script handles clicks
    page.click("#play-bot-leaders")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    expect(page.locator("#table-root")).to_have_attribute("data-ply", str(engine.ply))
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "true")
    return page, engine


def click(page: Page, cell: str) -> None:
    page.click(f'#board .cell[data-cell="{cell}"]')


def lit(page: Page, kind: str) -> list[str]:
    return sorted(page.eval_on_selector_all(f"#board .cell.{kind}", "gs => gs.map(g => g.dataset.cell)"))


def following(legal: list[str], prefix: str) -> list[str]:
    """Cells that continue a move string after ``prefix`` (e.g. 'd5-' → the Nemesis's first steps)."""
    return sorted({re.match(r"[a-g][1-7]", m[len(prefix) :]).group(0) for m in legal if m.startswith(prefix)})


def piece_at(page: Page, cell: str) -> str | None:
    return page.eval_on_selector(
        f'#board .cell[data-cell="{cell}"]',
        "g => { const p = g.querySelector('.piece'); return p ? p.dataset.piece : null; }",
    )


def expect_sent(page: Page, engine: EngineSocket, move: str, ply: int) -> None:
    page.wait_for_function(
        "(ply) => Number(document.querySelector('#table-root').dataset.ply) > ply", arg=ply
    )
    assert engine.moves == [{"type": "move", "move": move, "ply": ply}]


def test_nemesis_reaction_two_step_path_by_clicks(contexts: Contexts) -> None:
    state = leaders.from_position(f"S=Ld1 N=Ld7,NEd5 turn=S phase=action acted=- {REST}")
    state.play("d1-d2")  # the South Leader moves: the North Nemesis must react
    assert state.phase == "reaction" and state.to_play == 1
    page, engine = open_table(contexts, state.position(), seat=1)
    legal = engine.state.legal_moves()
    assert "d5-d4-c3" in legal
    expect(page.locator("#table-root")).to_have_attribute("data-phase", "reaction")
    assert lit(page, "clickable") == ["d5"]  # only the Nemesis may move now
    assert piece_at(page, "d5") == "NE"

    click(page, "d5")
    assert lit(page, "dest") == following(legal, "d5-")
    expect(page.locator("#finish-step")).to_be_hidden()  # a 2-step path is possible: no stopping after 1
    click(page, "d4")
    assert lit(page, "dest") == following(legal, "d5-d4-") == ["c3", "c4", "d3"]
    assert lit(page, "selected") == ["d4", "d5"]
    assert engine.moves == []
    click(page, "c3")

    expect_sent(page, engine, "d5-d4-c3", 10)
    assert piece_at(page, "c3") == "NE" and piece_at(page, "d5") is None
    expect(page.locator("#table-root")).to_have_attribute("data-phase", "action")
    expect(page.locator("#table-root")).to_have_attribute("data-my-turn", "false")


def test_hermit_and_cub_both_move_by_clicks(contexts: Contexts) -> None:
    page, engine = open_table(contexts, f"S=Ld1,HEb1,CUa1 N=Ld7 turn=S phase=action acted=- {REST}", seat=0)
    legal = engine.state.legal_moves()
    assert {"b1-b2", "b1-b2,a1-a2"} <= set(legal)

    click(page, "b1")
    assert lit(page, "dest") == following(legal, "b1-")
    click(page, "b2")
    expect(page.locator("#finish-step")).to_be_visible()  # the Hermit alone is a whole move too
    assert lit(page, "clickable") == ["a1", "b1", "d1"]
    click(page, "a1")
    assert lit(page, "dest") == following(legal, "b1-b2,a1-") == ["a2", "b1"]
    assert engine.moves == []
    click(page, "a2")

    expect_sent(page, engine, "b1-b2,a1-a2", 10)
    assert piece_at(page, "b2") == "HE" and piece_at(page, "a2") == "CU"
    assert piece_at(page, "b1") is None and piece_at(page, "a1") is None
    assert page.locator("#board .piece.acted").count() == 2


def test_bruiser_push_with_a_chosen_push_cell(contexts: Contexts) -> None:
    page, engine = open_table(contexts, f"S=Ld1,BRc2 N=Ld7,RIc3 turn=S phase=action acted=- {REST}", seat=0)
    legal = engine.state.legal_moves()
    pushes = sorted(m for m in legal if m.startswith("c2:c3>"))
    assert pushes == ["c2:c3>b3", "c2:c3>c4", "c2:c3>d4"]

    click(page, "c2")
    assert lit(page, "target") == ["c3"]
    assert lit(page, "dest") == ["b1", "b2", "c1", "d2", "d3"]
    click(page, "c3")
    assert lit(page, "dest") == ["b3", "c4", "d4"]
    expect(page.locator("#finish-step")).to_be_hidden()
    assert engine.moves == []
    click(page, "d4")

    expect_sent(page, engine, "c2:c3>d4", 10)
    assert piece_at(page, "c3") == "BR" and piece_at(page, "d4") == "RI" and piece_at(page, "c2") is None


STRATEGIST = "market=- deck=- recruits=1 turns=0 mode=strategist"


def test_strategist_banish_and_open_recruitment_by_clicks(contexts: Contexts) -> None:
    start = f"S=Ld1 N=Ld7 turn=N phase=ban acted=- {STRATEGIST} banned=-"
    page, engine = open_table(contexts, start, seat=1)
    expect(page.locator("#table-root")).to_have_attribute("data-phase", "ban")
    cards = page.locator("#market .market-card.clickable")
    expect(cards).to_have_count(16)  # no market: every card can be banished
    page.click('#market .market-card[data-code="NE"]')
    expect_sent(page, engine, "ban NE", 10)
    expect(page.locator("#banned")).to_contain_text("Nemesis")
    expect(page.locator("#market .market-card")).to_have_count(15)

    after = f"S=Ld1 N=Ld7 turn=S phase=recruit acted=L {STRATEGIST} banned=NE,AS"
    page, engine = open_table(contexts, after, seat=0)
    expect(page.locator("#market .market-card.clickable")).to_have_count(14)
    page.click('#market .market-card[data-code="VI"]')
    assert lit(page, "dest") == ["a1", "b1", "c1", "e1", "f1", "g1"]
    click(page, "a1")
    expect_sent(page, engine, "+VI@a1", 10)
    assert piece_at(page, "a1") == "VI"
