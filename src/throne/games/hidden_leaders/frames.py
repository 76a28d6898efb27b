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


@dataclass(frozen=True)
class Ask:
    """A decision of `seat` while `card` resolves: its options come from the filter `filter` when it reaches
    the top of the stack, and the answer goes to the continuation `then`. `may`: it can be skipped;
    `secret`: its answer is hidden from the other seats; `ctx`: filter and continuation parameters."""

    kind: Kind
    seat: int
    card: str | None
    filter: str
    then: str
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
        """The typed form of a stored decision frame."""
        if frame.get("op") != "ask":
            raise FrameError(f"not a decision frame: {frame.get('op')!r}")
        core = {"op", "kind", "seat", "card", "f", "then", "may", "secret", "asif"}
        return Ask(
            kind=Kind(frame["kind"]), seat=frame["seat"], card=frame["card"], filter=frame["f"],
            then=frame["then"], may=bool(frame.get("may")), secret=bool(frame.get("secret")),
            ctx={k: v for k, v in frame.items() if k not in core},
        )
