"""Golden move counts (perft): leaf counts of the legal-action tree from fixed positions, pinned in golden/.

Regenerate (only after a deliberate rules change): ``python -m tests.games.leaders.test_golden``.

Hand check of ``start-seed7`` (market RG,HE,WA): depth 1 = the Leader's 3 steps + ``end`` = 4. Depth 2: after
a Leader step only ``end`` remains (3 leaves); after ``end`` South must recruit onto the 6 empty cells of
a1..g1 other than d1: RG 6 + WA 6 + Hermit & Cub 6 x 5 ordered pairs = 42. Total 45. Depth 3: after
d1-d2, end the 7 cells a1..g1 are free (7 + 7 + 42 = 56 placements), after d1-c1 or d1-e1 six (42 each): 140;
after end and one of the 42 placements North has its Leader's 3 steps + end: 168. Total 308.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from throne.games import leaders

GOLDEN = Path(__file__).parent / "golden"

POSITIONS = {
    "start-seed7": leaders.new_game(seed=7, rng=1).position(),  # a legacy-generator deal
    "midgame-mixed": (
        "S=Ld2,ACc3,BRe2,HEa1,CUb1 N=Ld6,RGd5,ILb4,NEe5 turn=S phase=action acted=- "
        "market=CL,MA,VI deck=WA,BM,AR,AS,JA,PR,RI recruits=1 turns=8"
    ),
    "full-hands-jail-protect": (
        "S=Ld3,CLb3,MAf4,WAg1,BMd2 N=Ld6,ARd4,ASf5,JAc3,PRe5 turn=N phase=action acted=- "
        "market=AC,RI,BR deck=RG,IL,VI,HE,NE recruits=1 turns=20"
    ),
}


def perft(st: leaders.State, depth: int) -> int:
    if depth == 0 or st.is_over:
        return 1
    total = 0
    for a in st.legal_actions():
        st.apply(a)
        total += perft(st, depth - 1)
        st.undo()
    return total


def compute(name: str, depth: int) -> dict[str, object]:
    st = leaders.from_position(POSITIONS[name])
    return {"position": POSITIONS[name], "perft": {str(d): perft(st, d) for d in range(1, depth + 1)}}


DEPTHS = {"start-seed7": 4, "midgame-mixed": 3, "full-hands-jail-protect": 3}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_golden_perft(name: str) -> None:
    pinned = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert pinned["position"] == POSITIONS[name]
    st = leaders.from_position(pinned["position"])
    for depth, count in pinned["perft"].items():
        assert perft(st, int(depth)) == count, f"{name} depth {depth}"
    assert st.position() == pinned["position"]


def test_hand_checked_start() -> None:
    st = leaders.from_position(POSITIONS["start-seed7"])
    assert st.market == ["RG", "HE", "WA"]
    assert (perft(st, 1), perft(st, 2), perft(st, 3)) == (4, 45, 308)


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for key, depth in DEPTHS.items():
        data = compute(key, depth)
        (GOLDEN / f"{key}.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(key, data["perft"])
