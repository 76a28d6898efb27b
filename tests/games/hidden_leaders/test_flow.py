"""Setup (§2), the turn (§3), thresholds, move validation and records."""

from __future__ import annotations

import json

import pytest

from throne.games import hidden_leaders as hl

from .helpers import build, check


def setup_done(players: int = 4, seed: int = 1, **kw) -> hl.State:
    st = hl.new_game(players=players, seed=seed, **kw)
    while st.phase == "setup":
        st.play(st.legal_moves()[0])
    return st


@pytest.mark.parametrize(("modules", "size"), [(("core",), 72), (("core", "kickstarter"), 84),
                                               (("core", "kickstarter", "queens"), 89)])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_new_game_deal(players: int, modules: tuple[str, ...], size: int) -> None:
    st = hl.new_game(players=players, seed=7, modules=modules)
    assert st.phase == "setup" and st.to_play == 0 and st.markers == (4, 4)
    assert all(len(h) == 5 for h in st.hands)
    assert len(set(st.leaders)) == players and st.graveyard == [hl.EMPEROR]
    assert None not in st.tavern
    assert len(st.harbor) == size - 3 - 5 * players
    assert len(st.legal_moves()) == 20


@pytest.mark.parametrize(("kwargs", "text"), [
    ({"players": 1}, "2 to 6"), ({"players": 7}, "2 to 6"), ({"variant": "easy"}, "variant"),
    ({"modules": ("kickstarter",)}, "core"), ({"modules": ("core", "core")}, "module"),
    ({"modules": ("core", "expansion")}, "module"),
])
def test_new_game_rejects(kwargs: dict, text: str) -> None:
    with pytest.raises(ValueError, match=text):
        hl.new_game(seed=1, **kwargs)


def test_same_seed_same_deal() -> None:
    assert hl.new_game(seed=5).to_json() == hl.new_game(seed=5).to_json()
    assert hl.new_game(seed=5).to_json() != hl.new_game(seed=6).to_json()


def test_setup_is_seat_by_seat_and_secret() -> None:
    st = hl.new_game(players=3, seed=2)
    a, b = sorted(st.hands[0])[:2]
    st.play(f"keep {a} discard {b}")
    assert st.parties[0] == [(a, False)] and st.wilderness == [b] and st.to_play == 1
    assert st.known[0] == {b: "w"} and st.known[1] == {}
    v1 = st.view(1)
    assert v1["parties"][0] == [{"card": None, "up": False}]
    assert v1["last_move"] == {"seat": 0, "move": "setup"}
    assert a not in json.dumps(v1) and b not in json.dumps(v1)
    st.play(st.legal_moves()[0])
    st.play(st.legal_moves()[0])
    assert st.phase == "action" and st.turn == st.first and all(len(h) == 3 for h in st.hands)


def test_setup_rejects_same_card() -> None:
    st = hl.new_game(players=3, seed=2)
    c = st.hands[0][0]
    with pytest.raises(hl.IllegalMoveError, match="must differ"):
        st.play(f"keep {c} discard {c}")


def test_main_action_options() -> None:
    st = build({"hands": {0: "keen-koi leery-lizard ace-fighter"}})
    moves = st.legal_moves()
    assert moves == sorted(moves)
    assert "pass" in moves and "play keen-koi" in moves
    assert sum(m.startswith("discard") for m in moves) == 7
    assert "discard ace-fighter keen-koi leery-lizard" in moves


def test_discard_any_order_then_draw_and_discard_down() -> None:
    st = build({"hands": {0: "keen-koi leery-lizard ace-fighter"}, "tavern": "furious-frog depressed-druid -",
                "harbor": "flailing-knight short-sighted-soldier rotting-orangutan"})
    st.play("discard leery-lizard keen-koi")
    assert st.history[-1] == (0, "discard keen-koi leery-lizard")
    assert st.view(1)["last_move"]["move"] == "discard 2 cards"
    assert st.phase == "draw"
    assert st.legal_moves() == ["draw harbor", "draw tavern depressed-druid", "draw tavern furious-frog"]
    st.play("draw tavern furious-frog")
    assert st.tavern == [None, "depressed-druid", None]  # no refill during the draw step
    st.play("draw harbor")
    st.play("draw harbor")
    check(st, {"hand0": "ace-fighter furious-frog flailing-knight short-sighted-soldier", "phase": "discard",
               "legal": ["discard ace-fighter", "discard furious-frog", "discard flailing-knight",
                         "discard short-sighted-soldier"]})
    st.play("discard ace-fighter")
    assert st.view(2)["last_move"]["move"] == "discard 1 card"
    # slot 0 from the Harbor; slot 2 from the Wilderness, reshuffled into the empty Harbor
    check(st, {"phase": "action", "to_play": 1})
    assert st.tavern[:2] == ["rotting-orangutan", "depressed-druid"]
    assert st.tavern[2] in {"keen-koi", "leery-lizard",
        "ace-fighter"} and len(st.harbor) == 2 and st.wilderness == []


def test_pass_with_four_cards_skips_draw() -> None:
    st = build({"hands": {0: "keen-koi leery-lizard ace-fighter furious-frog"}, "harbor": "depressed-druid"})
    st.play("pass")
    check(st, {"phase": "discard"})


def test_refill_reshuffles_the_wilderness() -> None:
    st = build({"hands": {0: "keen-koi leery-lizard ace-fighter"},
        "wilderness": "furious-frog depressed-druid"})
    st.known[1]["furious-frog"] = "w"
    st.play("pass")
    assert st.legal_moves() == ["draw harbor"]  # the Harbor is empty but the Wilderness is not
    st.play("draw harbor")
    assert len(st.harbor) == 1 and st.wilderness == []
    assert st.known[1] == {}  # a reshuffle makes Wilderness knowledge stale
    st.play("discard keen-koi")
    check(st, {"phase": "action", "to_play": 1, "harbor": "", "wilderness": ""})
    assert st.tavern[2] is None and st.tavern[1] == "keen-koi"


@pytest.mark.parametrize(("players", "variant", "n"), [
    (2, "full", 8), (3, "full", 7), (4, "full", 7), (5, "full", 6), (6, "full", 5),
    (2, "basic", 7), (3, "basic", 6), (4, "basic", 6), (5, "basic", 5), (6, "basic", 4),
])
def test_end_check_is_immediate(players: int, variant: str, n: int) -> None:
    assert hl.THRESHOLDS[variant][players] == n
    filler = " ".join(c for c in list(hl.CARDS)[1:n])  # n - 1 heroes face up
    st = build({"players": players, "variant": variant, "parties": {0: filler}, "harbor": "keen-koi",
                "hands": {0: "blind-eye-collector"}})
    st.red = st.green = 4
    assert st.parties[0] and sum(u for _, u in st.parties[0]) == n - 1
    st.play("play blind-eye-collector")
    assert st.is_over and st.harbor == ["keen-koi"] and st.legal_moves() == []
    assert st.to_play is None and st.winning_faction is not None


def test_one_fewer_does_not_end() -> None:
    st = build({"players": 4, "parties": {0: " ".join(list(hl.CARDS)[1:6])},
        "hands": {0: "blind-eye-collector"}})
    st.play("play blind-eye-collector")
    assert not st.is_over


@pytest.mark.parametrize(("move", "text"), [
    ("play nothing-card", "unknown card"), ("play keen-koi", "not in the hand"), ("R+1", "not a legal move"),
    ("discard a b c d", "at most 3"), ("", "empty move"),
    ("discard leery-lizard leery-lizard", "not a legal move"),
])
def test_illegal_moves_change_nothing(move: str, text: str) -> None:
    st = build({"hands": {0: "leery-lizard ace-fighter"}})
    before = st.to_json()
    with pytest.raises(hl.IllegalMoveError, match=text):
        st.play(move)
    assert st.to_json() == before
    assert isinstance(hl.IllegalMoveError("x"), ValueError)


def test_illegal_after_game_over() -> None:
    st = build({"phase": "over"})
    with pytest.raises(hl.IllegalMoveError, match="over"):
        st.play("pass")


def test_decision_by_another_seat() -> None:
    st = build({"hands": {0: "doubtful-priest"}})
    st.play("play doubtful-priest")
    assert st.to_play == 1 and st.turn == 0
    assert st.view(1)["decision"]["kind"] == "marker" and st.view(1)["legal_moves"] == ["R+2", "R-2"]
    assert st.view(0)["legal_moves"] == [] and st.view(0)["decision"]["card"] == "doubtful-priest"


def test_record_replays_and_reports_bad_moves() -> None:
    st = setup_done(seed=11)
    import random

    rng = random.Random(3)
    for _ in range(60):
        st.play(rng.choice(st.legal_moves()))
    rec = json.loads(json.dumps(st.record()))
    assert rec["game"] == "hidden-leaders" and rec["result"] is None
    again = hl.record_to_state(rec)
    assert again.to_json() == st.to_json()
    bad = dict(rec, moves=[*rec["moves"][:10], [rec["moves"][10][0], "play not-a-card"]])
    with pytest.raises(hl.RecordError, match="move 10"):
        hl.record_to_state(bad)
    with pytest.raises(hl.RecordError, match="seat"):
        hl.record_to_state(dict(rec, moves=[[1, rec["moves"][0][1]]]))
    with pytest.raises(hl.RecordError):
        hl.record_to_state({"game": "leaders"})


def test_clone_is_independent() -> None:
    st = setup_done(seed=4)
    c = st.clone()
    c.play(c.legal_moves()[0])
    assert st.history != c.history and st.to_json() != c.to_json()
    assert setup_done(seed=4).to_json() == st.to_json()


def test_from_json_rejects_bad_states() -> None:
    data = hl.new_game(seed=1).to_json()
    with pytest.raises(hl.StateError, match="cards"):
        hl.from_json(dict(data, harbor=data["harbor"][1:]))
    with pytest.raises(hl.StateError, match="game"):
        hl.from_json(dict(data, game="leaders"))
    with pytest.raises(hl.StateError, match="markers"):
        hl.from_json(dict(data, markers={"red": 13, "green": 4}))
    with pytest.raises(hl.StateError):
        hl.from_json({"game": "hidden-leaders"})
    with pytest.raises(hl.StateError, match="seed"):
        hl.from_json(dict(data, seed="x"))
    spec_only = {k: v for k, v in data.items() if k not in ("known", "history", "last")}
    assert hl.from_json(spec_only).legal_moves() == hl.from_json(data).legal_moves()


def test_json_shape_at_main_action() -> None:
    d = setup_done(seed=3).to_json()
    spec_keys = {"game", "players", "variant", "modules", "markers", "leaders", "hands", "parties", "tavern",
                 "harbor", "wilderness", "graveyard", "turn", "phase", "seed"}
    assert spec_keys <= set(d) and set(d) - spec_keys == {"known", "history", "last", "rng", "draws", "first"}
    assert d["phase"] == "action" and d["graveyard"] == [hl.EMPEROR]


def test_untracked_clone_plays_the_same_game_without_views() -> None:
    import random

    st = setup_done(seed=21)
    fast = st.clone(track=False)
    rng1, rng2 = random.Random(5), random.Random(5)
    for _ in range(200):
        if st.is_over:
            break
        st.play(rng1.choice(st.legal_moves()))
        fast.play(rng2.choice(fast.legal_moves()))
    strip = {"known", "history", "last"}
    a = {k: v for k, v in st.to_json().items() if k not in strip}
    b = {k: v for k, v in fast.to_json().items() if k not in strip}
    assert a == b and fast.known == [{} for _ in range(4)]
    with pytest.raises(ValueError, match="no views"):
        fast.view(0)
    with pytest.raises(ValueError, match="determinise"):
        fast.determinize(0, random.Random(1))


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_first_player_is_random_from_the_seed(players: int) -> None:
    """§2.5 (ruling corrected): the start player is drawn from the seed, so every seat starts some games."""
    firsts = {hl.new_game(players=players, seed=s).first for s in range(60)}
    assert firsts == set(range(players))
    assert hl.new_game(players=players, seed=7).first == hl.new_game(players=players, seed=7).first
