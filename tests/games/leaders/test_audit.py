"""Audit rows: positions built with from_position that the rule book (§3 recruitment, §4 draws) settles."""

from __future__ import annotations

import pytest

from throne.games import leaders

from .helpers import pos

# (id, position string, why it is rejected) -- a recruitment phase the rules cannot be in
BAD_RECRUIT_PHASES = [
    # §3: recruitment is skipped at 5 cards (Leader + 4 champions); no sixth card may be taken
    (
        "five-cards-held",
        pos("Ld1,ACa1,RIb1,BRc1,RGg1", "Ld7", phase="recruit", market="VI,AR,JA", deck="IL"),
        "no legal recruit move",
    ),
    # Hermit & Cub is one card: four champion cards held
    (
        "five-cards-with-hermit-cub",
        pos("Ld1,ACa1,RIb1,HEc1,CUe1,BRg1", "Ld7", phase="recruit", market="VI,AR,JA", deck="IL"),
        "no legal recruit move",
    ),
    # §5.2: the recruitment phase ends when recruits= reaches 0
    (
        "no-recruitment-left",
        pos("Ld1", "Ld7", phase="recruit", market="VI,AR,JA", deck="AC", recruits=0),
        "no legal recruit move",
    ),
]


@pytest.mark.parametrize(
    ("text", "reason"), [r[1:] for r in BAD_RECRUIT_PHASES], ids=[r[0] for r in BAD_RECRUIT_PHASES]
)
def test_recruit_phase_respects_hand_and_count(text: str, reason: str) -> None:
    with pytest.raises(leaders.PositionError, match=reason):
        leaders.from_position(text)


def test_recruit_phase_with_a_recruitment_left_is_accepted() -> None:
    st = leaders.from_position(
        pos("Ld1,ACa1,RIb1,BRc1", "Ld7", phase="recruit", market="VI,AR,JA", deck="IL")
    )
    assert "+VI@e1" in st.legal_moves()


# (id, turns=, draw rule, expected termination) -- §4: drawn once 200 turns have been played
TURN_CAP = [
    ("at-cap", 200, True, "turn-limit"),
    ("past-cap", 201, True, "turn-limit"),
    ("below-cap", 199, True, None),
    ("at-cap-rule-off", 200, False, None),
]


@pytest.mark.parametrize(
    ("turns", "draw_rule", "termination"), [r[1:] for r in TURN_CAP], ids=[r[0] for r in TURN_CAP]
)
def test_loaded_position_past_turn_cap(turns: int, draw_rule: bool, termination: str | None) -> None:
    st = leaders.from_position(pos("Ld1", "Ld7", turns=turns), draw_rule=draw_rule)
    assert st.termination == termination
    assert st.is_over == (termination is not None)
    assert (st.legal_moves() == []) == (termination is not None)
    if termination:
        assert (st.winner, st.record()["result"]) == (None, "draw")


def test_loaded_won_position_at_cap_stays_a_win() -> None:
    st = leaders.from_position(pos("Ld1,ASd2", "Ld7", turns=200))  # North's Leader d7 is safe; d1 not
    st2 = leaders.from_position(pos("Ld1", "Ld7,ASd2", turns=200))
    assert (st.winner, st.termination) == (None, "turn-limit")
    assert (st2.winner, st2.termination) == (1, "capture")
