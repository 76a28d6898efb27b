"""The Leaders tutorial: five lessons in scripted positions (a move, an ability, a recruitment, a capture,
a surround); each goal is checked on the engine's own resulting state."""

from __future__ import annotations

from ..tutorial import Goal, Lesson, Lessons
from .board import CELL_OF, DISTANCE
from .state import State, from_position


def _pieces(st: State) -> list[tuple[int, str, str]]:
    return [(p["side"], p["code"], p["cell"]) for p in st.view(0)["pieces"]]


def _basic_leader_step(before: State, move: str, after: State) -> bool:
    leader = next(cell for side, code, cell in _pieces(before) if side == 0 and code == "L")
    path = move.split("-")
    return ":" not in move and path[0] == leader and len(path) == 2


def _rider_jump(before: State, move: str, after: State) -> bool:
    rider = next(cell for side, code, cell in _pieces(before) if side == 0 and code == "RI")
    path = move.split("-")
    return path[0] == rider and len(path) == 2 and DISTANCE[CELL_OF[path[0]]][CELL_OF[path[1]]] == 2


def _recruited(before: State, move: str, after: State) -> bool:
    return move.startswith("+")


def _won_by(how: str) -> Goal:
    return lambda before, move, after: after.is_over and after.winner == 0 and after.termination == how


_TAIL = "recruits=1 turns=4"
LESSONS: tuple[Lesson, ...] = (
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

TUTORIAL = Lessons(LESSONS, from_position)
