"""Guided tutorials: a first Leaders game in scripted positions and a first Hidden Leaders turn.

The server keeps no tutorial state. A Leaders lesson is a position string the engine reads; the move the
player makes is played by the engine (an illegal move is refused with the engine's reason) and the lesson's
goal is checked on the engine's resulting state (a capture or surround is the engine's own termination). The
Hidden Leaders turn is a fixed seed plus the moves made so far, replayed by the engine on every request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from throne import games
from throne.games import hidden_leaders as hl
from throne.games import leaders
from throne.games.hidden_leaders import rules as hl_rules
from throne.games.leaders.board import CELL_OF, DISTANCE
from throne.server.errors import ApiError
from throne.server.pages import _hidden_leaders_data, _render

router = APIRouter()
pages = APIRouter(include_in_schema=False)

Goal = Callable[[leaders.State, str, leaders.State], bool]


def _basic_leader_step(before: leaders.State, move: str, after: leaders.State) -> bool:
    leader = next(cell for side, code, cell in _pieces(before) if side == 0 and code == "L")
    path = move.split("-")
    return ":" not in move and path[0] == leader and len(path) == 2


def _rider_jump(before: leaders.State, move: str, after: leaders.State) -> bool:
    rider = next(cell for side, code, cell in _pieces(before) if side == 0 and code == "RI")
    path = move.split("-")
    return path[0] == rider and len(path) == 2 and DISTANCE[CELL_OF[path[0]]][CELL_OF[path[1]]] == 2


def _recruited(before: leaders.State, move: str, after: leaders.State) -> bool:
    return move.startswith("+")


def _won_by(how: str) -> Goal:
    return lambda before, move, after: after.is_over and after.winner == 0 and after.termination == how


def _pieces(st: leaders.State) -> list[tuple[int, str, str]]:
    return [(p["side"], p["code"], p["cell"]) for p in st.view(0)["pieces"]]


@dataclass(frozen=True)
class Lesson:
    key: str
    position: str
    goal: Goal


_TAIL = "recruits=1 turns=4"
LEADERS_LESSONS: tuple[Lesson, ...] = (
    Lesson("move", "S=Ld1 N=Ld7 turn=S phase=action acted=- market=RI,BR,AS deck=IL,MA recruits=1 turns=0",
           _basic_leader_step),
    Lesson("ability", f"S=Ld1,RId3 N=Ld7 turn=S phase=action acted=- market=BR,AS,IL deck=MA {_TAIL}",
           _rider_jump),
    Lesson("recruit", f"S=Ld1,RId5 N=Ld7,BRe6 turn=S phase=recruit acted=RI market=AS,IL,MA deck=AC {_TAIL}",
           _recruited),
    Lesson("capture", f"S=Ld1,RId2,BRe4 N=Ld5 turn=S phase=action acted=- market=AS,IL,MA deck=AC {_TAIL}",
           _won_by("capture")),
    Lesson("surround", f"S=Ld1,RIa1 N=La4,ACb4,BRb5 turn=S phase=action acted=- market=AS,IL deck=- {_TAIL}",
           _won_by("surround")),
)

#: The Hidden Leaders tutorial deal: 2 players, core cards, seat 0 (the learner) starts.
HL_SEED = 3
HL_MAX_MOVES = 40


def _lesson(step: int) -> Lesson:
    if not 0 <= step < len(LEADERS_LESSONS):
        raise ApiError(404, "no_such_step", f"the Leaders tutorial has steps 0..{len(LEADERS_LESSONS) - 1}")
    return LEADERS_LESSONS[step]


def _leaders_out(step: int, st: leaders.State, **extra: Any) -> dict[str, Any]:
    view = st.view(0)
    legal = [] if st.is_over or extra.get("done") else view["legal_moves"]
    return {"step": step, "steps": len(LEADERS_LESSONS), "lesson": LEADERS_LESSONS[step].key, "view": view,
            "legal_moves": legal, **extra}


class MoveIn(BaseModel):
    move: str = Field(max_length=200)


class MovesIn(BaseModel):
    moves: list[str] = Field(default_factory=list, max_length=HL_MAX_MOVES)


@router.get("/api/tutorials/leaders/{step}")
async def leaders_step(step: int) -> dict[str, Any]:
    return _leaders_out(step, leaders.from_position(_lesson(step).position))


@router.post("/api/tutorials/leaders/{step}")
async def leaders_try(step: int, body: MoveIn) -> dict[str, Any]:
    """Play the learner's move in the lesson's position; ``done`` when the engine's state meets the goal.

    A legal move that misses the goal answers ``done: false`` with the lesson's position again."""
    lesson = _lesson(step)
    before = leaders.from_position(lesson.position)
    after = leaders.from_position(lesson.position)
    try:
        after.play(body.move)
    except leaders.IllegalMoveError as exc:
        raise ApiError(400, "illegal_move", str(exc)) from None
    if lesson.goal(before, body.move, after):
        events = _events("leaders", before, body.move, after, ply=1)
        return _leaders_out(step, after, done=True, move=body.move, events=events)
    return _leaders_out(step, before, done=False, move=body.move, events=[])


def _events(game: str, before: Any, move: str, after: Any, ply: int) -> list[dict[str, Any]]:
    """The engine's events of the learner's move, seen by seat 0, shaped as the game socket sends them."""
    return [{"ply": ply, "seat": 0, **ev} for ev in games.get(game).move_events(before, move, after, 0)]


def hl_start() -> hl.State:
    """The tutorial deal with both setup choices made (the first listed pair), seat 0 to play."""
    st = hl.new_game(players=2, seed=HL_SEED, modules=("core",))
    while hl_rules.decision(st)[1] == "setup":
        st.play(st.legal_moves()[0])
    return st


def _hl_legal(st: hl.State) -> list[str]:
    """The moves offered: the engine's, except that the main action of the tutorial turn is playing a card."""
    legal = st.legal_moves()
    if hl_rules.decision(st)[1] == "action":
        return [m for m in legal if m.startswith("play ")] or legal
    return legal


@router.post("/api/tutorials/hidden-leaders")
async def hidden_leaders_turn(body: MovesIn) -> dict[str, Any]:
    """Replay the learner's moves of the first turn; ``done`` once the turn has passed to the next seat."""
    st = hl_start()
    events: list[dict[str, Any]] = []
    for i, move in enumerate(body.moves):
        if st.to_play != 0:
            raise ApiError(400, "turn_over", f"move {i + 1}: the tutorial turn is already over")
        if move not in _hl_legal(st):
            raise ApiError(400, "illegal_move", f"move {i + 1}: {move!r} is not offered now")
        before = st.clone()
        st.play(move)
        if i == len(body.moves) - 1:  # the events of the move just made, as seat 0 may see them
            events = _events("hidden-leaders", before, move, st, ply=i + 1)
    done = st.to_play != 0
    view = st.view(0)  # the learner's seat: the opponent's hand and leader stay hidden
    kind = None if done else hl_rules.decision(st)[1]
    return {"view": view, "legal_moves": [] if done else _hl_legal(st), "kind": kind, "done": done,
            "moves": body.moves, "events": events}


@pages.get("/tutorial", response_class=HTMLResponse)
async def tutorial_index(request: Request) -> HTMLResponse:
    return await _render(request, "tutorial_index.html")


@pages.get("/tutorial/{game}", response_class=HTMLResponse)
async def tutorial_page(request: Request, game: str) -> HTMLResponse:
    if game not in ("leaders", "hidden-leaders"):
        raise ApiError(404, "not_found", f"no tutorial for {game!r}")
    return await _render(request, "table.html", game_id=game, tutorial=game, hl_data=_hidden_leaders_data(),
                         lessons=[x.key for x in LEADERS_LESSONS], renderer=games.get(game).renderer)
