"""Guided tutorials: the content a game's spec names (`GameSpec.tutorial`, `throne.games.tutorial`), served
without knowing which game it is; a game without one has none.

The server keeps no tutorial state. A `Lessons` step is a position string the engine reads; the move the
player makes is played by the engine (an illegal move is refused with the engine's reason) and the lesson's
goal is checked on the engine's resulting state (a capture or surround is the engine's own termination). A
`Turn` is a fixed deal plus the moves made so far, replayed by the engine on every request.
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from throne import games
from throne.games.api import GameSpec
from throne.games.tutorial import Lesson, Lessons, Turn
from throne.server.errors import ApiError
from throne.server.pages import _hidden_leaders_data, _render

router = APIRouter()
pages = APIRouter(include_in_schema=False)

#: The most moves a `Turn` tutorial replays.
MAX_MOVES = 40

T = TypeVar("T", Lessons, Turn)


def _spec(game: str) -> GameSpec:
    try:
        spec = games.get(game)
    except games.UnknownGameError:
        raise ApiError(404, "not_found", f"no tutorial for {game!r}") from None
    if spec.tutorial is None:
        raise ApiError(404, "not_found", f"no tutorial for {game!r}")
    return spec


def _tutorial(game: str, kind: type[T]) -> tuple[GameSpec, T]:
    spec = _spec(game)
    tutorial = spec.load_tutorial()
    if not isinstance(tutorial, kind):
        raise ApiError(404, "not_found", f"no tutorial for {game!r} here")
    return spec, tutorial


def _lesson(spec: GameSpec, tutorial: Lessons, step: int) -> Lesson:
    if not 0 <= step < len(tutorial.lessons):
        last = len(tutorial.lessons) - 1
        raise ApiError(404, "no_such_step", f"the {spec.name} tutorial has steps 0..{last}")
    return tutorial.lessons[step]


def _lesson_out(tutorial: Lessons, step: int, st: Any, **extra: Any) -> dict[str, Any]:
    view = st.view(tutorial.seat)
    legal = [] if st.is_over or extra.get("done") else view["legal_moves"]
    return {"step": step, "steps": len(tutorial.lessons), "lesson": tutorial.lessons[step].key, "view": view,
            "legal_moves": legal, **extra}


class MoveIn(BaseModel):
    move: str = Field(max_length=200)


class MovesIn(BaseModel):
    moves: list[str] = Field(default_factory=list, max_length=MAX_MOVES)


@router.get("/api/tutorials/{game}/{step}")
async def lesson_step(game: str, step: int) -> dict[str, Any]:
    spec, tutorial = _tutorial(game, Lessons)
    return _lesson_out(tutorial, step, tutorial.load(_lesson(spec, tutorial, step).position))


@router.post("/api/tutorials/{game}/{step}")
async def lesson_try(game: str, step: int, body: MoveIn) -> dict[str, Any]:
    """Play the learner's move in the lesson's position; ``done`` when the engine's state meets the goal.

    A legal move that misses the goal answers ``done: false`` with the lesson's position again."""
    spec, tutorial = _tutorial(game, Lessons)
    lesson = _lesson(spec, tutorial, step)
    before = tutorial.load(lesson.position)
    after = tutorial.load(lesson.position)
    try:
        after.play(body.move)
    except spec.illegal_errors as exc:
        raise ApiError(400, "illegal_move", str(exc)) from None
    if lesson.goal(before, body.move, after):
        events = _events(spec, tutorial.seat, before, body.move, after, ply=1)
        return _lesson_out(tutorial, step, after, done=True, move=body.move, events=events)
    return _lesson_out(tutorial, step, before, done=False, move=body.move, events=[])


def _events(spec: GameSpec, seat: int, before: Any, move: str, after: Any, ply: int) -> list[dict[str, Any]]:
    """The engine's events of the learner's move, seen by the learner's seat, shaped as the game socket
    sends them."""
    return [{"ply": ply, "seat": seat, **ev} for ev in spec.move_events(before, move, after, seat)]


@router.post("/api/tutorials/{game}")
async def turn(game: str, body: MovesIn) -> dict[str, Any]:
    """Replay the learner's moves of the first turn; ``done`` once the turn has passed to the next seat."""
    spec, tutorial = _tutorial(game, Turn)
    seat = tutorial.seat
    st = tutorial.start()
    events: list[dict[str, Any]] = []
    for i, move in enumerate(body.moves):
        if st.to_play != seat:
            raise ApiError(400, "turn_over", f"move {i + 1}: the tutorial turn is already over")
        if move not in tutorial.offered(st):
            raise ApiError(400, "illegal_move", f"move {i + 1}: {move!r} is not offered now")
        before = st.clone()
        st.play(move)
        if i == len(body.moves) - 1:  # the events of the move just made, as the learner may see them
            events = _events(spec, seat, before, move, st, ply=i + 1)
    done = st.to_play != seat
    view = st.view(seat)  # the learner's seat: the opponents' secrets stay hidden
    kind = None if done else tutorial.decision(st)
    return {"view": view, "legal_moves": [] if done else tutorial.offered(st), "kind": kind, "done": done,
            "moves": body.moves, "events": events}


@pages.get("/tutorial", response_class=HTMLResponse)
async def tutorial_index(request: Request) -> HTMLResponse:
    return await _render(request, "tutorial_index.html")


@pages.get("/tutorial/{game}", response_class=HTMLResponse)
async def tutorial_page(request: Request, game: str) -> HTMLResponse:
    spec = _spec(game)
    return await _render(request, "table.html", game_id=game, tutorial=game, hl_data=_hidden_leaders_data(),
                         renderer=spec.renderer)
