"""Information model (§7.2): views hide exactly what a seat cannot know; determinize keeps the view."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from throne.games import hidden_leaders as hl

from .helpers import build

MODULE_SETS = [("core",), ("core", "kickstarter"), ("core", "kickstarter", "queens"), ("core", "legends"),
               ("core", "kickstarter", "queens", "legends")]
MODULE_IDS = ["core", "core+ks", "core+ks+queens", "core+legends", "all"]


def random_state(seed: int, players: int, modules: tuple[str, ...], steps: int) -> hl.State:
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=modules)
    for _ in range(steps):
        if st.is_over:
            break
        st.play(rng.choice(st.legal_moves()))
    return st


def visible_cards(st: hl.State, seat: int | None) -> set[str]:
    vis = {c for p in st.parties for c, u in p if u} | {c for c in st.tavern if c} | set(st.graveyard)
    if st.last:
        vis |= set(re.findall(r"[a-z]+(?:-[a-z]+)+", st.last[1]))
    if st.stack:
        vis |= set(st.chain)
        for fr in st.stack:
            vis |= set(fr.get("pub", ()))
            if fr.get("op") == "ask" and fr.get("card"):
                vis.add(fr["card"])
            for key in ("target",):
                if key in fr:
                    vis.add(fr[key])
    if seat is not None:
        vis |= set(st.hands[seat]) | {c for c, _ in st.parties[seat]} | set(st.known[seat])
        for fr in st.stack:
            if fr.get("seat") == seat:
                vis |= set(fr.get("hid", ()))
    return vis


def tokens(view: dict) -> set[str]:
    return set(re.findall(r"[a-z]+(?:-[a-z]+)+", json.dumps(view)))


STATES = [(seed, 2 + seed % 5, MODULE_SETS[seed % len(MODULE_SETS)], steps) for seed in range(12)
          for steps in (3, 40, 120)]
# the rows above pair legends with 5-6 players only: the leader pool of 2-4 players too
STATES += [(seed, players, ("core", "legends"), steps) for seed, players in ((12, 2), (13, 3), (14, 4))
           for steps in (40, 120)]


@pytest.mark.parametrize(("seed", "players", "modules", "steps"), STATES)
def test_views_leak_nothing(seed: int, players: int, modules: tuple[str, ...], steps: int) -> None:
    st = random_state(seed, players, modules, steps)
    if st.is_over:
        return
    for seat in [None, *range(players)]:
        v = st.view(seat)
        assert "seed" not in v
        hidden = set(hl.CARDS) - visible_cards(st, seat)
        leaked = tokens(v) & hidden
        assert not leaked, (seat, leaked)
        assert_no_other_leader(st, seat, v)
        for p in range(players):
            if p != seat:
                assert v["leaders"][p] is None and v["hands"][p] == {"count": len(st.hands[p])}
        assert isinstance(v["harbor"], dict) and isinstance(v["wilderness"], dict)
        assert v["legal_moves"] == (st.legal_moves() if seat == st.to_play else [])


def assert_no_other_leader(st: hl.State, seat: int | None, v: dict) -> None:
    """No leader id but the seat's own appears in its view (the leader pool is secret too)."""
    text = json.dumps(v)
    own = st.leaders[seat] if seat is not None else None
    for lead in hl.LEADERS:
        if lead != own:
            assert f'"{lead}"' not in text, (seat, lead)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_views_hide_the_leader_pool_and_the_fate_cards(players: int) -> None:
    """legends: at every pending Fate only the chooser sees the drawn cards; no view names another leader."""
    fates = 0
    for seed in range(40):
        if fates >= 3:
            break
        rng = random.Random(seed)
        st = hl.new_game(players=players, seed=seed, modules=("core", "legends"))
        while not st.is_over:
            top = st.stack[-1] if st.phase == "resolve" else None
            if top is not None and top["then"] == "fate":
                fates += 1
                for seat in [None, *range(players)]:
                    v = st.view(seat)
                    assert_no_other_leader(st, seat, v)
                    want = list(top["hid"]) if seat == top["seat"] else {"count": 2}
                    assert v["fate"] == {"seat": top["seat"], "card": top["card"], "cards": want}
                    if seat != top["seat"]:
                        assert v["legal_moves"] == []
                        assert not any(f'"{k}"' in json.dumps(v) for k in top["hid"])
                    d = st.determinize(top["seat"] if seat is None else seat, random.Random(seed))
                    assert d.view(seat) == v or seat is None
            st.play(rng.choice(st.legal_moves()))
    assert fates > 0


@pytest.mark.parametrize(("seed", "players", "modules", "steps"), STATES)
def test_determinize_keeps_the_view(seed: int, players: int, modules: tuple[str, ...], steps: int) -> None:
    st = random_state(seed, players, modules, steps)
    for seat in range(players):
        d = st.determinize(seat, random.Random(seat))
        assert d.view(seat) == st.view(seat)
        assert d.view(None) == st.view(None)
        hl.from_json(d.to_json())  # a complete, valid state
        rng = random.Random(1)
        for _ in range(30):  # and a playable one
            if d.is_over:
                break
            d.play(rng.choice(d.legal_moves()))


def test_determinize_redeals_the_unknown() -> None:
    st = random_state(5, 4, ("core",), 20)
    dealt = [st.determinize(0, random.Random(i)) for i in range(5)]
    assert any(d.hands[1] != st.hands[1] for d in dealt)
    assert any(d.harbor != st.harbor for d in dealt)
    assert all(d.hands[0] == st.hands[0] and d.parties[0] == st.parties[0] for d in dealt)
    assert all(d.leaders[0] == st.leaders[0] and d.seed != st.seed and d.history == [] for d in dealt)


@pytest.mark.parametrize(("seed", "players", "modules", "steps"), STATES)
def test_determinize_depends_only_on_what_the_seat_knows(
    seed: int, players: int, modules: tuple[str, ...], steps: int
) -> None:
    """Two states a seat cannot tell apart give it the same worlds, so a bot searching them cannot cheat."""
    st = random_state(seed, players, modules, steps)
    if st.is_over:
        return
    seat = st.to_play
    other = st.determinize(seat, random.Random(99))
    assert other.view(seat) == st.view(seat)
    for k in range(3):
        mine = st.determinize(seat, random.Random(k)).to_json()
        theirs = other.determinize(seat, random.Random(k)).to_json()
        assert mine == theirs


def test_known_cards_survive_determinize() -> None:
    st = build({"players": 3, "parties": {1: "~leery-lizard ~keen-koi"}, "hands": {2: "ace-fighter"},
                "harbor": "furious-frog short-sighted-soldier", "wilderness": "rotting-orangutan"})
    st.known[0] = {"keen-koi": "d1", "ace-fighter": "h2", "rotting-orangutan": "w"}
    for i in range(10):
        d = st.determinize(0, random.Random(i))
        assert d.parties[1][1] == ("keen-koi", False) and d.hands[2] == ["ace-fighter"]
        assert d.wilderness == ["rotting-orangutan"]
    v = st.view(0)
    assert {"where": "party 1", "card": "keen-koi", "index": 1} in v["known"]
    assert v["parties"][1][1] == {"card": None, "up": False}


def test_two_states_differing_in_secrets_give_equal_views() -> None:
    a = build({"players": 3, "hands": {0: "ace-fighter", 1: "keen-koi leery-lizard"},
               "parties": {2: "~furious-frog rotting-orangutan"},
               "harbor": "depressed-druid flailing-knight"})
    b = build({"players": 3, "hands": {0: "ace-fighter", 1: "flailing-knight leery-lizard"},
               "parties": {2: "~depressed-druid rotting-orangutan"}, "harbor": "keen-koi furious-frog"})
    b.leaders[1], b.leaders[2] = "enned", "pavyr"
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)


def test_knowledge_goes_stale_when_a_known_card_moves_unseen() -> None:
    st = build({"players": 3, "hands": {1: "keen-koi leery-lizard"}})
    st.known[0] = {"keen-koi": "h1"}
    st.turn = 1
    st.play("discard leery-lizard")  # seat 0 cannot tell which card left seat 1's hand
    assert st.known[0] == {} and st.known[1] == {"leery-lizard": "w"}


def test_game_over_reveals_everything() -> None:
    st = random_state(2, 3, ("core",), 10_000)
    assert st.is_over
    v = st.view(None)
    assert v["leaders"] == st.leaders and v["hands"] == st.hands and v["harbor"] == st.harbor
    assert v["scores"] == st.scores() and v["decision"] is None and v["winner"] == st.winner


def test_public_forms_hide_secret_choices() -> None:
    st = build({"players": 3, "hands": {0: "battle-pet-master keen-koi"}})
    st.play("play battle-pet-master")
    st.play("hand keen-koi")
    assert st.view(1)["last_move"] == {"seat": 0, "move": "hand card"}
    assert st.history[-1] == (0, "hand keen-koi")


def assert_knowledge_is_true(st: hl.State) -> None:
    """Every fact a seat holds is true: knowledge is only ever forgotten, never wrong."""
    for seat, facts in enumerate(st.known):
        for card, zone in facts.items():
            if zone == "w":
                assert card in st.wilderness, (seat, card, zone)
            elif zone[0] == "h":
                assert card in st.hands[int(zone[1:])], (seat, card, zone)
            else:
                assert (card, False) in st.parties[int(zone[1:])], (seat, card, zone)
            assert zone == "w" or int(zone[1:]) != seat


@settings(max_examples=10, deadline=None)
@given(seed=hs.integers(0, 10**6), players=hs.integers(2, 6), modules=hs.sampled_from(MODULE_SETS))
def test_json_round_trip_at_every_step(seed: int, players: int, modules: tuple[str, ...]) -> None:
    rng = random.Random(seed)
    st = hl.new_game(players=players, seed=seed, modules=modules)
    steps = 0
    while not st.is_over and steps < 5000:
        data = json.loads(json.dumps(st.to_json()))
        back = hl.from_json(data)
        assert back.to_json() == data and back.legal_moves() == st.legal_moves()
        if steps % 7 == 0:
            seat = rng.randrange(players)
            assert back.view(seat) == st.view(seat)
            assert_knowledge_is_true(st)
        move = rng.choice(st.legal_moves())
        st.play(move)
        back.play(move)
        assert back.to_json() == st.to_json()
        steps += 1
    assert st.is_over, "a random game did not end"
    assert hl.record_to_state(st.record()).to_json() == st.to_json()
