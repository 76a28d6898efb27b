"""The keyed generator, game secrets, golden first deals of both games, the random start player and legacy
replay."""

from __future__ import annotations

import random
from collections import Counter
from hashlib import blake2b

import pytest

from throne.games import hidden_leaders as hl
from throne.games import leaders
from throne.games.legacy_rng import tuple_hash
from throne.games.randomness import (
    LEGACY_RNG,
    RNG_VERSION,
    KeyedRandom,
    SeedError,
    check_seed,
    keyed,
    new_secret,
    seed_key,
)

SECRET_A = "00112233445566778899aabbccddeeff"
SECRET_B = "f0e1d2c3b4a5968778695a4b3c2d1e0f"


# ------------------------------------------------------------------ the generator


def test_generator_is_blake2b_in_counter_mode() -> None:
    """The construction is pinned: a reimplementation from the docstring gives the same first block."""
    k = blake2b(b"test", key=bytes.fromhex(SECRET_A), digest_size=32, person=b"throne.rng.v2").digest()
    block = blake2b((0).to_bytes(8, "big"), key=k, digest_size=64).digest()
    assert keyed(SECRET_A, "test").getrandbits(64) == int.from_bytes(block[:8], "big")
    assert seed_key(7) == blake2b(b"7", digest_size=32, person=b"throne.seed.v2").digest()


@pytest.mark.parametrize(
    ("seed", "purpose", "first"),
    [
        (SECRET_A, "test", [849, 304, 120, 217, 215, 973]),
        (7, "test", [483, 832, 228, 640, 983, 298]),
    ],
)
def test_golden_draws(seed: int | str, purpose: str, first: list[int]) -> None:
    r = keyed(seed, purpose)
    assert [r.randbelow(1000) for _ in range(6)] == first


def test_streams_are_deterministic_and_independent() -> None:
    def draws(seed: int | str, purpose: str) -> list[int]:
        r = keyed(seed, purpose)
        return [r.getrandbits(32) for _ in range(8)]

    assert draws(SECRET_A, "deck") == draws(SECRET_A, "deck")
    assert len({tuple(draws(s, p)) for s in (SECRET_A, SECRET_B, 1, 2) for p in ("deck", "leaders")}) == 8


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 100, 2**40 + 3])
def test_randbelow_stays_in_range(n: int) -> None:
    r = keyed(SECRET_B, f"range/{n}")
    assert all(0 <= r.randbelow(n) < n for _ in range(200))


def test_draws_are_roughly_uniform() -> None:
    r = keyed(SECRET_A, "uniform")
    counts = Counter(r.randbelow(6) for _ in range(6000))
    assert set(counts) == set(range(6)) and all(850 < c < 1150 for c in counts.values())
    assert all(0.0 <= r.random() < 1.0 for _ in range(100))


def test_shuffle_and_choice() -> None:
    r = keyed(SECRET_A, "shuffle")
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20)) and items != list(range(20))
    seen = Counter(tuple(_shuffled(SECRET_A, f"s{i}", [0, 1, 2])) for i in range(600))
    assert len(seen) == 6 and min(seen.values()) > 60
    assert keyed(SECRET_A, "c").choice("xyz") in "xyz"
    with pytest.raises(IndexError):
        keyed(SECRET_A, "c").choice([])
    with pytest.raises(ValueError):
        keyed(SECRET_A, "c").randbelow(0)


def _shuffled(seed: str, purpose: str, items: list[int]) -> list[int]:
    keyed(seed, purpose).shuffle(items)
    return items


@pytest.mark.parametrize(
    ("seed", "ok"),
    [
        (0, True), (2**200, True), (SECRET_A, True), (SECRET_A * 4, True), (-1, False), (True, False),
        ("abc", False), (SECRET_A[:-1] + "g", False), (SECRET_A + "0", False), (SECRET_A * 5, False),
        (1.5, False), (None, False),
    ],
)
def test_seed_validation(seed: object, ok: bool) -> None:
    if ok:
        assert check_seed(seed) == seed
        KeyedRandom(seed, "x")  # type: ignore[arg-type]
    else:
        with pytest.raises(SeedError):
            check_seed(seed)


def test_new_secrets_are_128_bits_and_fresh() -> None:
    random.seed(12345)
    a = new_secret()
    random.seed(12345)
    b = new_secret()
    assert len(a) == 32 and int(a, 16) >= 0 and a != b


# ------------------------------------------------------------------ deals


def test_default_deals_use_fresh_secrets_not_the_random_module() -> None:
    """Resetting Python's `random` to the same 31-bit value does not repeat a deal: it comes from 128 bits."""
    deals = []
    for _ in range(2):
        random.seed(2**31 - 1)
        st = hl.new_game(players=4)
        assert isinstance(st.seed, str) and len(st.seed) == 32
        deals.append((st.seed, st.leaders, st.hands, st.tavern))
        random.seed(2**31 - 1)
        deals.append(leaders.new_game().deck)
    assert deals[0] != deals[2] and deals[1] != deals[3]


def test_golden_first_deals_hidden_leaders() -> None:
    st = hl.new_game(players=4, seed=SECRET_A)
    assert st.leaders == ["myrad", "enned", "pavyr", "cyra"]
    assert st.tavern == ["battle-pet-master", "vegetarian-sharkguard", "curious-cat-lover"]
    assert st.hands[0] == ["bored-goblin", "flailing-knight", "double-shielded-turtle", "ghastly-granny",
                           "half-headed-wizard"]
    assert st.harbor[:3] == ["watchful-witch", "hangry-barbarian", "overworked-amazon"]
    assert st.first == 3
    st = hl.new_game(players=4, seed=SECRET_B)
    assert st.leaders == ["xiadul", "cyra", "lemron", "pavyr"]
    assert st.tavern == ["bored-goblin", "crow-carrier", "nagging-northman"]
    assert st.first == 2
    st = hl.new_game(players=3, seed=5)
    assert st.leaders == ["enned", "pavyr", "lemron"] and st.first == 0
    assert st.tavern == ["will-bending-witch", "queer-quartermaster", "unconfident-executioner"]


def test_golden_first_deals_leaders() -> None:
    assert leaders.new_game(seed=SECRET_A).position() == (
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=RG,AS,PR "
        "deck=IL,AC,HE,JA,VI,NE,RI,BR,BM,CL,MA,AR,WA recruits=1 turns=0"
    )
    assert leaders.new_game(seed=SECRET_B).position() == (
        "S=Ld1 N=Ld7 turn=S phase=action acted=- market=PR,RI,VI "
        "deck=BM,NE,CL,RG,JA,AC,IL,BR,WA,AR,MA,HE,AS recruits=1 turns=0"
    )


def test_legacy_deals_are_unchanged() -> None:
    """Generator version 1 deals exactly as `random.Random(seed)` always did."""
    cards = list(leaders.state.CARDS)
    random.Random(7).shuffle(cards)
    st = leaders.new_game(seed=7, rng=LEGACY_RNG)
    assert st.market_cards == cards[:3] and st.deck == cards[3:]
    with pytest.raises(ValueError, match="integer"):
        leaders.new_game(seed=SECRET_A, rng=LEGACY_RNG)
    old = hl.new_game(players=4, seed=101, rng=LEGACY_RNG)
    assert old.first == 0 and old.rng_version == LEGACY_RNG
    assert "rng" not in old.record() and "rng" not in old.to_json()
    assert hl.new_game(players=4, seed=101).record()["rng"] == RNG_VERSION


@pytest.mark.parametrize(
    "key",
    [(), (0,), (-1,), (5, 2**64, -(2**70)), (1, (2, 3), (4,), 2**61 - 1, -2)],
)
def test_legacy_tuple_hash_matches_cpython(key: tuple) -> None:
    assert tuple_hash(key) == hash(key)


def test_legacy_position_key_hash_matches_cpython() -> None:
    st = hl.new_game(players=5, seed=202, rng=LEGACY_RNG)
    assert tuple_hash(st._legacy_key()) == hash(st._legacy_key())


# ------------------------------------------------------------------ the start player


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_start_player_is_random_over_every_seat(players: int) -> None:
    firsts = Counter(hl.new_game(players=players, seed=f"{i:032x}").first for i in range(12 * players))
    assert set(firsts) == set(range(players))


@pytest.mark.parametrize("seed", [SECRET_A, SECRET_B, 11])
def test_start_player_plays_the_first_turn_and_replays(seed: int | str) -> None:
    st = hl.new_game(players=4, seed=seed)
    assert st.turn == st.first
    for seat in range(4):  # the simultaneous setup is entered seat by seat from seat 0
        assert st.to_play == seat
        st.play(st.legal_moves()[0])
    assert st.phase == "action" and st.to_play == st.first
    st.play("pass")
    again = hl.record_to_state(st.record())
    assert again.first == st.first and again.to_json() == st.to_json()
    assert hl.from_json(st.to_json()).to_json() == st.to_json()


# ------------------------------------------------------------------ draws during play


def test_each_draw_has_its_own_stream() -> None:
    st = hl.new_game(players=4, seed=SECRET_A)
    a = [st.rng("fate").getrandbits(64) for _ in range(3)]
    assert len(set(a)) == 3 and st.draws == 3
    again = hl.new_game(players=4, seed=SECRET_A)
    assert [again.rng("fate").getrandbits(64) for _ in range(3)] == a
    assert hl.new_game(players=4, seed=SECRET_A).rng("harbor").getrandbits(64) != a[0]


def test_harbor_reshuffle_comes_from_the_keyed_generator() -> None:
    st = hl.new_game(players=2, seed=SECRET_B)
    st.wilderness, st.harbor = st.harbor[:10], []
    expected = st.wilderness[:]
    keyed(SECRET_B, "hidden-leaders/harbor/0").shuffle(expected)
    assert st.draw_harbor() == expected[0] and st.harbor == expected[1:] and st.draws == 1
