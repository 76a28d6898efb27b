"""Typed frame references: every `Filter` and `Cont` names a registered function (and back), the rules push
keyword-built `Ask`s, and a frame stored as plain JSON strings reads back as the same typed decision."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.frames import Ask, Cont, Filter, FrameError, Kind, check_registry
from throne.games.hidden_leaders.state import CONT, FILTERS

ENGINE = Path(hl.__file__).parent


def test_every_reference_is_registered_and_every_registered_name_has_a_reference() -> None:
    check_registry(FILTERS, CONT)
    assert {f.value for f in Filter} == set(FILTERS) and {c.value for c in Cont} == set(CONT)


@pytest.mark.parametrize(("filters", "conts"), [({**FILTERS, "extra": None}, CONT), (FILTERS, {})])
def test_a_dangling_or_unnamed_registration_is_refused(filters: dict, conts: dict) -> None:
    with pytest.raises(FrameError):
        check_registry(filters, conts)


def test_the_rules_push_typed_asks_only() -> None:
    raw = []
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            fn = node.func if isinstance(node, ast.Call) else None
            if isinstance(fn, ast.Attribute) and fn.attr == "ask":
                raw.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Ask":
                assert not node.args, f"{path.name}:{node.lineno}: Ask built with positional fields"
    assert raw == []


def test_ask_takes_keywords_only() -> None:
    with pytest.raises(TypeError):
        Ask(Kind.PICK_HERO, 0, None, Filter.HERO, Cont.BURY)  # type: ignore[misc]


def test_a_frame_keeps_its_json_and_old_json_reads_back_typed() -> None:
    ask = Ask(kind=Kind.PICK_HERO, seat=1, card="x", filter=Filter.HERO, then=Cont.BURY, may=True,
              ctx={"ps": [0, 1], "up": False})
    text = json.dumps(ask.frame(asif=False), sort_keys=True)
    old = ('{"card": "x", "f": "hero", "kind": "pick-hero", "may": true, "op": "ask", "ps": [0, 1], '
           '"seat": 1, "then": "bury", "up": false}')
    assert text == old
    again = Ask.of(json.loads(old))
    assert again == ask and type(again.filter) is Filter and type(again.then) is Cont
    with pytest.raises(FrameError):
        Ask.of({**json.loads(old), "then": "no-such-continuation"})


def test_a_state_in_mid_resolution_round_trips_through_json() -> None:
    rng, checked = random.Random(2), 0
    st = hl.new_game(players=3, seed=5, modules=("core", "kickstarter", "queens", "legends"))
    while not st.is_over:
        if st.phase == "resolve" and st.stack:
            again = hl.from_json(json.loads(json.dumps(st.to_json())))
            assert again.legal_moves() == st.legal_moves() and again.stack == st.stack
            checked += 1
        st.play(rng.choice(st.legal_moves()))
    assert checked > 0
