"""Build compact Hidden Leaders positions for rule tests.

A setup dict names only what a test needs; parties are strings of card ids where ``~card`` is face down::

    build({"players": 3, "markers": (6, 4), "parties": {1: "leery-lizard ~furious-frog"},
           "hands": {0: "keen-koi"}, "tavern": "ace-fighter - -", "graveyard": "deceased-emperor"})

Cards not named are simply absent (the engine does not need the whole deck for a rule test). With
``"modules"`` naming ``legends`` the state has a Guardian marker (``"guardian"``, default 1) and ``"skips"``;
``"known"`` presets what seats know (``{seat: {card: zone}}``).

In the moves of ``run_card``, ``("fate", seat, kind)`` asserts that ``seat`` must choose a Fate, makes both
drawn cards ``kind`` (the draw is random) and chooses it.
"""

from __future__ import annotations

from typing import Any

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders import rules
from throne.games.hidden_leaders.state import State


def cards(text: str | list[str] | None) -> list[str]:
    if text is None:
        return []
    return text.split() if isinstance(text, str) else list(text)


def party(text: str) -> list[tuple[str, bool]]:
    return [(c[1:], False) if c.startswith("~") else (c, True) for c in cards(text)]


def party_text(p: list[tuple[str, bool]]) -> str:
    return " ".join(c if u else "~" + c for c, u in p)


def build(spec: dict[str, Any]) -> State:
    st = State()
    n = st.players = spec.get("players", 3)
    st.variant = spec.get("variant", "full")
    st.modules = tuple(spec.get("modules", ("core", "kickstarter", "queens")))
    if "legends" in st.modules:
        st.guardian = spec.get("guardian", 1)
        st.skips = list(spec.get("skips", []))
    st.seed = spec.get("seed", 1)
    st.red, st.green = spec.get("markers", (4, 4))
    st.leaders = cards(spec.get("leaders")) or list(hl.LEADERS)[:n]
    st.hands = [cards(spec.get("hands", {}).get(p)) for p in range(n)]
    st.parties = [party(spec.get("parties", {}).get(p, "")) for p in range(n)]
    tav = [None if c == "-" else c for c in cards(spec.get("tavern"))]
    st.tavern = [*tav, None, None, None][:3]
    st.harbor = cards(spec.get("harbor"))
    st.wilderness = cards(spec.get("wilderness"))
    st.graveyard = cards(spec.get("graveyard"))
    st.turn = spec.get("turn", 0)
    st.phase = spec.get("phase", "action")
    st.known = [dict(spec.get("known", {}).get(p, {})) for p in range(n)]
    st.changed()
    return st


def check(st: State, expect: dict[str, Any]) -> None:
    """Compare the parts of ``st`` named in ``expect``."""
    for key, want in expect.items():
        if key == "markers":
            assert st.markers == tuple(want), f"markers {st.markers} != {want}"
        elif key.startswith("party"):
            got = party_text(st.parties[int(key[5:])])
            assert got == " ".join(cards(want)), f"{key}: {got!r} != {want!r}"
        elif key.startswith("hand"):
            got = sorted(st.hands[int(key[4:])])
            assert got == sorted(cards(want)), f"{key}: {got} != {want}"
        elif key == "tavern":
            got = " ".join(c or "-" for c in st.tavern)
            assert got == want, f"tavern {got!r} != {want!r}"
        elif key in ("graveyard", "wilderness", "harbor"):
            got = getattr(st, key)
            if isinstance(want, set):
                assert set(got) == want, f"{key}: {got} != {want}"
            else:
                assert got == cards(want), f"{key}: {got} != {want}"
        elif key == "phase":
            assert st.phase == want, f"phase {st.phase} != {want}"
        elif key == "to_play":
            assert st.to_play == want
        elif key in ("turn", "skips", "guardian"):
            assert getattr(st, key) == want, f"{key} {getattr(st, key)} != {want}"
        elif key.startswith("known"):
            got = st.known[int(key[5:])]
            assert got == want, f"{key}: {got} != {want}"
        elif key == "legal":
            assert st.legal_moves() == sorted(want)
        else:
            raise KeyError(key)


def run_card(card: str, spec: dict[str, Any], moves: list[Any]) -> State:
    """Put ``card`` into the hand of the turn player, play it, then apply ``moves``.

    A move that is a list asserts the current legal moves instead of playing.
    """
    st = build(spec)
    st.hands[st.turn].append(card)
    st.changed()
    st.play(f"play {card}")
    for m in moves:
        if isinstance(m, list):
            assert st.phase == "resolve", f"expected a decision {m}, but the resolution is over"
            assert st.legal_moves() == sorted(m), f"legal {st.legal_moves()} != {sorted(m)}"
        elif isinstance(m, tuple):
            force_fate(st, *m[1:])
        else:
            st.play(m)
    return st


def force_fate(st: State, seat: int, kind: str) -> None:
    """Assert a pending Fate of ``seat``, make both drawn cards ``kind`` and choose it."""
    assert st.phase == "resolve", "expected a Fate, but the resolution is over"
    fr = st.stack[-1]
    assert fr.get("then") == "fate", f"expected a Fate, got the decision {st.legal_moves()}"
    assert st.to_play == seat, f"the Fate belongs to seat {st.to_play}, not {seat}"
    st.stack[-1] = {**fr, "hid": [kind, kind]}
    st.changed()
    assert st.legal_moves() == [f"fate {kind}"]
    st.play(f"fate {kind}")


def resolved(st: State) -> bool:
    return st.phase != "resolve"


__all__ = ["build", "cards", "check", "force_fate", "party", "party_text", "resolved", "rules", "run_card"]
