"""A fixed integer action space for Hidden Leaders decisions (the move strings of the rule book §7.1).

Every decision string of any state maps to one id in `range(NUM_ACTIONS)`, and back. Card ids are numbered
in the order of `hidden_leaders.CARDS` (`CARD_INDEX`). The blocks, in id order:

| block | strings | size |
|---|---|---|
| `pass` `skip` `draw harbor` `pile graveyard` `pile wilderness` `flip` `look` | fixed | 7 |
| `play <card>` | per card | C |
| `tavern <card>` · `pick <card>` · `hand <card>` · `draw tavern <card>` | per card each | 4·C |
| `faction <f>` | factions in `FACTIONS` order, then `guardians` | 5 |
| `fate <kind>` | Fate kinds in `FATE_KINDS` order (legends) | 4 |
| `seat <n>` | n < 6 | 6 |
| `<seat>:<card>` (face-up hero) | 6·C |
| `<seat>:down<k>` (face-down hero) | k < `MAX_DOWN` | 6·MAX_DOWN |
| marker options | `R±d`, `G±d`, `R±a G±b` with 1 ≤ d, a, b ≤ `MAX_STEP` | 2·2M + (2M)² |
| `discard <c1> [<c2> [<c3>]]` | subsets of the acting seat's hand | Σ_{k=1..3} comb(H, k) |
| `keep <a> discard <b>` | ordered pairs of hand positions | H·(H−1) |

Hand-relative blocks (the last two) name cards by their position in the acting seat's hand sorted by
`CARD_INDEX`, with at most `MAX_HAND` (H) cards: their ids depend on the hand, so `encode` and `decode` take
it (the seat's own hand, which its view shows). Every other id means the same string in every state.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders.fast import FATE_KINDS, GUARDIANS

MAX_SEATS = 6
MAX_DOWN = 24
MAX_STEP = 6
MAX_HAND = 12

CARD_IDS: tuple[str, ...] = tuple(hl.CARDS)
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARD_IDS)}
FACTION_IDS: tuple[str, ...] = (*hl.FACTIONS, GUARDIANS)
FATE_IDS: tuple[str, ...] = FATE_KINDS
C = len(CARD_IDS)


class ActionEncodingError(ValueError):
    """A move string or action id outside the encoding (or not meaningful for the given hand)."""


_FIXED = ("pass", "skip", "draw harbor", "pile graveyard", "pile wilderness", "flip", "look")
_CARD_BLOCKS = ("play", "tavern", "pick", "hand", "draw tavern")
_STEPS = tuple(d for d in range(-MAX_STEP, MAX_STEP + 1) if d != 0)
_SUBSETS: tuple[tuple[int, ...], ...] = tuple(
    s for k in (1, 2, 3) for s in itertools.combinations(range(MAX_HAND), k)
)
_SUBSET_INDEX = {s: i for i, s in enumerate(_SUBSETS)}
_PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.permutations(range(MAX_HAND), 2))
_PAIR_INDEX = {p: i for i, p in enumerate(_PAIRS)}

FIXED = 0
CARD_BLOCK = {name: len(_FIXED) + i * C for i, name in enumerate(_CARD_BLOCKS)}
FACTION = len(_FIXED) + len(_CARD_BLOCKS) * C
FATE = FACTION + len(FACTION_IDS)
SEAT = FATE + len(FATE_IDS)
HERO_UP = SEAT + MAX_SEATS
HERO_DOWN = HERO_UP + MAX_SEATS * C
MARKER_R = HERO_DOWN + MAX_SEATS * MAX_DOWN
MARKER_G = MARKER_R + len(_STEPS)
MARKER_RG = MARKER_G + len(_STEPS)
DISCARD = MARKER_RG + len(_STEPS) ** 2
SETUP = DISCARD + len(_SUBSETS)
NUM_ACTIONS = SETUP + len(_PAIRS)


def sort_hand(hand: Iterable[str]) -> list[str]:
    """The hand in encoding order (by `CARD_INDEX`)."""
    return sorted(hand, key=CARD_INDEX.__getitem__)


def _card(card: str, move: str) -> int:
    try:
        return CARD_INDEX[card]
    except KeyError:
        raise ActionEncodingError(f"unknown card {card!r} in move {move!r}") from None


def _step(token: str, letter: str, move: str) -> int:
    if len(token) < 3 or token[0] != letter or token[1] not in "+-" or not token[2:].isdigit():
        raise ActionEncodingError(f"not a marker move: {token!r} in {move!r}")
    d = int(token[1:])
    if d == 0 or abs(d) > MAX_STEP:
        raise ActionEncodingError(f"marker step out of range in {move!r}")
    return _STEPS.index(d)


def _positions(cards: Sequence[str], hand: Sequence[str], move: str) -> list[int]:
    order = sort_hand(hand)
    if len(order) > MAX_HAND:
        raise ActionEncodingError(f"a hand of {len(order)} cards exceeds the encoding's {MAX_HAND}")
    try:
        return [order.index(c) for c in cards]
    except ValueError:
        raise ActionEncodingError(f"move {move!r} names a card not in the hand {list(hand)}") from None


def encode(move: str, hand: Sequence[str] = ()) -> int:
    """The id of `move`; `hand` is the acting seat's hand (needed for `discard` and `keep` moves)."""
    if move in _FIXED:
        return FIXED + _FIXED.index(move)
    words = move.split()
    head = words[0] if words else ""
    if head == "draw" and len(words) == 3 and words[1] == "tavern":
        return CARD_BLOCK["draw tavern"] + _card(words[2], move)
    if head in ("play", "tavern", "pick", "hand") and len(words) == 2:
        return CARD_BLOCK[head] + _card(words[1], move)
    if head == "faction" and len(words) == 2:
        if words[1] not in FACTION_IDS:
            raise ActionEncodingError(f"unknown faction in {move!r}")
        return FACTION + FACTION_IDS.index(words[1])
    if head == "fate" and len(words) == 2:
        if words[1] not in FATE_IDS:
            raise ActionEncodingError(f"unknown Fate card in {move!r}")
        return FATE + FATE_IDS.index(words[1])
    if head == "seat" and len(words) == 2 and words[1].isdigit() and int(words[1]) < MAX_SEATS:
        return SEAT + int(words[1])
    if head == "discard" and 2 <= len(words) <= 4:
        positions = tuple(sorted(_positions(words[1:], hand, move)))
        if len(set(positions)) != len(positions):
            raise ActionEncodingError(f"a card repeats in {move!r}")
        return DISCARD + _SUBSET_INDEX[positions]
    if head == "keep" and len(words) == 4 and words[2] == "discard":
        keep, drop = _positions((words[1], words[3]), hand, move)
        if keep == drop:
            raise ActionEncodingError(f"the same card is kept and discarded in {move!r}")
        return SETUP + _PAIR_INDEX[(keep, drop)]
    if len(words) == 1 and ":" in move:
        seat_text, _, target = move.partition(":")
        if not seat_text.isdigit() or int(seat_text) >= MAX_SEATS:
            raise ActionEncodingError(f"bad seat in {move!r}")
        seat = int(seat_text)
        if target.startswith("down") and target[4:].isdigit():
            k = int(target[4:])
            if k >= MAX_DOWN:
                raise ActionEncodingError(f"face-down position beyond {MAX_DOWN} in {move!r}")
            return HERO_DOWN + seat * MAX_DOWN + k
        return HERO_UP + seat * C + _card(target, move)
    if len(words) == 1 and words[0][:1] in ("R", "G"):
        if words[0][0] == "R":
            return MARKER_R + _step(words[0], "R", move)
        return MARKER_G + _step(words[0], "G", move)
    if len(words) == 2 and words[0][:1] == "R" and words[1][:1] == "G":
        return MARKER_RG + _step(words[0], "R", move) * len(_STEPS) + _step(words[1], "G", move)
    raise ActionEncodingError(f"move {move!r} is not in the Hidden Leaders action encoding")


def _signed(letter: str, i: int) -> str:
    return f"{letter}{_STEPS[i]:+d}"


def decode(action: int, hand: Sequence[str] = ()) -> str:
    """The move string of `action` (discarded cards sorted by id, as `legal_moves()` lists them)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ActionEncodingError(f"action {action} outside 0..{NUM_ACTIONS - 1}")
    if action < len(_FIXED):
        return _FIXED[action]
    if action < FACTION:
        block, card = divmod(action - len(_FIXED), C)
        return f"{_CARD_BLOCKS[block]} {CARD_IDS[card]}"
    if action < FATE:
        return f"faction {FACTION_IDS[action - FACTION]}"
    if action < SEAT:
        return f"fate {FATE_IDS[action - FATE]}"
    if action < HERO_UP:
        return f"seat {action - SEAT}"
    if action < HERO_DOWN:
        seat, card = divmod(action - HERO_UP, C)
        return f"{seat}:{CARD_IDS[card]}"
    if action < MARKER_R:
        seat, k = divmod(action - HERO_DOWN, MAX_DOWN)
        return f"{seat}:down{k}"
    if action < MARKER_G:
        return _signed("R", action - MARKER_R)
    if action < MARKER_RG:
        return _signed("G", action - MARKER_G)
    if action < DISCARD:
        r, g = divmod(action - MARKER_RG, len(_STEPS))
        return f"{_signed('R', r)} {_signed('G', g)}"
    order = sort_hand(hand)
    if action < SETUP:
        positions = _SUBSETS[action - DISCARD]
        if positions[-1] >= len(order):
            raise ActionEncodingError(f"action {action} names hand position {positions[-1]} of {len(order)}")
        return "discard " + " ".join(sorted(order[p] for p in positions))
    keep, drop = _PAIRS[action - SETUP]
    if max(keep, drop) >= len(order):
        raise ActionEncodingError(f"action {action} names a hand position beyond {len(order)} cards")
    return f"keep {order[keep]} discard {order[drop]}"
