"""Turn flow (rule book §2–§3): setup, main action, end check, draw, discard down, refill; move parsing."""

from __future__ import annotations

from itertools import combinations
from typing import Any, Protocol

from .. import legacy_rng
from ..randomness import LEGACY_RNG, RNG_VERSION, Seed, check_seed, check_version, keyed, new_secret
from . import effects as _effects  # noqa: F401  (registers the abilities)
from . import moves as _moves
from .cards import (
    BASE_LEADERS,
    CARDS,
    EMPEROR,
    FACTIONS,
    GUARDIAN_LEADERS,
    GUARDIANS,
    LEADER_POOL,
    MODULES,
    THRESHOLDS,
    deck_cards,
)
from .fate import FATE_KINDS
from .frames import KINDS, Decision, Kind, check_registry
from .state import CONT, FILTERS, OPS, Cand, IllegalMoveError, State

check_registry(FILTERS, CONT)

PROMPTS: dict[str, str] = {
    "setup": "Choose 1 card to keep face down in your party and 1 to discard",
    "action": "Play a card, discard up to 3 cards, or pass",
    "draw": "Draw from the Tavern or the Harbor until you hold 4",
    "discard": "Discard down to 3 cards",
    "marker": "Choose how the markers move",
    "pick-hero": "Choose a hero",
    "pick-tavern": "Choose a Tavern card",
    "pick-card": "Choose a card",
    "pick-hand": "Choose a card from your hand",
    "pick-seat": "Choose a player",
    "faction": "Name a faction",
    "extra-play": "You may play 1 more non-Imperial card",
    "pile": "Choose the pile to draw 2 cards from",
    "mode": "Turn a face-down hero face up, or look at one",
    "fate": "Choose 1 of your 2 Fate cards",
}


def new_game(players: int = 4, seed: Seed | None = None, variant: str = "full",
             modules: tuple[str, ...] | list[str] = ("core",), rng: int = RNG_VERSION) -> State:
    """Deal a new game (§2): a pure function of the seed and the generator version ``rng``.

    ``seed`` None deals from a fresh 128-bit secret. ``rng=LEGACY_RNG`` replays games dealt before version 2.
    """
    if not isinstance(players, int) or not 2 <= players <= 6:
        raise ValueError(f"Hidden Leaders is played by 2 to 6 players, not {players!r}")
    if variant not in THRESHOLDS:
        raise ValueError(f"unknown variant {variant!r}: expected 'full' or 'basic'")
    mods = tuple(modules)
    if "core" not in mods:
        raise ValueError("the module 'core' is required")
    bad = [m for m in mods if m not in MODULES]
    if bad or len(set(mods)) != len(mods):
        raise ValueError(f"bad module list {list(mods)!r}: choose among {list(MODULES)} without repeats")
    check_version(rng)
    if seed is None:
        seed = new_secret()
    check_seed(seed)
    st = State()
    st.players, st.variant, st.seed, st.rng_version = players, variant, seed, rng
    st.modules = tuple(m for m in MODULES if m in mods)
    if "legends" in st.modules:
        st.guardian = 1
    deck = deck_cards(st.modules, players)
    if rng == LEGACY_RNG:
        st.leaders, deck = _legacy_deal(seed, players, st.modules, deck)
        st.first = 0
    else:
        st.leaders = deal_leaders(st)
        keyed(seed, "hidden-leaders/deck").shuffle(deck)
        st.first = keyed(seed, "hidden-leaders/first").randbelow(players)
    st.graveyard = [EMPEROR]
    st.tavern = [deck.pop(0) for _ in range(3)]
    st.hands = [[deck.pop(0) for _ in range(5)] for _ in range(players)]
    st.harbor = deck
    st.parties = [[] for _ in range(players)]
    st.known = [{} for _ in range(players)]
    st.phase = "setup"
    st.setup_seat = 0
    st.turn = st.first
    return st


class Shuffler(Protocol):
    def shuffle(self, x: list[str]) -> None: ...


def deal_leaders(st: State) -> list[str]:
    """One leader per seat (the generator of purpose ``"leaders"``)."""
    return pool_leaders(keyed(st.seed, "hidden-leaders/leaders"), st.players, st.modules)


def pool_leaders(gen: Shuffler, players: int, modules: tuple[str, ...]) -> list[str]:
    """The shuffled base leaders; with ``legends`` the secret leader pool of legends §2.2 (a base and b
    Guardian leaders at random, shuffled together). The first ``players`` are dealt."""
    if "legends" not in modules:
        leaders = list(BASE_LEADERS)
        gen.shuffle(leaders)
        return leaders[:players]
    a, b = LEADER_POOL[players]
    base, guard = list(BASE_LEADERS), list(GUARDIAN_LEADERS)
    gen.shuffle(base)
    gen.shuffle(guard)
    pool = base[:a] + guard[:b]
    gen.shuffle(pool)
    return pool[:players]


def _legacy_deal(seed: Seed, players: int, modules: tuple[str, ...],
                 deck: list[str]) -> tuple[list[str], list[str]]:
    """Generator version 1: ``random.Random(seed)`` shuffles the leaders, then the deck."""
    if not isinstance(seed, int):
        raise ValueError(f"the legacy generator takes an integer seed, not {seed!r}")
    gen = legacy_rng.dealer(seed)
    leaders = pool_leaders(gen, players, modules)
    gen.shuffle(deck)
    return leaders, deck


# ---------------------------------------------------------------------------------------------- decisions


_ACTION: dict[tuple[str, ...], tuple[dict[str, Any], list[str]]] = {}
_DISCARD: dict[tuple[str, ...], tuple[dict[str, Any], list[str]]] = {}


def _action_options(hand: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Main-action options of a hand, memoised by hand (the hot path of random playouts)."""
    key = tuple(sorted(hand))
    hit = _ACTION.get(key)
    if hit is None:
        opts: dict[str, Any] = {_moves.card("play", c): c for c in key}
        for k in (1, 2, 3):
            for combo in combinations(key, k):
                opts[_moves.discard(combo)] = combo
        opts[_moves.PASS] = ()
        if len(_ACTION) > 100_000:
            _ACTION.clear()
        hit = _ACTION[key] = (opts, sorted(opts))
    return hit


def _discard_options(hand: list[str]) -> tuple[dict[str, Any], list[str]]:
    key = tuple(sorted(hand))
    hit = _DISCARD.get(key)
    if hit is None:
        opts = {_moves.discard((c,)): c for c in key}
        if len(_DISCARD) > 100_000:
            _DISCARD.clear()
        hit = _DISCARD[key] = (opts, sorted(opts))
    return hit


def decision(st: State) -> Decision:
    """The pending decision: (seat, kind, card being resolved, {move: value}, sorted moves)."""
    c = st.decided
    if c is not None:
        return c
    ph = st.phase
    if ph == "action":
        opts, moves = _action_options(st.hands[st.turn])
        res = Decision(st.turn, Kind.ACTION, None, opts, moves)
    elif ph == "draw":
        opts = {_moves.card("draw tavern", c): i for i, c in enumerate(st.tavern) if c is not None}
        if st.harbor or st.wilderness:
            opts[_moves.DRAW_HARBOR] = None
        res = Decision(st.turn, Kind.DRAW, None, opts, sorted(opts))
    elif ph == "discard":
        opts, moves = _discard_options(st.hands[st.turn])
        res = Decision(st.turn, Kind.DISCARD, None, opts, moves)
    elif ph == "resolve":
        fr = st.stack[-1]
        cands: list[Cand] = FILTERS[fr["f"]](st, fr)
        if fr.get("may"):
            cands.append((_moves.SKIP, None))
        opts = dict(cands)
        res = Decision(fr["seat"], KINDS.get(fr["kind"]) or Kind(fr["kind"]), fr["card"], opts, sorted(opts))
    elif ph == "setup":
        hand = st.hands[st.setup_seat]
        opts = {_moves.keep(a, b): (a, b) for a in hand for b in hand if a != b}
        res = Decision(st.setup_seat, Kind.SETUP, None, opts, sorted(opts))
    else:
        raise IllegalMoveError("the game is over")
    st.decided = res
    return res


def legal_moves(st: State) -> list[str]:
    if st.phase == "over":
        return []
    return list(decision(st)[4])


def _canonical(st: State, move: str) -> str:
    if st.phase == "action" and move.startswith("discard "):
        return "discard " + " ".join(sorted(move.split()[1:]))
    return move


def explain(st: State, move: str) -> str:
    """Why ``move`` is not legal now (without naming any card the mover may not know)."""
    seat, kind, card, _, _ = decision(st)
    who = f"seat {seat} must decide: {PROMPTS.get(kind, kind).lower()}"
    if card:
        who += f" ({CARDS[card].name})"
    words = move.split()
    if not words:
        return f"empty move; {who}"
    names = (*FACTIONS, GUARDIANS, *FATE_KINDS)
    unknown = [w for w in words if "-" in w and w not in CARDS and ":" not in w and w[0] not in "RG"
               and w not in names]
    if unknown:
        return f"{move!r}: unknown card id {unknown[0]!r}; {who}"
    if kind in ("action", "setup", "discard", "extra-play", "pick-hand"):
        hand = st.hands[seat]
        missing = [w for w in words[1:] if w in CARDS and w not in hand]
        if missing:
            return f"{move!r}: {missing[0]} is not in the hand of seat {seat}; {who}"
    if kind == "setup" and len(words) == 4 and words[1] == words[3]:
        return f"{move!r}: the kept and the discarded card must differ; {who}"
    if kind == "action" and words[0] == "discard" and len(words) > 4:
        return f"{move!r}: at most 3 cards may be discarded; {who}"
    if kind == "draw" and words[:2] == ["draw", "tavern"]:
        return f"{move!r}: that card is not in the Tavern; {who}"
    if kind == "draw" and move == "draw harbor":
        return f"{move!r}: the Harbor and the Wilderness are empty; {who}"
    return f"{move!r} is not a legal move now; {who}"


# ---------------------------------------------------------------------------------------------- playing


def play(st: State, move: str) -> None:
    if st.phase == "over":
        raise IllegalMoveError(f"{move!r}: the game is over")
    if not isinstance(move, str):
        raise IllegalMoveError(f"a move is a string, not {type(move).__name__}")
    seat, kind, _card, opts, _ = decision(st)
    if move not in opts:
        canon = _canonical(st, move)
        if canon not in opts:
            raise IllegalMoveError(explain(st, move))
        move = canon
    value = opts[move]
    st.changed()
    st.history.append((seat, move))
    st.last = (seat, public_form(st, kind, move))
    ph = st.phase
    if ph == "resolve":
        answer(st, st.stack.pop(), value)
        run(st)
    elif ph == "action":
        _action(st, seat, move, value)
    elif ph == "setup":
        _setup(st, seat, value)
    elif ph == "draw":
        _draw(st, seat, value)
    else:
        _discard_down(st, seat, value)


def answer(st: State, fr: dict[str, Any], value: Any) -> None:
    """Run the continuation of the decision ``fr``; what it pushes inherits ``asif`` (§4, ruling)."""
    st.asif = bool(fr.get("asif"))
    try:
        CONT[fr["then"]](st, fr, value)
    finally:
        st.asif = False


def public_form(st: State, kind: str, move: str) -> str:
    if kind == "setup":
        return "setup"
    if kind == "action" and move.startswith("discard"):
        n = len(move.split()) - 1
        return f"discard {n} card{'s' if n > 1 else ''}"
    if kind == "discard":
        return "discard 1 card"
    if st.phase == "resolve" and st.stack[-1].get("secret") and move != "skip":
        return move.split()[0] + " card"
    return move


def _setup(st: State, seat: int, value: tuple[str, str]) -> None:
    keep, disc = value
    hand = st.hands[seat]
    hand.remove(keep)
    hand.remove(disc)
    st.parties[seat].append((keep, False))
    st.wilderness.insert(0, disc)
    st.learn(seat, disc, "w")
    if seat + 1 < st.players:
        st.setup_seat = seat + 1
    else:
        st.phase = "action"
        st.turn = st.first


def _action(st: State, seat: int, move: str, value: Any) -> None:
    if isinstance(value, str):  # play <card>
        card = value
        st.hands[seat].remove(card)
        st.parties[seat].append((card, True))
        if st.track:
            st.moved(card, f"h{seat}", None, None)
        st.phase = "resolve"
        st.resolve(seat, card)
        run(st)
        return
    for c in value:
        st.hands[seat].remove(c)
        st.wilderness.insert(0, c)
        if st.track:
            st.moved(c, f"h{seat}", "w", (seat,))
    _after_action(st)


def run(st: State) -> None:
    """Run automatic steps until a decision is pending or the resolution is over."""
    stack = st.stack
    while stack:
        fr = stack[-1]
        if fr["op"] == "ask":
            if fr.get("always") or FILTERS[fr["f"]](st, fr):
                return
            stack.pop()
            continue
        stack.pop()
        st.asif = bool(fr.get("asif"))
        try:
            OPS[fr["op"]](st, fr)
        finally:
            st.asif = False
    _after_action(st)


def threshold(st: State) -> int:
    return THRESHOLDS[st.variant][st.players]


def _after_action(st: State) -> None:
    n = threshold(st)
    if any(len(p) >= n and sum(1 for _, u in p if u) >= n for p in st.parties):
        st.phase = "over"
        return
    st.phase = "draw"
    _continue_draw(st)


def _continue_draw(st: State) -> None:
    hand = st.hands[st.turn]
    if len(hand) < 4 and (any(st.tavern) or st.harbor or st.wilderness):
        st.phase = "draw"
        return
    st.phase = "discard"
    if len(hand) <= 3:
        _end_turn(st)


def _draw(st: State, seat: int, slot: int | None) -> None:
    if slot is None:
        c = st.draw_harbor()
        assert c is not None
        st.hands[seat].append(c)
    else:
        c = st.tavern[slot]
        st.tavern[slot] = None
        st.hands[seat].append(c)  # type: ignore[arg-type]
        if st.track:
            st.moved(c, None, f"h{seat}", None)  # type: ignore[arg-type]
    _continue_draw(st)


def _discard_down(st: State, seat: int, card: str) -> None:
    st.hands[seat].remove(card)
    st.wilderness.insert(0, card)
    if st.track:
        st.moved(card, f"h{seat}", "w", (seat,))
    if len(st.hands[seat]) <= 3:
        _end_turn(st)


def _end_turn(st: State) -> None:
    for i in range(3):
        if st.tavern[i] is None:
            c = st.draw_harbor()
            if c is None:
                break
            st.tavern[i] = c
    nxt = (st.turn + 1) % st.players
    while nxt in st.skips:  # a skipped turn (legends §5.3): no action, no draw, no refill
        st.skips.remove(nxt)
        nxt = (nxt + 1) % st.players
    st.turn = nxt
    st.phase = "action"
