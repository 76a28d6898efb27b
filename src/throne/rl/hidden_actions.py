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
from throne.games.hidden_leaders.fast import FATE_KINDS, GUARDIANS, moves

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


_FIXED = moves.FIXED
_CARD_BLOCKS = moves.CARD_VERBS
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


def _step(d: int, move: str) -> int:
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
    try:
        m = moves.parse(move)
    except moves.MoveSyntaxError as exc:
        raise ActionEncodingError(f"move {move!r} is not in the Hidden Leaders action encoding") from exc
    if m.form == "fixed":
        return FIXED + _FIXED.index(m.verb)
    if m.form == "card":
        return CARD_BLOCK[m.verb] + _card(m.cards[0], move)
    if m.form == "faction":
        if m.name not in FACTION_IDS:
            raise ActionEncodingError(f"unknown faction in {move!r}")
        return FACTION + FACTION_IDS.index(m.name)
    if m.form == "fate":
        if m.name not in FATE_IDS:
            raise ActionEncodingError(f"unknown Fate card in {move!r}")
        return FATE + FATE_IDS.index(m.name)
    if m.form == "seat" and m.seat is not None and m.seat < MAX_SEATS:
        return SEAT + m.seat
    if m.form == "discard":
        positions = tuple(sorted(_positions(m.cards, hand, move)))
        if len(set(positions)) != len(positions):
            raise ActionEncodingError(f"a card repeats in {move!r}")
        return DISCARD + _SUBSET_INDEX[positions]
    if m.form == "keep":
        keep, drop = _positions(m.cards, hand, move)
        if keep == drop:
            raise ActionEncodingError(f"the same card is kept and discarded in {move!r}")
        return SETUP + _PAIR_INDEX[(keep, drop)]
    if m.form in ("hero-up", "hero-down"):
        if m.seat is None or m.seat >= MAX_SEATS:
            raise ActionEncodingError(f"bad seat in {move!r}")
        if m.form == "hero-down":
            if m.index is None or m.index >= MAX_DOWN:
                raise ActionEncodingError(f"face-down position beyond {MAX_DOWN} in {move!r}")
            return HERO_DOWN + m.seat * MAX_DOWN + m.index
        return HERO_UP + m.seat * C + _card(m.cards[0], move)
    if m.form == "marker":
        letters = tuple(letter for letter, _ in m.steps)
        if letters == ("R",):
            return MARKER_R + _step(m.steps[0][1], move)
        if letters == ("G",):
            return MARKER_G + _step(m.steps[0][1], move)
        if letters == ("R", "G"):
            return MARKER_RG + _step(m.steps[0][1], move) * len(_STEPS) + _step(m.steps[1][1], move)
    raise ActionEncodingError(f"move {move!r} is not in the Hidden Leaders action encoding")


def decode(action: int, hand: Sequence[str] = ()) -> str:
    """The move string of `action` (discarded cards sorted by id, as `legal_moves()` lists them)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ActionEncodingError(f"action {action} outside 0..{NUM_ACTIONS - 1}")
    if action < len(_FIXED):
        return _FIXED[action]
    if action < FACTION:
        block, card = divmod(action - len(_FIXED), C)
        return moves.card(_CARD_BLOCKS[block], CARD_IDS[card])
    if action < FATE:
        return moves.faction(FACTION_IDS[action - FACTION])
    if action < SEAT:
        return moves.fate(FATE_IDS[action - FATE])
    if action < HERO_UP:
        return moves.seat(action - SEAT)
    if action < HERO_DOWN:
        seat, card = divmod(action - HERO_UP, C)
        return moves.hero_up(seat, CARD_IDS[card])
    if action < MARKER_R:
        seat, k = divmod(action - HERO_DOWN, MAX_DOWN)
        return moves.hero_down(seat, k)
    if action < MARKER_G:
        return moves.markers([("R", _STEPS[action - MARKER_R])])
    if action < MARKER_RG:
        return moves.markers([("G", _STEPS[action - MARKER_G])])
    if action < DISCARD:
        r, g = divmod(action - MARKER_RG, len(_STEPS))
        return moves.markers([("R", _STEPS[r]), ("G", _STEPS[g])])
    order = sort_hand(hand)
    if action < SETUP:
        positions = _SUBSETS[action - DISCARD]
        if positions[-1] >= len(order):
            raise ActionEncodingError(f"action {action} names hand position {positions[-1]} of {len(order)}")
        return moves.discard(sorted(order[p] for p in positions))
    keep, drop = _PAIRS[action - SETUP]
    if max(keep, drop) >= len(order):
        raise ActionEncodingError(f"action {action} names a hand position beyond {len(order)} cards")
    return moves.keep(order[keep], order[drop])
