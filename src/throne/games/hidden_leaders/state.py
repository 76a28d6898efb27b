"""The game state: zones, markers, what each seat knows, and the stack of pending resolution steps.

Resolution is continuation based: the stack holds JSON-safe frames. A frame ``{"op": "ask", ...}`` is a
pending decision (its options are computed from the state when it reaches the top); any other frame is an
automatic step run by ``OPS[op]``. Answering a decision calls the continuation ``CONT[then]``. Because frames
are plain data, a state can be copied, serialised and determinised in the middle of a resolution.

Knowledge: ``known[s]`` maps a card to the hidden zone where seat ``s`` knows it is (``h<p>`` a hand,
``d<p>`` face down in a party, ``w`` the Wilderness). A seat's own hand and party are always known, public
zones are known to all. Facts are updated only from public events and the seat's own observations, never from
hidden truth: a card leaving a hidden zone unseen makes the seat forget every fact about that zone.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .. import legacy_rng
from ..api import Outcome
from ..randomness import LEGACY_RNG, RNG_VERSION, KeyedRandom, Seed, keyed
from . import moves as _moves
from .cards import CARDS, GUARDIAN_CARDS, KEEPER, MARKER_OPTIONS, is_of
from .frames import Ask, Cont, Decision, Filter, FrameError, Kind

CARD_NO: dict[str, int] = {c: i for i, c in enumerate(CARDS)}

Frame = dict[str, Any]
Cand = tuple[str, Any]

#: automatic steps: op -> fn(state, frame)
OPS: dict[str, Callable[[State, Frame], None]] = {}
#: candidate generators of decisions: name -> fn(state, frame) -> [(move string, value)]
FILTERS: dict[str, Callable[[State, Frame], list[Cand]]] = {}
#: continuations of decisions: name -> fn(state, frame, value or None for skip)
CONT: dict[str, Callable[[State, Frame, Any], None]] = {}
#: abilities: card id -> fn(state, me, card)
ABILITIES: dict[str, Callable[[State, int, str], None]] = {}


class IllegalMoveError(ValueError):
    """A move that is not legal in the current state; the state is unchanged."""


def op(name: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        OPS[name] = fn
        return fn

    return deco


def filt(name: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        FILTERS[name] = fn
        return fn

    return deco


def cont(name: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        CONT[name] = fn
        return fn

    return deco


def ability(*cards: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        for c in cards:
            ABILITIES[c] = fn
        return fn

    return deco


def fmt_moves(moves: list[tuple[str, int]]) -> str:
    return _moves.markers(moves)


class State:
    """A Hidden Leaders game. See the module docstring for the resolution and knowledge model."""

    __slots__ = (
        "asif",
        "chain",
        "decided",
        "draws",
        "first",
        "graveyard",
        "green",
        "guardian",
        "hands",
        "harbor",
        "history",
        "known",
        "last",
        "leaders",
        "modules",
        "parties",
        "phase",
        "players",
        "red",
        "rng_version",
        "seed",
        "setup_seat",
        "skips",
        "stack",
        "tavern",
        "track",
        "turn",
        "variant",
        "wilderness",
    )

    def __init__(self) -> None:
        self.players = 0
        self.variant = "full"
        self.modules: tuple[str, ...] = ("core",)
        self.seed: Seed = 0
        #: the generator version (randomness.RNG_VERSION, or LEGACY_RNG for games dealt before it)
        self.rng_version = RNG_VERSION
        #: how many random outcomes were drawn so far (each draw has its own keyed stream)
        self.draws = 0
        #: the seat that plays the first turn (random from the seed; always 0 with the legacy generator)
        self.first = 0
        self.red = 4
        self.green = 4
        #: the Guardian marker (legends §2.3); None when the module is off
        self.guardian: int | None = None
        #: seats that skip their next turn (Possessed Poodle, legends §5.3)
        self.skips: list[int] = []
        self.leaders: list[str] = []
        self.hands: list[list[str]] = []
        self.parties: list[list[tuple[str, bool]]] = []
        self.tavern: list[str | None] = [None, None, None]
        self.harbor: list[str] = []
        self.wilderness: list[str] = []
        self.graveyard: list[str] = []
        self.turn = 0
        self.phase = "setup"
        self.setup_seat = 0
        self.stack: list[Frame] = []
        self.chain: list[str] = []
        #: transient: True while a step of a card resolved "as if played" runs (frames it pushes inherit it)
        self.asif = False
        self.known: list[dict[str, str]] = []
        self.history: list[tuple[int, str]] = []
        self.last: tuple[int, str] | None = None
        self.track = True
        #: the pending decision (seat, kind, card, {move: value}, sorted moves), computed once by
        #: ``rules.decision``; every change of the state must call ``changed()``, which forgets it
        self.decided: Decision | None = None

    # ------------------------------------------------------------------ copying
    def clone(self, track: bool | None = None) -> State:
        """A cheap independent copy (frames are never mutated in place, so they are shared).

        ``track=False`` gives a copy that no longer records what each seat knows: about a third faster for
        search playouts, but it has no views and cannot be determinised.
        """
        s = State.__new__(State)
        s.track = self.track if track is None else (track and self.track)
        s.players, s.variant, s.modules, s.seed = self.players, self.variant, self.modules, self.seed
        s.rng_version, s.draws, s.first = self.rng_version, self.draws, self.first
        s.red, s.green, s.turn, s.phase = self.red, self.green, self.turn, self.phase
        s.guardian, s.skips = self.guardian, self.skips[:]
        s.setup_seat = self.setup_seat
        s.leaders = self.leaders[:]
        s.hands = [h[:] for h in self.hands]
        s.parties = [p[:] for p in self.parties]
        s.tavern = self.tavern[:]
        s.harbor = self.harbor[:]
        s.wilderness = self.wilderness[:]
        s.graveyard = self.graveyard[:]
        s.stack = self.stack[:]
        s.chain = self.chain[:]
        s.asif = False
        s.known = [dict(k) for k in self.known] if s.track else [{} for _ in self.known]
        s.history = self.history[:]
        s.last = self.last
        s.decided = self.decided
        return s

    def changed(self) -> None:
        """Forget the memoised pending decision: call it after changing the state outside ``play()``."""
        self.decided = None

    # ------------------------------------------------------------------ randomness
    def rng(self, purpose: str) -> KeyedRandom | random.Random:
        """The generator of the next random outcome, for ``purpose`` (e.g. ``"harbor"``, ``"fate"``).

        Each call draws a fresh stream keyed by the game seed, the purpose and the number of earlier draws, so
        the JSON state stays small and exact and no outcome tells anything about another. Games dealt with
        the legacy generator keep their old, position-derived streams (see ``legacy_rng``).
        """
        if self.rng_version == LEGACY_RNG:
            return legacy_rng.position_generator(self._legacy_key())
        n = self.draws
        self.draws = n + 1
        return keyed(self.seed, f"hidden-leaders/{purpose}/{n}")

    def _legacy_key(self) -> tuple[int | tuple, ...]:
        return (
            int(self.seed), len(self.stack), self.red, self.green, self.turn, len(self.harbor),
            len(self.wilderness), len(self.graveyard), tuple(len(p) for p in self.parties),
            tuple(len(h) for h in self.hands), CARD_NO.get(self.wilderness[0], 0) if self.wilderness else -1,
            CARD_NO.get(self.graveyard[0], 0) if self.graveyard else -1,
        )

    # ------------------------------------------------------------------ markers
    def leading(self) -> str | None:
        if self.red > self.green:
            return "R"
        if self.green > self.red:
            return "G"
        return None

    def changes(self, moves: list[tuple[str, int]]) -> bool:
        for m, d in moves:
            v = self.red if m == "R" else self.green
            if min(12, max(1, v + d)) != v:
                return True
        return False

    def move_markers(self, moves: list[tuple[str, int]]) -> None:
        for m, d in moves:
            if m == "R":
                self.red = min(12, max(1, self.red + d))
            else:
                self.green = min(12, max(1, self.green + d))

    def move_guardian(self, d: int) -> None:
        """Move the Guardian marker (legends §2.3), clamped to 1..12; nothing without the module."""
        if self.guardian is not None:
            self.guardian = min(12, max(1, self.guardian + d))

    def marker(self, me: int, card: str | None, options: list[list[tuple[str, int]]], choice: bool,
               chooser: int | None = None) -> None:
        """Apply a marker effect: one fixed option moves at once, a choice becomes a decision."""
        if not options:
            return
        if not choice:
            self.move_markers(options[0])
            return
        self.push(Ask(
            kind=Kind.MARKER, seat=me if chooser is None else chooser, card=card, filter=Filter.MARKER,
            then=Cont.MARKER, ctx={"opts": [fmt_moves(o) for o in options]},
        ))

    # ------------------------------------------------------------------ stack
    def push(self, decision: Ask) -> None:
        """Push a pending decision (checked now: an unknown filter or continuation is an engine bug)."""
        decision.check(FILTERS, CONT)
        self.stack.append(decision.frame(self.asif))

    def ask(self, kind: str, seat: int, card: str | None, f: str, then: str, may: bool = False,
            secret: bool = False, **ctx: Any) -> None:
        """Push a decision given by registered names (as a stored frame spells them); the rules push a
        typed ``Ask``. An unknown kind, filter or continuation raises and pushes nothing."""
        k = Kind(kind)
        if f not in FILTERS or then not in CONT:
            raise FrameError(f"decision {k}: unknown filter {f!r} or continuation {then!r}")
        self.push(Ask(kind=k, seat=seat, card=card, filter=Filter(f), then=Cont(then), may=may, secret=secret,
                      ctx=ctx))

    def later(self, name: str, **ctx: Any) -> None:
        """Push an automatic step; it runs after everything pushed after it."""
        ctx["op"] = name
        if self.asif:
            ctx["asif"] = True
        self.stack.append(ctx)

    def resolve(self, me: int, card: str, asif: bool = False) -> None:
        """Resolve ``card`` for seat ``me``: marker effect, then ability (played, or ``asif`` as if played).

        The decisions of a card resolved as if played (and of every step it pushes) carry ``asif``: they
        cannot choose a card of the resolution chain (rule book §4, ruling).
        """
        self.chain.append(card)
        if card in GUARDIAN_CARDS:  # +2 once the card, and every Fate it caused, has resolved (legends §2.3)
            self.stack.append({"op": "guardian-up"})
        self.stack.append({"op": "chain-pop"})
        if card in ABILITIES:
            fr: Frame = {"op": "ability", "me": me, "card": card}
            if asif:
                fr["asif"] = True
            self.stack.append(fr)
        opts, choice = MARKER_OPTIONS[card]
        self.marker(me, card, opts, choice)

    # ------------------------------------------------------------------ knowledge
    def learn(self, s: int, card: str, zone: str | None) -> None:
        """Seat ``s`` now knows ``card`` is in ``zone`` (None: a public zone or one of its own zones)."""
        if not self.track:
            return
        if zone is None or (zone[0] != "w" and int(zone[1:]) == s):
            self.known[s].pop(card, None)
        else:
            self.known[s][card] = zone

    def moved(self, card: str, src: str | None, dst: str | None, seen: tuple[int, ...] | None) -> None:
        """Record that ``card`` moved from ``src`` to ``dst`` (zone codes, None for public zones).

        ``seen`` is the seats that see which card moved (None: everybody). Every other seat forgets all it
        knew about the source zone, since it cannot tell which card left it.
        """
        if not self.track:
            return
        known = self.known
        owner = -1 if dst is None or dst[0] == "w" else int(dst[1:])
        if seen is None:
            if dst is None:
                for k in known:
                    if card in k:
                        del k[card]
            else:
                for s, k in enumerate(known):
                    if s == owner:
                        k.pop(card, None)
                    else:
                        k[card] = dst
            return
        src_owner = -1 if src is None or src[0] == "w" else int(src[1:])
        for s, k in enumerate(known):
            if s in seen:
                if dst is None or s == owner:
                    k.pop(card, None)
                else:
                    k[card] = dst
            elif src is not None and k and s != src_owner:
                stale = [c for c, z in k.items() if z == src]
                for c in stale:
                    del k[c]
                k.pop(card, None)

    def blur_all(self, zone: str) -> None:
        for k in self.known:
            for c in [c for c, z in k.items() if z == zone]:
                del k[c]

    # ------------------------------------------------------------------ zones
    def draw_harbor(self) -> str | None:
        """Top card of the Harbor, reshuffling the Wilderness into it first when empty."""
        if not self.harbor:
            if not self.wilderness:
                return None
            cards = self.wilderness
            self.wilderness = []
            self.rng("harbor").shuffle(cards)
            self.harbor = cards
            self.blur_all("w")
        return self.harbor.pop(0)

    def hero_str(self, p: int, idx: int) -> str:
        card, up = self.parties[p][idx]
        if up:
            return _moves.hero_up(p, card)
        k = sum(1 for c, u in self.parties[p][:idx] if not u)
        return _moves.hero_down(p, k)

    def heroes(self, seats: range | list[int] | tuple[int, ...], up: bool | None = None,
               pred: Callable[[str], bool] | None = None) -> list[Cand]:
        """Heroes of the given parties as (move, (seat, index)); ``up`` filters face-up/face-down."""
        out: list[Cand] = []
        for p in seats:
            k = 0
            for i, (c, u) in enumerate(self.parties[p]):
                if u:
                    if up is not False and (pred is None or pred(c)):
                        out.append((f"{p}:{c}", (p, i)))
                else:
                    if up is not True and pred is None:
                        out.append((f"{p}:down{k}", (p, i)))
                    k += 1
        return out

    def others(self, me: int) -> list[int]:
        return [p for p in range(self.players) if p != me]

    def bury(self, p: int, idx: int, by: int) -> None:
        """Bury a party hero for the burying seat ``by`` (Keeper of Discord may turn a face-up one face down
        instead). A buried Guardian card makes ``by`` resolve a Fate (legends §2.4)."""
        card, up = self.parties[p][idx]
        if up and card != KEEPER and any(c == KEEPER and u for c, u in self.parties[p]):
            self.parties[p][idx] = (card, False)
            self.moved(card, None, f"d{p}", None)
            return
        del self.parties[p][idx]
        self.to_graveyard(card, by)
        self.moved(card, None if up else f"d{p}", None, None)

    def to_graveyard(self, card: str, by: int) -> None:
        """Put ``card`` face up on top of the Graveyard (a bury); a Guardian card triggers a Fate."""
        self.graveyard.insert(0, card)
        if card in GUARDIAN_CARDS:
            _fate.push_fate(self, by, card)

    def turn_over(self, p: int, idx: int) -> None:
        card, up = self.parties[p][idx]
        self.parties[p][idx] = (card, not up)
        self.moved(card, None, None if not up else f"d{p}", None)

    def remove_hero(self, p: int, idx: int) -> tuple[str, bool]:
        return self.parties[p].pop(idx)

    def count_up(self, p: int, faction: str) -> int:
        return sum(1 for c, u in self.parties[p] if u and is_of(c, faction))

    def discard_tavern(self, pred: Callable[[str], bool]) -> int:
        n = 0
        for i, c in enumerate(self.tavern):
            if c is not None and pred(c):
                self.tavern[i] = None
                self.wilderness.insert(0, c)
                self.moved(c, None, "w", None)
                n += 1
        return n

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def markers(self) -> tuple[int, ...]:
        """(red, green), or (red, green, guardian) with the ``legends`` module."""
        if self.guardian is None:
            return (self.red, self.green)
        return (self.red, self.green, self.guardian)

    @property
    def to_play(self) -> int | None:
        """The seat that must decide now (None once the game is over)."""
        if self.phase == "over":
            return None
        return _rules.decision(self)[0]

    def legal_moves(self) -> list[str]:
        return _rules.legal_moves(self)

    def play(self, move: str) -> None:
        """Apply one move; raises IllegalMoveError (and changes nothing) when it is not legal."""
        _rules.play(self, move)

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What `seat` may know (None: a spectator); everything once the game is over."""
        return _view.view(self, seat)

    def determinize(self, seat: int, rng: random.Random | KeyedRandom) -> State:
        return _view.determinize(self, seat, rng)

    def blind(self, seat: int) -> State:
        """What ``seat`` knows, as a searchable state: see ``view.blind``."""
        return _view.blind(self, seat)

    def to_json(self) -> dict[str, Any]:
        return _view.to_json(self)

    @property
    def winning_faction(self) -> str | None:
        return _scoring.result_faction(self) if self.phase == "over" else None

    @property
    def winner(self) -> int | None:
        return _scoring.winner(self)

    @property
    def outcome(self) -> Outcome | None:
        """The winning seat and faction once the game is over (no winner: every score 0)."""
        if self.phase != "over":
            return None
        faction = self.winning_faction
        winner = self.winner
        if winner is None:
            return Outcome((), faction, (0.0,) * self.players, {"faction": faction})
        return Outcome.single(winner, self.players, faction, faction=faction)

    def scores(self) -> list[dict[str, Any]]:
        return _scoring.scores(self)

    def record(self) -> dict[str, Any]:
        return _record.record(self)

    def __repr__(self) -> str:
        gm = "" if self.guardian is None else f"/guardian{self.guardian}"
        return (f"<hidden-leaders players={self.players} turn={self.turn} phase={self.phase} "
                f"markers=R{self.red}/G{self.green}{gm}>")


from . import fate as _fate  # noqa: E402
from . import record as _record  # noqa: E402
from . import rules as _rules  # noqa: E402
from . import scoring as _scoring  # noqa: E402
from . import view as _view  # noqa: E402
