"""The move grammar of Hidden Leaders (rule book §7.1): the one module that builds and parses every decision
string. The engine builds its legal moves with these functions, `throne.rl.hidden_actions` parses them into
action ids, and `GRAMMAR` (served in `/api/meta`) describes them to clients.

A move is one of these forms (cards are card ids, seats and positions are integers):

| form | strings |
|---|---|
| `fixed` | `pass`, `skip`, `draw harbor`, `pile graveyard`, `pile wilderness`, `flip`, `look` |
| `card` | `play <card>`, `tavern <card>`, `pick <card>`, `hand <card>`, `draw tavern <card>` |
| `faction` / `fate` | `faction <faction or guardians>`, `fate <kind>` |
| `seat` | `seat <n>` |
| `hero-up` / `hero-down` | `<seat>:<card>` (a face-up hero), `<seat>:down<k>` (the k-th face-down hero) |
| `marker` | `R±d`, `G±d`, `R±a G±b` (marker steps; `B±d` and others for further markers) |
| `discard` | `discard <c1> [<c2> [<c3>]]` |
| `keep` | `keep <a> discard <b>` (setup) |
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

FIXED = ("pass", "skip", "draw harbor", "pile graveyard", "pile wilderness", "flip", "look")
PASS, SKIP, DRAW_HARBOR, PILE_GRAVEYARD, PILE_WILDERNESS, FLIP, LOOK = FIXED
CARD_VERBS = ("play", "tavern", "pick", "hand", "draw tavern")
"""Verbs followed by one card id."""


class MoveSyntaxError(ValueError):
    """A string that is not in the grammar (whether it is legal now is the engine's question)."""


@dataclass(frozen=True)
class Move:
    """A parsed decision string: its form and its parts (unused parts keep their defaults)."""

    form: str
    verb: str = ""
    cards: tuple[str, ...] = ()
    seat: int | None = None
    index: int | None = None
    name: str = ""
    steps: tuple[tuple[str, int], ...] = ()


# ----------------------------------------------------------------------------------------- builders


def card(verb: str, card_id: str) -> str:
    """`play <card>`, `tavern <card>`, `pick <card>`, `hand <card>` or `draw tavern <card>`."""
    if verb not in CARD_VERBS:
        raise MoveSyntaxError(f"{verb!r} is not a card verb ({', '.join(CARD_VERBS)})")
    return f"{verb} {card_id}"


def discard(cards: Iterable[str]) -> str:
    return "discard " + " ".join(cards)


def keep(kept: str, dropped: str) -> str:
    return f"keep {kept} discard {dropped}"


def seat(p: int) -> str:
    return f"seat {p}"


def faction(name: str) -> str:
    return f"faction {name}"


def fate(kind: str) -> str:
    return f"fate {kind}"


def hero_up(p: int, card_id: str) -> str:
    return f"{p}:{card_id}"


def hero_down(p: int, k: int) -> str:
    return f"{p}:down{k}"


def markers(steps: Sequence[tuple[str, int]]) -> str:
    """`R+1 G-2`: each marker letter with its signed step."""
    return " ".join(f"{m}{d:+d}" for m, d in steps)


def marker_steps(text: str) -> list[tuple[str, int]]:
    """The steps of a marker move (`"R+1 G-2"` -> `[("R", 1), ("G", -2)]`)."""
    out = []
    for token in text.split():
        if len(token) < 3 or not token[0].isupper() or token[1] not in "+-" or not token[2:].isdigit():
            raise MoveSyntaxError(f"not a marker step: {token!r} in {text!r}")
        out.append((token[0], int(token[1:])))
    return out


# ----------------------------------------------------------------------------------------- parsing


def parse(move: str) -> Move:
    """The form and parts of `move`; raises MoveSyntaxError for a string outside the grammar."""
    if not isinstance(move, str):
        raise MoveSyntaxError(f"a move is a string, not {type(move).__name__}")
    if move in FIXED:
        return Move("fixed", verb=move)
    words = move.split()
    if not words:
        raise MoveSyntaxError("an empty move")
    head = words[0]
    if head == "draw" and len(words) == 3 and words[1] == "tavern":
        return Move("card", verb="draw tavern", cards=(words[2],))
    if head in CARD_VERBS and len(words) == 2:
        return Move("card", verb=head, cards=(words[1],))
    if head in ("faction", "fate") and len(words) == 2:
        return Move(head, name=words[1])
    if head == "seat" and len(words) == 2 and words[1].isdigit():
        return Move("seat", seat=int(words[1]))
    if head == "discard" and 2 <= len(words) <= 4:
        return Move("discard", cards=tuple(words[1:]))
    if head == "keep" and len(words) == 4 and words[2] == "discard":
        return Move("keep", cards=(words[1], words[3]))
    if len(words) == 1 and ":" in move:
        seat_text, _, target = move.partition(":")
        if not seat_text.isdigit() or not target:
            raise MoveSyntaxError(f"bad hero place in {move!r}")
        if target.startswith("down") and target[4:].isdigit():
            return Move("hero-down", seat=int(seat_text), index=int(target[4:]))
        return Move("hero-up", seat=int(seat_text), cards=(target,))
    if all(w[:1].isupper() for w in words):
        return Move("marker", steps=tuple(marker_steps(move)))
    raise MoveSyntaxError(f"{move!r} is not a Hidden Leaders move")


def format_move(m: Move) -> str:
    """The string of a parsed move: `format_move(parse(s)) == s` for every string in the grammar."""
    if m.form == "fixed":
        return m.verb
    if m.form == "card":
        return card(m.verb, m.cards[0])
    if m.form in ("faction", "fate"):
        return faction(m.name) if m.form == "faction" else fate(m.name)
    if m.form == "seat" and m.seat is not None:
        return seat(m.seat)
    if m.form == "discard":
        return discard(m.cards)
    if m.form == "keep":
        return keep(*m.cards)
    if m.form == "hero-up" and m.seat is not None:
        return hero_up(m.seat, m.cards[0])
    if m.form == "hero-down" and m.seat is not None and m.index is not None:
        return hero_down(m.seat, m.index)
    if m.form == "marker":
        return markers(m.steps)
    raise MoveSyntaxError(f"no move of form {m.form!r} with these parts: {m}")


GRAMMAR: tuple[dict[str, str], ...] = (
    {"form": "fixed", "pattern": " | ".join(FIXED)},
    {"form": "card", "pattern": "(" + " | ".join(CARD_VERBS) + ") <card>"},
    {"form": "faction", "pattern": "faction <faction>"},
    {"form": "fate", "pattern": "fate <kind>"},
    {"form": "seat", "pattern": "seat <n>"},
    {"form": "hero-up", "pattern": "<seat>:<card>"},
    {"form": "hero-down", "pattern": "<seat>:down<k>"},
    {"form": "marker", "pattern": "<M>±<d> [<M>±<d> ...]"},
    {"form": "discard", "pattern": "discard <card> [<card> [<card>]]"},
    {"form": "keep", "pattern": "keep <card> discard <card>"},
)
"""The forms of the grammar, for clients (`/api/meta`)."""


def grammar() -> list[dict[str, str]]:
    return [dict(g) for g in GRAMMAR]
