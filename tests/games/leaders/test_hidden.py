"""The unseen deck is the only secret of Leaders: `blind_record` hides its order, `redeal` samples a world."""

from __future__ import annotations

import random

from throne.games import leaders


def _midgame(seed: int, plies: int) -> leaders.State:
    st = leaders.new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if st.is_over:
            break
        st.play(rng.choice(st.legal_moves()))
    return st


def test_blind_record_replays_the_public_game_with_a_sorted_deck() -> None:
    for seed in range(6):
        st = _midgame(seed, 40)
        rec = leaders.blind_record(st)
        again = leaders.record_to_state(rec)
        public = st.position().split(" deck=")[0]
        assert again.position().split(" deck=")[0] == public and again.record()["moves"] == rec["moves"]
        assert again.deck[again.deck_pos :] == sorted(st.deck[st.deck_pos :])
        assert again.deck[: again.deck_pos] == st.deck[: st.deck_pos]  # drawn in public: order kept


def test_blind_record_does_not_depend_on_the_deck_order() -> None:
    st = leaders.new_game(seed="00112233445566778899aabbccddeeff")
    other = leaders.from_position(st.position().split(" deck=")[0] + " deck=" + ",".join(
        sorted(st.position().split(" deck=")[1].split()[0].split(","), reverse=True)) + " recruits=1 turns=0")
    assert st.deck != other.deck
    assert leaders.blind_record(st) == leaders.blind_record(other)


def test_redeal_shuffles_only_the_unseen_cards() -> None:
    st = _midgame(3, 30)
    worlds = [leaders.redeal(st, random.Random(k)) for k in range(5)]
    assert len({tuple(w.deck) for w in worlds}) > 1
    for w in worlds:
        assert w.deck[: w.deck_pos] == st.deck[: st.deck_pos] and sorted(w.deck) == sorted(st.deck)
        assert w.key() == st.key() and w.legal_moves() == st.legal_moves()
    assert st.position() == _midgame(3, 30).position()  # the original is untouched
