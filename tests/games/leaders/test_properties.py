"""Property tests over random legal games: termination, undo, round-trips, replay, and the legality filter
checked against a brute-force reference (apply every candidate on a clone and test the own Leader)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from throne.games import leaders
from throne.games.leaders.actions import DECODE, MOVE_STRINGS, T_RECHC
from throne.games.leaders.board import NEIGHBOURS, RECRUIT_CELLS
from throne.games.leaders.pieces import CARDS, CODES, CU, HE, NE
from throne.games.leaders.rules import END, gen_piece, lost, make_ctx, nemesis_owner, offered

from .helpers import state

SETTINGS = settings(max_examples=40, deadline=None)


def random_game(seed: int, max_actions: int = 400, draw_rule: bool = True) -> leaders.State:
    rng = random.Random(seed)
    st = leaders.new_game(seed=seed, draw_rule=draw_rule)
    for _ in range(max_actions):
        if st.is_over:
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


def reference_actions(st: leaders.State) -> set[int]:
    """Legal actions by brute force: generate without the Leader check, then apply each on a clone."""
    side = st.to_play
    if st.phase == "action":
        candidates: list[int] = [END]
        ctx = make_ctx(st, candidates, None, check=False)
        for kind in range(NE):
            if st.loc[kind * 2 + side] >= 0 and not (st.acted_mask >> kind) & 1:
                if kind == CU and st.loc[HE * 2 + side] >= 0:
                    continue
                gen_piece(ctx, st, kind)
        out = set()
        for a in candidates:
            c = st.clone()
            c.apply(a)
            if not lost(c.board, c.loc[side], side):
                out.add(a)
        return out
    if st.phase == "ban":  # Strategist: any card neither on the board nor banished
        gone = {code for _, code, _ in st.pieces()} | set(st.position().split("banned=")[1].split(","))
        codes = [CODES[k] for k in CARDS]
        return {leaders.move_to_action(f"ban {code}") for code in codes if code not in gone}
    if st.phase == "recruit":
        out = set()
        empties = [c for c in RECRUIT_CELLS[side] if st.board[c] < 0]
        for text in MOVE_STRINGS:
            if not text.startswith("+"):
                continue
            a = leaders.move_to_action(text)
            t, args = DECODE[a]
            kind = HE if t == T_RECHC else args[0]
            cells = args if t == T_RECHC else args[1:]
            if kind not in offered(st) or any(c not in empties for c in cells):
                continue
            c = st.clone()
            c.apply(a)
            if not lost(c.board, c.loc[side], side):
                out.add(a)
        return out
    owner = nemesis_owner(st.loc)
    f = st.loc[NE * 2 + owner]
    board = st.board
    two = {(a, b) for a in NEIGHBOURS[f] if board[a] < 0 for b in NEIGHBOURS[a] if board[b] < 0 and b != f}
    one = {(a,) for a in NEIGHBOURS[f] if board[a] < 0}

    def safe(path: tuple[int, ...]) -> bool:
        c = st.clone()
        c.board[f], c.board[path[-1]] = -1, board[f]
        return not lost(c.board, c.loc[owner], owner)

    # §4 step 3 (ruling): 2 cells whenever any 2-step path exists; the safe paths, or all when none is safe
    for group in (two, one):
        if group:
            ok = {p[-1] for p in group if safe(p)}
            return {("end", e) for e in ok or {p[-1] for p in group}}  # type: ignore[misc]
    return set()


def check_reference(st: leaders.State) -> None:
    listed = st.legal_actions()
    assert len(listed) == len(set(listed))
    ref = reference_actions(st)
    if st.phase == "reaction":
        assert {("end", DECODE[a][1][-1]) for a in listed} == ref
    else:
        assert set(listed) == ref


@settings(max_examples=80, deadline=None)
@given(hs.integers(0, 2**32 - 1), hs.sampled_from(["discovery", "strategist"]))
def test_random_games_end_and_listing_matches_reference(seed: int, mode: str) -> None:
    rng = random.Random(seed)
    st = leaders.new_game(seed=seed, mode=mode)
    steps = 0
    while not st.is_over:
        if steps % 3 == 0:
            check_reference(st)
        st.apply(rng.choice(st.legal_actions()))
        steps += 1
        assert steps < 20000
    assert st.termination in ("capture", "surround", "repetition", "turn-limit")
    assert (st.winner is None) == (st.termination in ("repetition", "turn-limit"))
    assert st.legal_actions() == [] and st.legal_moves() == []


@SETTINGS
@given(hs.integers(0, 2**32 - 1), hs.integers(0, 150))
def test_undo_restores_and_roundtrips(seed: int, length: int) -> None:
    st = random_game(seed, length)
    text = st.position()
    assert leaders.from_position(text).position() == text
    if st.is_over:
        return
    for a in st.legal_actions():
        st.apply(a)
        st.undo()
        assert st.position() == text
    for m in st.legal_moves():
        c = st.clone()
        c.play(m)
        c.undo()
        assert c.position() == text
    assert sorted(leaders.action_to_move(a) for a in st.legal_actions()) == st.legal_moves()
    assert {leaders.move_to_action(m) for m in st.legal_moves()} == set(st.legal_actions())


@SETTINGS
@given(hs.integers(0, 2**32 - 1), hs.integers(0, 300))
def test_record_replays(seed: int, length: int) -> None:
    st = random_game(seed, length)
    rec = json.loads(json.dumps(st.record()))
    again = leaders.record_to_state(rec)
    assert again.position() == st.position()
    assert (again.winner, again.termination) == (st.winner, st.termination)
    while st._history:  # undo all the way back to the start
        st.undo()
    assert st.position() == rec["start"]


@SETTINGS
@given(hs.integers(0, 2**32 - 1), hs.integers(0, 120), hs.lists(hs.integers(0, leaders.NUM_ACTIONS - 1),
                                                               max_size=40), hs.text(max_size=12))
def test_unlisted_moves_rejected_without_change(seed: int, length: int, ids: list[int], junk: str) -> None:
    st = random_game(seed, length)
    text = st.position()
    accepted = st.accepted_actions()
    for a in ids:
        if a in accepted:
            continue
        try:
            st.play(leaders.action_to_move(a))
        except leaders.IllegalMoveError as exc:
            assert str(exc)
        else:
            raise AssertionError(f"{leaders.action_to_move(a)} accepted in {text}")
        assert st.position() == text
    try:
        st.play(junk)
    except leaders.IllegalMoveError:
        pass
    else:
        assert leaders.move_to_action(junk) in accepted
    for a in accepted:  # every accepted spelling really plays
        c = st.clone()
        c.play(leaders.action_to_move(a))


def test_draw_rule_off_games_still_end() -> None:
    for seed in range(3):
        st = random_game(seed, 5000, draw_rule=False)
        assert st.termination in ("capture", "surround")
        assert leaders.record_to_state(st.record()).position() == st.position()


def test_corrupt_record_names_the_move() -> None:
    st = random_game(11, 30)
    rec = st.record()
    rec["moves"][5] = "g4-a1"
    try:
        leaders.record_to_state(rec)
    except leaders.RecordError as exc:
        assert "move 6" in str(exc)
    else:
        raise AssertionError("corrupt record accepted")


# §4 step 3 (ruling): positions where the old "safe paths first, else 1 step" reading differs from the rule
# (South, North, trigger); the reaction listing must match the brute-force reference.
FORCED_REACTIONS = [
    ("Ld1,BRb4,RIa3,ACc5", "Ld7,VIe6,ARd6,NEa4", "d1-d2"),  # every 2-step path surrounds North's Leader
    ("Ld1,BRc5,RIb4,ACa4", "Ld7,VIe6,ARd6,NEb5", "d1-d2"),  # no 2-step path; the only step self-harms
]


@pytest.mark.parametrize(("south", "north", "trigger"), FORCED_REACTIONS)
def test_forced_reactions_match_reference(south: str, north: str, trigger: str) -> None:
    st = state(south, north)
    st.play(trigger)
    assert st.phase == "reaction"
    check_reference(st)
