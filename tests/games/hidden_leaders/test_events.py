"""Move events: every card row of §6 (and legends) described to every seat, and no event names a card the
seat cannot see; a few rows checked event by event (play, markers, bury, look, discard, draw, ending)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.events import EVENT_TYPES, events, locate
from throne.games.hidden_leaders.state import State

from . import test_cards, test_legends_cards
from .helpers import build

TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")
LEGENDS = ("core", "kickstarter", "queens", "legends")


def _names(obj: Any) -> set[str]:
    return {t for t in TOKEN.findall(json.dumps(obj)) if t in hl.CARDS}


def _may_place(st: State, viewer: int | None, card: str, ev: dict[str, Any]) -> bool:
    """A card named going into a zone hidden from ``viewer``: the viewer knows it is there now, or it left a
    zone everybody sees (the Tavern, the Graveyard, a face-up hero) or the viewer's own hand or party."""
    src, dst = ev["from"], ev["to"]
    zone, seat = dst["zone"], dst.get("seat")
    hidden = (zone in ("wilderness", "harbor")
              or (zone in ("hand", "pending") and seat not in (None, viewer))
              or (zone == "party" and not dst["up"] and seat != viewer))
    if not hidden:
        return True
    if src["zone"] in ("tavern", "graveyard") or (src["zone"] == "party" and src["up"]):
        return True
    if viewer is None:
        return False
    if src.get("seat") == viewer and src["zone"] in ("hand", "party", "pending"):
        return True
    code = {"hand": f"h{seat}", "party": f"d{seat}", "wilderness": "w"}.get(zone)
    return code is not None and st.known[viewer].get(card) == code


def _play(st: State, move: str, log: list[list[list[dict[str, Any]]]]) -> None:
    """Play ``move`` and check its events for every viewer; ``log`` gets them (spectator first)."""
    before = st.clone()
    st.play(move)
    per = []
    for viewer in (None, *range(st.players)):
        evs = events(before, move, st, viewer)
        assert {e["type"] for e in evs} <= set(EVENT_TYPES)
        if not st.is_over:  # nothing a seat could not see before or after the move
            leak = _names(evs) - _names(before.view(viewer)) - _names(st.view(viewer))
            assert not leak, (viewer, move, leak, evs)
            for ev in evs:
                for card in ev.get("cards", []) if ev["type"] == "cards" else []:
                    assert _may_place(st, viewer, card, ev), (viewer, move, ev)
        per.append(evs)
    # what moved is described: the counts add up to the cards that changed place (the played one aside)
    old, new = locate(before), locate(st)
    changed = sum(1 for c, z in new.items() if c in old and old[c] != z)
    played = 1 if move.startswith("play ") and before.phase == "action" else 0
    for evs in per:
        counted = sum(e["count"] for e in evs if e["type"] == "cards")
        assert counted in (changed - played, changed), (move, evs)
    log.append(per)


def _run(card: str, setup: dict[str, Any], moves: list[Any]) -> list[list[list[dict[str, Any]]]]:
    st = build(setup)
    st.hands[st.turn].append(card)
    st.changed()
    log: list[list[list[dict[str, Any]]]] = []
    _play(st, f"play {card}", log)
    for m in moves:
        if isinstance(m, list):
            continue
        if isinstance(m, tuple):  # a Fate: both drawn cards made ``kind``, then chosen (described too)
            _, seat, kind = m
            assert st.to_play == seat
            st.stack[-1] = {**st.stack[-1], "hid": [kind, kind]}
            st.changed()
            _play(st, f"fate {kind}", log)
            continue
        _play(st, m, log)
    return log


ROWS = [pytest.param(r[0], r[1], r[2], id=f"{r[0]}-{r[4]}") for r in test_cards.ROWS] + [
    pytest.param(r[0], {"modules": LEGENDS, **r[1]}, r[2], id=f"legends-{r[0]}-{r[4]}")
    for r in test_legends_cards.ROWS
]


@pytest.mark.parametrize(("card", "setup", "moves"), ROWS)
def test_every_card_row_is_described_without_leaks(card: str, setup: dict[str, Any], moves: list) -> None:
    log = _run(card, setup, moves)
    for evs in log[0]:
        assert evs[0] == {"type": "play", "seat": 0, "card": card}


SSS, PIG = "short-sighted-soldier", "pigmented-war-pig"


def test_bury_after_a_marker_choice() -> None:
    log = _run("shaky-sharpshooter", {"parties": {1: f"{SSS} {PIG}"}}, ["R+1", f"1:{SSS}"])
    marker, pick = log[1][0], log[2][0]  # as the spectator sees them
    assert marker == [{"type": "markers", "option": "R+1", "red": [4, 5], "green": [4, 4]}]
    assert pick[0] == {"type": "decision", "seat": 0, "kind": "pick-hero", "card": "shaky-sharpshooter",
                       "move": f"1:{SSS}"}
    assert pick[1] == {"type": "cards", "verb": "bury", "count": 1, "cards": [SSS],
                       "from": {"zone": "party", "seat": 1, "up": True}, "to": {"zone": "graveyard"}}


def test_a_look_names_the_card_only_to_the_seat_that_looked() -> None:
    st = build({"players": 3, "parties": {1: "~leery-lizard", 2: "~furious-frog"}, "hands": {0: "keen-koi"}})
    card = "curious-troll"  # look at up to 2 face-down heroes
    st.hands[0].append(card)
    st.changed()
    log: list[list[list[dict[str, Any]]]] = []
    _play(st, f"play {card}", log)
    while st.phase == "resolve" and st.to_play == 0:
        options = [m for m in st.legal_moves() if m.startswith("1:down")] or st.legal_moves()
        _play(st, options[0], log)
    looks = {viewer: [e for evs in log for e in evs[viewer + 1 if viewer is not None else 0]
                      if e["type"] == "look"] for viewer in (None, 0, 1)}
    assert [e["cards"] for e in looks[0]] == [["leery-lizard"], ["furious-frog"]]
    for viewer in (None, 1):
        assert looks[viewer] == [{**e, "cards": []} for e in looks[0]]
    assert looks[None][0]["seat"] == 0 and looks[None][0]["owner"] == 1 and looks[None][0]["zone"] == "party"


def test_discards_draws_and_the_turn_end() -> None:
    st = build({"players": 2, "hands": {0: "keen-koi leery-lizard furious-frog"}, "harbor": "ace-fighter "
                "almost-evil-scholar angry-priestess", "tavern": "- - -"})
    log: list[list[list[dict[str, Any]]]] = []
    _play(st, "discard keen-koi", log)
    spectator, own = log[0][0], log[0][1]
    hidden = {"type": "cards", "verb": "discard", "count": 1, "cards": [],
              "from": {"zone": "hand", "seat": 0}, "to": {"zone": "wilderness"}}
    assert hidden in spectator and {**hidden, "cards": ["keen-koi"]} in own
    while st.turn == 0:
        _play(st, st.legal_moves()[0], log)
    seen = [e for per in log for e in per[2]]  # seat 1 watches seat 0 draw from the Harbor: counts only
    draws = [e for e in seen if e["type"] == "cards" and e["verb"] == "draw"]
    assert draws and all(e["cards"] == [] and e["from"] == {"zone": "harbor"} for e in draws)
    assert seen[-1]["type"] == "turn-end" or any(e["type"] == "turn-end" for e in seen)


def test_a_whole_game_ends_with_the_reason() -> None:
    import random

    rng = random.Random(4)
    st = hl.new_game(players=3, seed=4)
    last: list[dict[str, Any]] = []
    while not st.is_over:
        move = rng.choice(st.legal_moves())
        before = st.clone()
        st.play(move)
        last = events(before, move, st, None)
    end = last[-1]
    assert end["type"] == "game-end" and end["faction"] == st.winning_faction and end["winner"] == st.winner
    assert end["leaders"] == st.leaders and end["seats"] and end["threshold"] == 7
    assert end["why"] in ("war", "balance", "red-ahead", "green-ahead")
    assert all(count >= 7 for count in end["seats"].values())


def test_legends_events_guardian_marker_fate_and_skipped_turns() -> None:
    seen: dict[str, list[dict[str, Any]]] = {}
    for r in test_legends_cards.ROWS:
        for per in _run(r[0], {"modules": LEGENDS, **r[1]}, r[2]):
            for e in per[0]:  # the spectator's events
                seen.setdefault(e["type"], []).append(e)
    assert any("guardian" in e and e["guardian"][0] != e["guardian"][1] for e in seen["markers"])
    assert seen["fate"] and all(set(e) == {"type", "seat"} for e in seen["fate"])  # drawn kinds stay secret
    assert any(e["kind"] == "fate" for e in seen["decision"])
    assert seen["skip-next"]


@pytest.mark.parametrize("modules", [("core",), LEGENDS])
def test_random_games_leak_nothing_to_any_seat(modules: tuple[str, ...]) -> None:
    """Whole games: every event a seat or a spectator gets names only cards it saw before or after it."""
    import random

    rng = random.Random(len(modules))
    for game in range(2):
        st = hl.new_game(players=3 + game, seed=game, modules=modules)
        log: list[list[list[dict[str, Any]]]] = []
        while not st.is_over:
            _play(st, rng.choice(st.legal_moves()), log)
        assert log[-1][0][-1]["type"] == "game-end"
