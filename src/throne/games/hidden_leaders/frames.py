"""Typed decision frames of the Hidden Leaders engine.

The resolution stack stores plain JSON frames (so a state copies, serialises and determinises in the middle
of a resolution); this module gives them types: `Kind` names every kind of decision, `Ask` is a pending
decision before it becomes a frame (validated when it is pushed), and `Decision` is the decision a state
is waiting for, as `rules.decision` computes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple


class Kind(StrEnum):
    """Every kind of decision (the `kind` of a view's `decision`; a `str`, so JSON keeps its value)."""

    SETUP = "setup"
    ACTION = "action"
    DRAW = "draw"
    DISCARD = "discard"
    MARKER = "marker"
    PICK_HERO = "pick-hero"
    PICK_TAVERN = "pick-tavern"
    PICK_CARD = "pick-card"
    PICK_HAND = "pick-hand"
    PICK_SEAT = "pick-seat"
    FACTION = "faction"
    EXTRA_PLAY = "extra-play"
    PILE = "pile"
    MODE = "mode"
    FATE = "fate"


class Filter(StrEnum):
    """Every candidate generator of a decision (registered with `state.filt`; the frame's `f`)."""

    FACTION = "faction"
    FATE = "fate"
    FIXED = "fixed"
    HAND = "hand"
    HERO = "hero"
    MARKER = "marker"
    OTHER_HAND = "other-hand"
    PICK = "pick"
    SEAT = "seat"
    TAVERN = "tavern"


class Cont(StrEnum):
    """Every continuation of a decision (registered with `state.cont`; the frame's `then`)."""

    AMAZON = "amazon"
    ARTIST = "artist"
    ARTIST_GIVE = "artist-give"
    ARTIST_SEAT = "artist-seat"
    ASIF = "asif"
    ASSASSIN = "assassin"
    ASSASSIN_FLIP = "assassin-flip"
    AUTOMATON = "automaton"
    BEACON = "beacon"
    BLOWFISH = "blowfish"
    BURY = "bury"
    CARTO = "carto"
    CARTO_SWAP = "carto-swap"
    CHAMELEON = "chameleon"
    CHIEF = "chief"
    COUNT = "count"
    CRYPTO = "crypto"
    CRYPTO_MOVE = "crypto-move"
    DARTER = "darter"
    EXTRA = "extra"
    FATE = "fate"
    FISH_PICK = "fish-pick"
    FISH_SWAP = "fish-swap"
    GHOUL = "ghoul"
    GORGON = "gorgon"
    GRIFFIN = "griffin"
    HAND_DOWN = "hand-down"
    HAND_SWAP_UP = "hand-swap-up"
    HOP_GOBLIN = "hop-goblin"
    IMPALER = "impaler"
    KEEP_DISCARD = "keep-discard"
    KEEP_HAND = "keep-hand"
    LOOK = "look"
    LOOK_MUST = "look-must"
    MARKER = "marker"
    MECHATRON = "mechatron"
    MERMAN = "merman"
    MUMMY = "mummy"
    NIGHTMARE = "nightmare"
    OCEAN = "ocean"
    POODLE = "poodle"
    PREACHER = "preacher"
    PROTECTOR = "protector"
    QM = "qm"
    SABER = "saber"
    SAGE = "sage"
    SALAMANDER = "salamander"
    SAPLING = "sapling"
    SAPLING_TAKE = "sapling-take"
    SHARK = "shark"
    SHELLFISH = "shellfish"
    SHELLFISH_HAND = "shellfish-hand"
    SLAYER = "slayer"
    SQUIRE = "squire"
    SQUIRE_SWAP = "squire-swap"
    SWAP_OTHER = "swap-other"
    SWAP_TAVERN = "swap-tavern"
    SWAP_UP = "swap-up"
    TAKE_RANDOM = "take-random"
    TAVERN_DISCARD = "tavern-discard"
    TITAN_GIVE = "titan-give"
    TURN_OVER = "turn-over"
    TURTLE = "turtle"
    WARRIOR = "warrior"
    WITCH = "witch"
    WIZARD = "wizard"


KINDS: dict[str, Kind] = {k.value: k for k in Kind}
"""Kind by value (a dict lookup, faster than calling `Kind` on the hot path)."""


class Decision(NamedTuple):
    """The pending decision: who decides, its kind, the card being resolved, `{move: value}`, sorted moves."""

    seat: int
    kind: Kind
    card: str | None
    options: dict[str, Any]
    moves: list[str]


class FrameError(ValueError):
    """A decision frame naming an unknown kind, filter or continuation (an engine bug, caught when pushed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """A decision of `seat` while `card` resolves: its options come from the filter `filter` when it reaches
    the top of the stack, and the answer goes to the continuation `then`. `may`: it can be skipped;
    `secret`: its answer is hidden from the other seats; `ctx`: filter and continuation parameters.

    Built with keywords only; `filter` and `then` are typed references to registered functions, stored in
    the frame as their registered names (`f`, `then`), so the JSON of a frame is plain strings."""

    kind: Kind
    seat: int
    card: str | None
    filter: Filter
    then: Cont
    may: bool = False
    secret: bool = False
    ctx: Mapping[str, Any] = field(default_factory=dict)

    def check(self, filters: Mapping[str, Any], continuations: Mapping[str, Any]) -> None:
        if self.filter not in filters:
            raise FrameError(f"decision {self.kind}: unknown filter {self.filter!r}")
        if self.then not in continuations:
            raise FrameError(f"decision {self.kind}: unknown continuation {self.then!r}")

    def frame(self, asif: bool) -> dict[str, Any]:
        """The JSON frame stored on the stack."""
        fr: dict[str, Any] = {
            "op": "ask", "kind": self.kind, "seat": self.seat, "card": self.card, "f": self.filter,
            "then": self.then,
        }
        if self.may:
            fr["may"] = True
        if self.secret:
            fr["secret"] = True
        if asif:
            fr["asif"] = True
        fr.update(self.ctx)
        return fr

    @staticmethod
    def of(frame: Mapping[str, Any]) -> Ask:
        """The typed form of a stored decision frame (a frame of older JSON reads the same: same keys)."""
        if frame.get("op") != "ask":
            raise FrameError(f"not a decision frame: {frame.get('op')!r}")
        core = {"op", "kind", "seat", "card", "f", "then", "may", "secret", "asif"}
        try:
            f, then = Filter(frame["f"]), Cont(frame["then"])
        except ValueError as e:
            raise FrameError(f"decision {frame.get('kind')}: {e}") from None
        return Ask(
            kind=Kind(frame["kind"]), seat=frame["seat"], card=frame["card"], filter=f, then=then,
            may=bool(frame.get("may")), secret=bool(frame.get("secret")),
            ctx={k: v for k, v in frame.items() if k not in core},
        )


def check_registry(filters: Mapping[str, Any], continuations: Mapping[str, Any]) -> None:
    """Every `Filter` and `Cont` names a registered function and every registered one has a name here
    (checked once all rule modules are imported, so a typed reference cannot dangle)."""
    for enum, registered in ((Filter, filters), (Cont, continuations)):
        names = {m.value for m in enum}
        if names != set(registered):
            raise FrameError(f"{enum.__name__}: unregistered {sorted(names - set(registered))}, "
                             f"unnamed {sorted(set(registered) - names)}")
