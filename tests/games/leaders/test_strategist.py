"""Strategist mode (docs/leaders.md): banishments, open recruitment, North's double first recruitment,
records.

Each table replays a move list from ``new_game(mode="strategist")`` and checks the state it reaches.
"""

from __future__ import annotations

import random

import pytest

from throne.games import leaders

BANS = ["ban NE", "ban AS"]
#: South recruits 1, North 2, South 1: then both hold two champions and the second round of bans starts
OPENING = [*BANS, "end", "+AC@a1", "end", "+RI@a4", "+BR@b5", "end", "+IL@b1"]
ALL = ["AC", "RI", "BR", "RG", "IL", "CL", "MA", "WA", "BM", "AR", "AS", "JA", "PR", "VI", "HE", "NE"]


def play(moves: list[str]) -> leaders.State:
    st = leaders.new_game(seed=3, mode="strategist")
    for m in moves:
        st.play(m)
    return st


def bans(st: leaders.State) -> list[str]:
    return sorted(m[4:] for m in st.legal_moves() if m.startswith("ban "))


def recruitable(st: leaders.State) -> list[str]:
    return sorted({m[1:3] for m in st.legal_moves() if m.startswith("+")})


# ----------------------------------------------------------------------------------------------- banishments
# (id, moves, phase, to_play, cards that may be banished now, banished so far)
BAN_STEPS = [
    ("north-bans-first", [], "ban", 1, ALL, []),
    ("then-south", ["ban NE"], "ban", 0, [c for c in ALL if c != "NE"], ["NE"]),
    ("then-south-moves", BANS, "action", 0, [], ["NE", "AS"]),
    ("no-ban-while-recruiting", [*BANS, "end"], "recruit", 0, [], ["NE", "AS"]),
    (
        "second-round-north-first",
        OPENING,
        "ban",
        1,
        [c for c in ALL if c not in ("NE", "AS", "AC", "RI", "BR", "IL")],
        ["NE", "AS"],
    ),
    (
        "second-round-south",
        [*OPENING, "ban VI"],
        "ban",
        0,
        [c for c in ALL if c not in ("NE", "AS", "AC", "RI", "BR", "IL", "VI")],
        ["NE", "AS", "VI"],
    ),
    (
        "second-round-over-north-moves",
        [*OPENING, "ban VI", "ban hE"],
        "action",
        1,
        [],
        ["NE", "AS", "VI", "HE"],
    ),
    (
        "no-third-round",
        [*OPENING, "ban VI", "ban HE", "end", "+CL@c6", "end", "+PR@c1"],
        "action",
        1,
        [],
        ["NE", "AS", "VI", "HE"],
    ),
]


@pytest.mark.parametrize(
    ("moves", "phase", "to_play", "can_ban", "banned"),
    [r[1:] for r in BAN_STEPS],
    ids=[r[0] for r in BAN_STEPS],
)
def test_banishment_steps(
    moves: list[str], phase: str, to_play: int, can_ban: list[str], banned: list[str]
) -> None:
    st = play(moves)
    assert (st.phase, st.to_play) == (phase, to_play)
    assert bans(st) == sorted(can_ban)
    if phase == "ban":
        assert st.legal_moves() == sorted(f"ban {c}" for c in can_ban)
    assert st.view()["banned"] == banned
    assert st.position().endswith("mode=strategist banned=" + (",".join(banned) or "-"))


# (id, moves, bad move, words of the error)
REFUSED = [
    ("banish-twice", ["ban NE"], "ban NE", "already banished"),
    ("banish-recruited", OPENING, "ban AC", "already recruited"),
    ("move-before-banishing", [], "d7-d6", "must first banish"),
    ("banish-in-action-phase", BANS, "ban VI", "only before the first recruitment"),
    ("recruit-banished", [*BANS, "end"], "+NE@a1", "banished"),
    ("recruit-recruited", [*BANS, "end", "+AC@a1", "end"], "+AC@a4", "already recruited"),
    ("banish-the-cub", [], "ban CU", "Cub"),
    ("banish-a-leader", [], "ban L", "unknown card code"),
    ("end-while-recruiting", [*BANS, "end"], "end", "must take an available card"),
    ("cub-alone", [*BANS, "end"], "+CU@a1", "recruited with the Hermit"),
    ("hermit-one-cell", [*BANS, "end"], "+HE@a1", "need two cells"),
]


@pytest.mark.parametrize(("moves", "bad", "words"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused(moves: list[str], bad: str, words: str) -> None:
    st = play(moves)
    before = st.position()
    with pytest.raises(leaders.IllegalMoveError, match=words):
        st.play(bad)
    assert st.position() == before


def test_banishment_does_not_exist_in_discovery() -> None:
    st = leaders.new_game(seed=3)
    with pytest.raises(leaders.IllegalMoveError, match="only in Strategist"):
        st.play("ban NE")


# ----------------------------------------------------------------------------------------- open recruitment
# (id, moves, cards that may be recruited now, recruitments left this turn)
RECRUIT_STEPS = [
    ("south-all-but-banished", [*BANS, "end"], [c for c in ALL if c not in ("NE", "AS")], 1),
    (
        "north-first-turn-twice",
        [*BANS, "end", "+AC@a1", "end"],
        [c for c in ALL if c not in ("NE", "AS", "AC")],
        2,
    ),
    (
        "north-second-pick",
        [*BANS, "end", "+AC@a1", "end", "+RI@a4"],
        [c for c in ALL if c not in ("NE", "AS", "AC", "RI")],
        1,
    ),
    (
        "after-second-round",
        [*OPENING, "ban VI", "ban HE", "end"],
        [c for c in ALL if c not in ("NE", "AS", "AC", "RI", "BR", "IL", "VI", "HE")],
        1,
    ),
]


@pytest.mark.parametrize(
    ("moves", "cards", "recruits"), [r[1:] for r in RECRUIT_STEPS], ids=[r[0] for r in RECRUIT_STEPS]
)
def test_open_recruitment(moves: list[str], cards: list[str], recruits: int) -> None:
    st = play(moves)
    assert st.phase == "recruit" and st.recruits == recruits
    assert recruitable(st) == sorted(cards)
    assert sorted(st.market) == sorted(cards)  # every available card is shown; there is no deck
    assert st.deck_size == 0


def test_north_recruits_twice_then_south_moves() -> None:
    st = play([*BANS, "end", "+AC@a1", "end", "+RI@a4"])
    assert (st.phase, st.turn) == ("recruit", 1)
    st.play("+BR@b5")
    assert (st.phase, st.turn, st.recruits) == ("action", 0, 1)


# ---------------------------------------------------------------------------------------------- records
def test_position_record_and_undo_round_trip() -> None:
    st = play([*OPENING, "ban VI", "ban HE", "end", "+CL@c6"])
    again = leaders.from_position(st.position())
    assert again.position() == st.position() and again.legal_moves() == st.legal_moves()
    rec = st.record()
    assert (
        rec["start"] == "S=Ld1 N=Ld7 turn=N phase=ban acted=- market=- deck=- recruits=1 turns=0 "
        "mode=strategist banned=-"
    )
    assert rec["moves"][:2] == ["ban NE", "ban AS"]
    assert leaders.record_to_state(rec).position() == st.position()
    start = leaders.new_game(mode="strategist").position()
    while st.record()["moves"]:
        st.undo()
    assert st.position() == start


# (id, position string, words of the error)
BAD_POSITIONS = [
    (
        "banned-without-mode",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=- deck=- recruits=1 turns=0 banned=NE",
        "only used with mode=strategist",
    ),
    (
        "ban-phase-in-discovery",
        "S=Ld1 N=Ld7 turn=N phase=ban acted=- market=- deck=- recruits=1 turns=0",
        "only with mode=strategist",
    ),
    (
        "market-in-strategist",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=RI deck=- recruits=1 turns=0 "
        "mode=strategist banned=NE,AS",
        "no market",
    ),
    (
        "banned-and-on-board",
        "S=Ld1,ACa1 N=Ld7 turn=N phase=action acted=- market=- deck=- recruits=1 turns=1 "
        "mode=strategist banned=NE,AC",
        "appears twice",
    ),
    (
        "wrong-banisher",
        "S=Ld1 N=Ld7 turn=S phase=ban acted=- market=- deck=- recruits=1 turns=0 mode=strategist banned=-",
        "North banishes first",
    ),
    (
        "five-banned",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=- deck=- recruits=1 turns=0 "
        "mode=strategist banned=NE,AS,AC,RI,BR",
        "at most 4",
    ),
    (
        "action-before-the-first-banishments",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=- deck=- recruits=1 turns=0 mode=strategist banned=-",
        "lists 0 cards outside phase=ban",
    ),
    (
        "south-has-not-banished",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=- deck=- recruits=1 turns=0 "
        "mode=strategist banned=NE",
        "lists 1 cards outside phase=ban",
    ),
    (
        "three-banned-outside-ban",
        "S=Ld1,ACa1,RIb1 N=Ld7,BRa4,RGb5 turn=S phase=action acted=- market=- deck=- recruits=1 turns=4 "
        "mode=strategist banned=NE,AS,IL",
        "lists 3 cards outside phase=ban",
    ),
    (
        "first-round-after-a-recruitment",
        "S=Ld1,ACa1 N=Ld7 turn=N phase=ban acted=- market=- deck=- recruits=1 turns=1 "
        "mode=strategist banned=-",
        "before the first recruitment",
    ),
    (
        "second-round-too-early",
        "S=Ld1,ACa1 N=Ld7,BRa4,RGb5 turn=N phase=ban acted=- market=- deck=- recruits=1 turns=2 "
        "mode=strategist banned=NE,AS",
        "needs two champions on each side",
    ),
    (
        "four-banned-too-early",
        "S=Ld1,ACa1 N=Ld7,BRa4,RGb5 turn=S phase=action acted=- market=- deck=- recruits=1 turns=2 "
        "mode=strategist banned=NE,AS,IL,CL",
        "needs two champions on each side",
    ),
    (
        "unknown-mode",
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=- deck=- recruits=1 turns=0 mode=expert",
        "mode= must be",
    ),
]


@pytest.mark.parametrize(("text", "words"), [r[1:] for r in BAD_POSITIONS], ids=[r[0] for r in BAD_POSITIONS])
def test_bad_positions(text: str, words: str) -> None:
    with pytest.raises(leaders.PositionError, match=words):
        leaders.from_position(text)


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown Leaders mode"):
        leaders.new_game(mode="expert")


@pytest.mark.parametrize("seed", range(6))
def test_random_games_end_and_replay(seed: int) -> None:
    rng = random.Random(seed)
    st = leaders.new_game(seed=seed, mode="strategist")
    while not st.is_over:
        st.play(rng.choice(st.legal_moves()))
        assert sorted(st.legal_moves()) == sorted(st.action_to_move(a) for a in st.legal_actions())
    rec = st.record()
    n_bans = sum(1 for m in rec["moves"] if m.startswith("ban "))
    held = [sum(1 for s, k, _ in st.pieces() if s == side and k not in ("L", "CU")) for side in (0, 1)]
    assert n_bans in (2, 4)
    if min(held) < 2:  # the second round needs two champions on each side
        assert n_bans == 2
    again = leaders.record_to_state(rec)
    assert (again.position(), again.winner, again.termination) == (st.position(), st.winner, st.termination)


def test_nothing_is_hidden_in_strategist_mode() -> None:
    """No deck: what a bot is handed (the blind record) is the record itself, and every search world is the
    true state."""
    import random as rnd

    from throne.games.leaders.hidden import blind_record, redeal, unseen

    st = play([*OPENING, "ban VI", "ban HE", "end"])
    assert unseen(st) == [] and st.view()["deck_size"] == 0
    assert blind_record(st) == st.record()
    assert redeal(st, rnd.Random(5)).position() == st.position()
