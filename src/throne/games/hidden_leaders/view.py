"""Serialisation, per-seat views and determinisation (rule book §7.2) — the only way secrets leave a state."""

from __future__ import annotations

import random
from typing import Any

from ..randomness import LEGACY_RNG, RNG_VERSION, KeyedRandom, SeedError, check_seed, check_version
from .cards import (
    BASE_LEADERS,
    CARDS,
    EMPEROR,
    GUARDIAN_LEADERS,
    LEADER_POOL,
    LEADERS,
    MODULES,
    THRESHOLDS,
    deck_cards,
    is_of,
)
from .fate import FATE_KINDS, draw_fates, fate_view, is_fate
from .state import State

Rng = random.Random | KeyedRandom


class StateError(ValueError):
    """A JSON state that is not a valid Hidden Leaders position."""


def _where(zone: str) -> str:
    if zone == "w":
        return "wilderness"
    return ("hand " if zone[0] == "h" else "party ") + zone[1:]


def _pending(st: State) -> tuple[list[str], int | None]:
    """Cards held by the resolution (drawn, looked at, taken) and the only seat that sees them (None: all)."""
    for fr in reversed(st.stack):
        if is_fate(fr):
            continue
        if "hid" in fr:
            return list(fr["hid"]), fr["seat"]
        if "pub" in fr:
            return list(fr["pub"]), None
    return [], None


def _markers(st: State) -> dict[str, int]:
    m = {"red": st.red, "green": st.green}
    if st.guardian is not None:
        m["guardian"] = st.guardian
    return m


def to_json(st: State) -> dict[str, Any]:
    d: dict[str, Any] = {
        "game": "hidden-leaders", "players": st.players, "variant": st.variant, "modules": list(st.modules),
        "markers": _markers(st),
        "leaders": list(st.leaders),
        "hands": [list(h) for h in st.hands],
        "parties": [[{"card": c, "up": u} for c, u in p] for p in st.parties],
        "tavern": list(st.tavern),
        "harbor": list(st.harbor), "wilderness": list(st.wilderness), "graveyard": list(st.graveyard),
        "turn": st.turn, "phase": st.phase, "seed": st.seed,
        "known": [dict(sorted(k.items())) for k in st.known],
        "history": [[s, m] for s, m in st.history],
        "last": list(st.last) if st.last else None,
    }
    if st.guardian is not None:
        d["skips"] = list(st.skips)
    if st.rng_version != LEGACY_RNG:  # legacy states keep their old shape exactly
        d.update(rng=st.rng_version, draws=st.draws, first=st.first)
    if st.phase == "resolve":
        d["stack"] = [dict(fr) for fr in st.stack]
        d["chain"] = list(st.chain)
    return d


def _fail(msg: str) -> StateError:
    return StateError(f"invalid Hidden Leaders state: {msg}")


def from_json(data: dict[str, Any]) -> State:
    if not isinstance(data, dict) or data.get("game") != "hidden-leaders":
        raise _fail("'game' must be 'hidden-leaders'")
    try:
        st = State()
        st.players = int(data["players"])
        if not 2 <= st.players <= 6:
            raise _fail(f"players must be 2..6, not {st.players}")
        st.variant = data["variant"]
        if st.variant not in THRESHOLDS:
            raise _fail(f"unknown variant {st.variant!r}")
        st.modules = tuple(data["modules"])
        if "core" not in st.modules or any(m not in MODULES for m in st.modules) or list(st.modules) != [
                m for m in MODULES if m in st.modules]:
            raise _fail(f"bad modules {list(st.modules)!r}")
        legends = "legends" in st.modules
        st.red, st.green = int(data["markers"]["red"]), int(data["markers"]["green"])
        if not (1 <= st.red <= 12 and 1 <= st.green <= 12):
            raise _fail("markers must be on spaces 1..12")
        if legends:
            st.guardian = int(data["markers"]["guardian"])
            if not 1 <= st.guardian <= 12:
                raise _fail("markers must be on spaces 1..12")
            st.skips = sorted({int(p) for p in data.get("skips", [])})
            if any(not 0 <= p < st.players for p in st.skips):
                raise _fail(f"bad skips {st.skips!r}")
        elif "guardian" in data["markers"] or data.get("skips"):
            raise _fail("the Guardian marker and skipped turns need the 'legends' module")
        st.leaders = list(data["leaders"])
        if len(st.leaders) != st.players or len(set(st.leaders)) != st.players or any(
                x not in LEADERS for x in st.leaders) or not _leaders_possible(st.leaders, st.players,
                                                                               legends):
            raise _fail(f"bad leaders {st.leaders!r}")
        st.hands = [list(h) for h in data["hands"]]
        st.parties = [[(e["card"], bool(e["up"])) for e in p] for p in data["parties"]]
        st.tavern = list(data["tavern"])
        st.harbor = list(data["harbor"])
        st.wilderness = list(data["wilderness"])
        st.graveyard = list(data["graveyard"])
        st.turn = int(data["turn"])
        st.phase = data["phase"]
        st.seed = data["seed"]
        st.rng_version = data.get("rng", LEGACY_RNG)
        try:
            check_version(st.rng_version)
            check_seed(st.seed)
        except SeedError as exc:
            raise _fail(f"bad seed or generator: {exc}") from None
        if st.rng_version == LEGACY_RNG and not isinstance(st.seed, int):
            raise _fail(f"a legacy-generator state needs an integer seed, not {st.seed!r}")
        st.draws = data.get("draws", 0)
        st.first = data.get("first", 0)
        if not isinstance(st.draws, int) or isinstance(st.draws, bool) or st.draws < 0:
            raise _fail(f"draws must be a non-negative integer, not {st.draws!r}")
        st.known = [dict(k) for k in data.get("known") or [{} for _ in range(st.players)]]
        st.history = [(int(s), str(m)) for s, m in data.get("history", [])]
        last = data.get("last")
        st.last = (int(last[0]), str(last[1])) if last else None
        st.stack = [dict(fr) for fr in data.get("stack", [])]
        st.chain = list(data.get("chain", []))
    except (KeyError, TypeError, AttributeError) as exc:
        raise _fail(f"missing or malformed field ({exc!r})") from exc
    if len(st.hands) != st.players or len(st.parties) != st.players or len(st.known) != st.players:
        raise _fail("hands, parties and known need one entry per player")
    if len(st.tavern) != 3:
        raise _fail("the Tavern has exactly 3 slots")
    if st.phase not in ("setup", "action", "resolve", "draw", "discard", "over"):
        raise _fail(f"unknown phase {st.phase!r}")
    if not 0 <= st.turn < st.players:
        raise _fail(f"turn {st.turn} out of range")
    if not isinstance(st.first, int) or isinstance(st.first, bool) or not 0 <= st.first < st.players:
        raise _fail(f"first {st.first!r} out of range")
    if st.phase == "resolve" and not st.stack:
        raise _fail("phase 'resolve' needs a non-empty 'stack'")
    cards = [c for h in st.hands for c in h] + [c for p in st.parties for c, _ in p]
    cards += [c for c in st.tavern if c is not None] + st.harbor + st.wilderness + st.graveyard
    cards += _pending(st)[0] if st.phase == "resolve" else []
    cards += [fr["held"] for fr in st.stack if "held" in fr]
    expected = sorted([EMPEROR, *deck_cards(st.modules, st.players)])
    if sorted(cards) != expected:
        extra = sorted(set(cards) - set(expected)) or sorted(c for c in set(cards) if cards.count(c) > 1)
        missing = sorted(set(expected) - set(cards))
        raise _fail(f"the cards do not match the modules (unexpected/duplicated {extra[:3]}, "
                    f"missing {missing[:3]})")
    for fr in st.stack:
        if is_fate(fr) and (len(fr.get("hid", ())) != 2 or any(k not in FATE_KINDS for k in fr["hid"])):
            raise _fail(f"a pending Fate holds 2 Fate kinds, not {fr.get('hid')!r}")
    if st.phase == "setup":
        st.setup_seat = next((p for p in range(st.players) if not st.parties[p]), 0)
    return st


def _leaders_possible(leaders: list[str], players: int, legends: bool) -> bool:
    """Whether the deal could give these leaders (legends §2.2: a pool of a base and b Guardian leaders)."""
    guard = sum(1 for x in leaders if x in GUARDIAN_LEADERS)
    if not legends:
        return guard == 0
    a, b = LEADER_POOL[players]
    return guard <= b and players - guard <= a


def view(st: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may know (None: a spectator). After the game is over everything is revealed."""
    from . import rules, scoring

    if seat is not None and not (isinstance(seat, int) and 0 <= seat < st.players):
        raise ValueError(f"seat must be None or 0..{st.players - 1}, not {seat!r}")
    if not st.track:
        raise ValueError("a clone(track=False) keeps no knowledge, so it has no views")
    over = st.phase == "over"
    pend, pend_seat = _pending(st) if st.phase == "resolve" else ([], None)
    d: dict[str, Any] = {
        "game": "hidden-leaders", "players": st.players, "variant": st.variant, "modules": list(st.modules),
        "threshold": THRESHOLDS[st.variant][st.players],
        "seat": seat,
        "markers": _markers(st),
        "leaders": [x if (over or p == seat) else None for p, x in enumerate(st.leaders)],
        "hands": [list(h) if (over or p == seat) else {"count": len(h)} for p, h in enumerate(st.hands)],
        "parties": [
            [{"card": c if (u or over or p == seat) else None, "up": u} for c, u in party]
            for p, party in enumerate(st.parties)
        ],
        "tavern": list(st.tavern),
        "harbor": list(st.harbor) if over else {"count": len(st.harbor)},
        "wilderness": list(st.wilderness) if over else {"count": len(st.wilderness)},
        "graveyard": list(st.graveyard),
        "pending_cards": pend if (pend_seat is None or pend_seat == seat or over) else {"count": len(pend)},
        "turn": st.turn,
        "phase": st.phase,
        "known": [],
        "last_move": {"seat": st.last[0], "move": st.last[1]} if st.last else None,
    }
    if st.guardian is not None:
        a, b = LEADER_POOL[st.players]
        d["skips"] = list(st.skips)
        d["leader_pool"] = {"base": a, "guardians": b}  # the sizes are public, the leaders are not
        d["fate"] = fate_view(st, None if over else seat)
    # The faction that would win if the game ended now: a function of the public markers only (legends §3.3).
    d["live_faction"] = scoring.public_faction(st)
    if seat is not None:
        known = []
        for c, z in sorted(st.known[seat].items()):
            entry: dict[str, Any] = {"where": _where(z), "card": c}
            if z[0] == "d":
                p = int(z[1:])
                entry["index"] = next(i for i, (x, _) in enumerate(st.parties[p]) if x == c)
            known.append(entry)
        d["known"] = known
    if over:
        d["to_play"] = None
        d["decision"] = None
        d["legal_moves"] = []
        d["scores"] = scoring.scores(st)
        d["winning_faction"] = scoring.result_faction(st)
        d["winner"] = scoring.winner(st)
    else:
        who, kind, card, opts, _ = rules.decision(st)
        d["to_play"] = who
        d["decision"] = {"seat": who, "kind": kind, "card": card, "purpose": _purpose(st, kind),
                         "prompt": _prompt(kind, card)}
        if kind == "marker":
            d["decision"]["results"] = {m: _after_markers(st, steps) for m, steps in opts.items()
                                        if steps is not None}
        d["legal_moves"] = rules.legal_moves(st) if who == seat else []
    return d


def _purpose(st: State, kind: str) -> str:
    """What the pending decision is for: the continuation that receives the answer while a card resolves
    (`frames.Cont`, e.g. `bury`), else the decision kind of the turn (`setup`, `action`, `draw`,
    `discard`)."""
    if st.phase == "resolve" and st.stack:
        return str(st.stack[-1].get("then") or kind)
    return str(kind)


def _after_markers(st: State, steps: list[tuple[str, int]]) -> dict[str, int]:
    """Where the red and green markers stand after a marker option (the track result shown with it)."""
    probe = State()
    probe.red, probe.green = st.red, st.green
    probe.move_markers(steps)
    return {"red": probe.red, "green": probe.green}


def _prompt(kind: str, card: str | None) -> str:
    from .rules import PROMPTS

    text = PROMPTS.get(kind, kind)
    return f"{CARDS[card].name}: {text}" if card else text


def _keep_pending_answerable(st: State, seat: int, slots: list[tuple[str, int, int]], new: list[str],
                             rng: Rng | _Sorted) -> None:
    """Underwater Artist: a pending "give me a card of faction F" decision of another seat is public proof
    that this seat holds such a card, so the deal must give it one."""
    top = st.stack[-1] if st.stack else None
    if not top or top.get("then") != "artist-give" or top["seat"] == seat:
        return
    p, fac = top["seat"], top["fac"]
    hand = [j for j, (z, q, _) in enumerate(slots) if z == "h" and q == p]
    if any(is_of(c, fac) for c in st.hands[p] if st.known[seat].get(c) == f"h{p}"):
        return
    if any(is_of(new[j], fac) for j in hand):
        return
    match = [j for j, c in enumerate(new) if is_of(c, fac)]
    a, b = rng.choice(hand), rng.choice(match)
    new[a], new[b] = new[b], new[a]


class _Sorted:
    """A stand-in generator that never permutes, so ``_redeal`` deals every unknown card in sorted order."""

    @staticmethod
    def shuffle(x: list[str]) -> None:
        return None

    @staticmethod
    def choice(seq: list[int]) -> int:
        return seq[0]


def determinize(st: State, seat: int, rng: Rng) -> State:
    """A full state consistent with everything ``seat`` knows; every unknown card is dealt at random.

    Two states that ``seat`` cannot tell apart give the same world for the same ``rng`` state. The world's
    own seed comes from ``rng`` too: its later random outcomes are imagined, never the real game's.
    """
    world_seed = rng.randrange(2**32)
    s = _redeal(st, seat, rng)
    s.seed = world_seed
    return s


def blind(st: State, seat: int) -> State:
    """The canonical world of ``seat``: every card it cannot see dealt in sorted order, the other leaders
    sorted, no history, and a seed unrelated to the game's.

    It is a pure function of what ``seat`` knows (two states it cannot tell apart give equal blind states),
    so it is what a bot of that seat may be handed; the bot then determinizes it for each world it searches.
    """
    return _redeal(st, seat, _Sorted())


def _redeal(st: State, seat: int, rng: Rng | _Sorted) -> State:
    if not (isinstance(seat, int) and 0 <= seat < st.players):
        raise ValueError(f"seat must be 0..{st.players - 1}, not {seat!r}")
    if not st.track:
        raise ValueError("a clone(track=False) keeps no knowledge to determinise from")
    s = st.clone()
    s.seed, s.rng_version, s.draws = 0, RNG_VERSION, 0
    s.history = []
    s.changed()
    if st.phase == "over":
        return s
    mine = st.known[seat]
    pool: list[str] = []
    slots: list[tuple[str, int, int]] = []  # (zone kind, owner, index)
    for p in range(st.players):
        if p == seat:
            continue
        for i, c in enumerate(st.hands[p]):
            if mine.get(c) != f"h{p}":
                pool.append(c)
                slots.append(("h", p, i))
        for i, (c, u) in enumerate(st.parties[p]):
            if not u and mine.get(c) != f"d{p}":
                pool.append(c)
                slots.append(("d", p, i))
    for i, c in enumerate(st.harbor):
        pool.append(c)
        slots.append(("H", 0, i))
    for i, c in enumerate(st.wilderness):
        if mine.get(c) != "w":
            pool.append(c)
            slots.append(("w", 0, i))
    for k, fr in enumerate(st.stack):
        if "hid" in fr and fr["seat"] != seat and not is_fate(fr):
            for i, c in enumerate(fr["hid"]):
                pool.append(c)
                slots.append(("L", k, i))
    # Deal from a sorted pool so that the world depends only on what `seat` knows (and on `rng`), never on
    # where the unknown cards really are: search bots rely on this to be unable to cheat.
    new = sorted(pool)
    rng.shuffle(new)
    _keep_pending_answerable(st, seat, slots, new, rng)
    mapping = dict(zip(pool, new, strict=True))
    for (z, p, i), c in zip(slots, new, strict=True):
        if z == "h":
            s.hands[p][i] = c
        elif z == "d":
            s.parties[p][i] = (c, False)
        elif z == "H":
            s.harbor[i] = c
        elif z == "w":
            s.wilderness[i] = c
        else:
            fr = s.stack[p]
            if fr is st.stack[p]:
                fr = s.stack[p] = {**fr, "hid": list(fr["hid"])}
            fr["hid"][i] = c
    for q in range(st.players):
        if q != seat:
            s.known[q] = {mapping.get(c, c): z for c, z in st.known[q].items()}
    for k, fr in enumerate(s.stack):  # another seat's drawn Fate cards: 2 at random from the deck
        if is_fate(fr) and fr["seat"] != seat:
            s.stack[k] = {**fr, "hid": draw_fates(rng)}
    others = _other_leaders(st, seat, rng)
    it = iter(others)
    s.leaders = [x if p == seat else next(it) for p, x in enumerate(st.leaders)]
    return s


def _other_leaders(st: State, seat: int, rng: Rng | _Sorted) -> list[str]:
    """The other seats' leaders, drawn from the exact posterior (legends §2.2): a fresh pool that contains
    the seat's own leader, each such pool equally likely, dealt at random."""
    own = st.leaders[seat]
    if "legends" not in st.modules:
        others = [x for x in BASE_LEADERS if x != own]
    else:
        a, b = LEADER_POOL[st.players]
        guard = own in GUARDIAN_LEADERS
        base = [x for x in BASE_LEADERS if x != own]
        gl = [x for x in GUARDIAN_LEADERS if x != own]
        rng.shuffle(base)
        rng.shuffle(gl)
        others = base[:a - (0 if guard else 1)] + gl[:b - (1 if guard else 0)]
    rng.shuffle(others)
    return others
