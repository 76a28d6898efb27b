"""Hidden Leaders observations: card-zone features and public counters, from one seat's `view(seat)`.

Seats are relative to the observer: relative seat k is seat `(observer + k) % players` (k = 0: the observer).
The observation is one float32 vector, the concatenation of these blocks (C = number of cards, in the order of
`hidden_actions.CARD_IDS`):

| block | shape | meaning |
|---|---|---|
| `zones` | (ZONES, C) | 1 where a card is (zones listed below) |
| `markers` | (3, 12) | one-hot red, green and Guardian marker spaces 1..12 (Guardian: legends only) |
| `leaders` | (6, 10) | leader of relative seat k (one-hot, `LEADER_IDS`): own, others once revealed |
| `counts` | (6, 3) | per relative seat: hand size, face-up heroes, face-down heroes (each min(n, 10) / 10) |
| `piles` | (3,) | Harbor, Wilderness and Graveyard sizes / 100 |
| `players` | (5,) | one-hot player count 2..6 |
| `turn`, `to_play` | (6,), (6,) | one-hot relative seat of the turn player and of the deciding seat |
| `phase` | (len(PHASES),) | one-hot phase |
| `decision` | (len(DECISIONS) + 1,) | one-hot decision kind (last entry: any other kind) |
| `threshold` | (1,) | face-up heroes that end the game / 10 |
| `modules` | (4,) | the card modules played (`MODULES` order) |
| `skips` | (6,) | relative seats that skip their next turn (legends) |
| `fate` | (4,) | the observer's drawn Fate cards, per kind (`FATE_KINDS` order) / 2 (legends) |

Zones, in order: own hand, own party face up, own party face down, party of relative seat 1..5 face up (5
zones), Tavern, Graveyard, Graveyard top, privately looked at (`known`, anywhere), card being resolved,
cards held by the resolution in progress (`pending_cards`, when this seat may see them), looked-at cards
known to be in the hand or party of relative seat 1..5 (5 zones), looked-at cards in the Wilderness.

Everything comes from `view(observer)`, which holds only what that seat may know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.fast import FATE_KINDS
from throne.rl.hidden_actions import CARD_IDS, CARD_INDEX

MAX_SEATS = 6
C = len(CARD_IDS)
LEADER_IDS: tuple[str, ...] = tuple(hl.LEADERS)
PHASES = ("setup", "action", "resolve", "draw", "discard", "over")
DECISIONS = (
    "setup", "action", "marker", "pick-hero", "pick-tavern", "pick-card", "pick-hand", "pick-seat", "faction",
    "draw", "discard", "extra-play", "pile", "mode", "fate",
)  # fmt: skip

ZONE_HAND, ZONE_UP, ZONE_DOWN = 0, 1, 2
ZONE_OTHER_UP = 3  # relative seats 1..5 at ZONE_OTHER_UP + k - 1
ZONE_TAVERN = ZONE_OTHER_UP + MAX_SEATS - 1
ZONE_GRAVEYARD = ZONE_TAVERN + 1
ZONE_GRAVE_TOP = ZONE_GRAVEYARD + 1
ZONE_KNOWN = ZONE_GRAVE_TOP + 1
ZONE_RESOLVING = ZONE_KNOWN + 1
ZONE_PENDING = ZONE_RESOLVING + 1  # cards held by a resolution that this seat sees (drawn, looked at)
ZONE_KNOWN_SEAT = ZONE_PENDING + 1  # looked-at cards in the hand or party of relative seat k, at + k - 1
ZONE_KNOWN_WILDERNESS = ZONE_KNOWN_SEAT + MAX_SEATS - 1
ZONES = ZONE_KNOWN_WILDERNESS + 1

BLOCKS: dict[str, tuple[int, ...]] = {
    "zones": (ZONES, C),
    "markers": (3, 12),
    "leaders": (MAX_SEATS, len(LEADER_IDS)),
    "counts": (MAX_SEATS, 3),
    "piles": (3,),
    "players": (5,),
    "turn": (MAX_SEATS,),
    "to_play": (MAX_SEATS,),
    "phase": (len(PHASES),),
    "decision": (len(DECISIONS) + 1,),
    "threshold": (1,),
    "modules": (len(hl.MODULES),),
    "skips": (MAX_SEATS,),
    "fate": (len(FATE_KINDS),),
}
OFFSETS: dict[str, int] = {}
_SLICES: list[tuple[str, int, int, tuple[int, ...]]] = []
_size = 0
for _name, _shape in BLOCKS.items():
    OFFSETS[_name] = _size
    _SLICES.append((_name, _size, _size + int(np.prod(_shape)), _shape))
    _size += int(np.prod(_shape))
SIZE = _size
SHAPE: tuple[int] = (SIZE,)

_LEADER_INDEX = {leader: i for i, leader in enumerate(LEADER_IDS)}
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_DECISION_INDEX = {d: i for i, d in enumerate(DECISIONS)}


def blocks(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Named, shaped views of an observation vector (for inspection and tests)."""
    return {name: vector[start:end].reshape(shape) for name, start, end, shape in _SLICES}


def _hand_cards(hand: Any) -> list[str]:
    return [c for c in hand if isinstance(c, str)] if isinstance(hand, list) else []


def _hand_count(hand: Any) -> int:
    if isinstance(hand, Mapping):
        return int(hand.get("count", 0))
    return len(hand or ())


def _pile_count(pile: Any) -> int:
    if isinstance(pile, Mapping):
        return int(pile.get("count", 0))
    if isinstance(pile, int):
        return pile
    return len(pile or ())


def encode(view: Mapping[str, Any], observer: int) -> np.ndarray:
    """The observation vector of `view` (= `state.view(observer)`), shape `SHAPE`."""
    out = np.zeros(SIZE, dtype=np.float32)
    b = blocks(out)
    players = int(view["players"])
    zones, counts = b["zones"], b["counts"]

    def rel(seat: int) -> int:
        return (seat - observer) % players

    for card in _hand_cards(view["hands"][observer]):
        zones[ZONE_HAND, CARD_INDEX[card]] = 1.0
    for seat, party in enumerate(view["parties"]):
        k = rel(seat)
        up = down = 0
        for hero in party:
            card = hero.get("card")
            if hero.get("up"):
                up += 1
                zones[ZONE_UP if k == 0 else ZONE_OTHER_UP + k - 1, CARD_INDEX[card]] = 1.0
            else:
                down += 1
                if k == 0 and card is not None:
                    zones[ZONE_DOWN, CARD_INDEX[card]] = 1.0
        counts[k, 1] = min(up, 10) / 10.0
        counts[k, 2] = min(down, 10) / 10.0
    for seat, hand in enumerate(view["hands"]):
        counts[rel(seat), 0] = min(_hand_count(hand), 10) / 10.0
    for card in view.get("tavern") or ():
        if card is not None:
            zones[ZONE_TAVERN, CARD_INDEX[card]] = 1.0
    graveyard = view.get("graveyard") or []
    for card in graveyard:
        zones[ZONE_GRAVEYARD, CARD_INDEX[card]] = 1.0
    if graveyard:
        zones[ZONE_GRAVE_TOP, CARD_INDEX[graveyard[0]]] = 1.0  # piles are listed top first
    for item in view.get("known") or ():
        card = item.get("card") if isinstance(item, Mapping) else None
        if card not in CARD_INDEX:
            continue
        zones[ZONE_KNOWN, CARD_INDEX[card]] = 1.0
        where = str(item.get("where", "")).split()
        if where[:1] == ["wilderness"]:
            zones[ZONE_KNOWN_WILDERNESS, CARD_INDEX[card]] = 1.0
        elif len(where) == 2 and where[1].isdigit() and rel(int(where[1])) > 0:
            zones[ZONE_KNOWN_SEAT + rel(int(where[1])) - 1, CARD_INDEX[card]] = 1.0
    pending = view.get("pending_cards")
    if isinstance(pending, list):
        for card in pending:
            zones[ZONE_PENDING, CARD_INDEX[card]] = 1.0
    decision = view.get("decision") or {}
    if decision.get("card") in CARD_INDEX:
        zones[ZONE_RESOLVING, CARD_INDEX[decision["card"]]] = 1.0
    markers = view["markers"]
    b["markers"][0, int(markers["red"]) - 1] = 1.0
    b["markers"][1, int(markers["green"]) - 1] = 1.0
    if markers.get("guardian") is not None:
        b["markers"][2, int(markers["guardian"]) - 1] = 1.0
    for seat, leader in enumerate(view.get("leaders") or ()):
        if leader is not None:
            b["leaders"][rel(seat), _LEADER_INDEX[leader]] = 1.0
    b["piles"][:] = (
        _pile_count(view.get("harbor")) / 100.0,
        _pile_count(view.get("wilderness")) / 100.0,
        len(graveyard) / 100.0,
    )
    b["players"][players - 2] = 1.0
    b["turn"][rel(int(view["turn"]))] = 1.0
    if view.get("to_play") is not None and view.get("phase") != "over":
        b["to_play"][rel(int(view["to_play"]))] = 1.0
    if view.get("phase") in _PHASE_INDEX:
        b["phase"][_PHASE_INDEX[view["phase"]]] = 1.0
    if decision:
        b["decision"][_DECISION_INDEX.get(decision.get("kind"), len(DECISIONS))] = 1.0
    b["threshold"][0] = int(view["threshold"]) / 10.0
    for module in view.get("modules") or ():
        b["modules"][hl.MODULES.index(module)] = 1.0
    for seat in view.get("skips") or ():
        b["skips"][rel(int(seat))] = 1.0
    fate = view.get("fate")
    if fate and isinstance(fate.get("cards"), list):  # only the chooser sees its drawn Fate cards
        for kind in fate["cards"]:
            b["fate"][FATE_KINDS.index(kind)] += 0.5
    return out
