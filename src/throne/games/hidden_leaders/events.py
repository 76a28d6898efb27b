"""What a move did, as structured events for one seat (or a spectator): the table narrates them.

The events of a move are derived from the state before and after it and from the decision it answered, so
they follow the rules wherever an effect is implemented. A card's identity is in an event only when the
viewing seat may know it: the card is face up where it left or where it went (a face-up hero, the Tavern,
the Graveyard; not public cards a resolution held, whose split into hidden zones is the chooser's secret), the
zone is the seat's own hand or party, the seat holds it in a pending resolution, or after the move the seat
knows where it is (``known``). Everything else is a count. Events (JSON-safe dicts):

- ``setup``      {seat}: the seat kept a hero face down and discarded a card
- ``play``       {seat, card}: a card played face up from the hand
- ``pass``       {seat}: the seat neither played nor discarded
- ``decision``   {seat, kind, card, move}: a decision of a resolving ``card`` (the move in its public form)
- ``markers``    {red, green[, guardian], option}: marker moves as [before, after]; ``option`` is the chosen
                 marker option when the move chose one
- ``cards``      {verb, count, cards, from, to}: cards that moved between zones; ``cards`` lists the ones
                 this seat may see (``count`` is the total); a zone is {zone, seat?, up?} with zone one of
                 hand, party, tavern, harbor, wilderness, graveyard, pending. ``verb``: bury, discard, draw,
                 take, return, place, turn-up, turn-down, refill, reshuffle, move
- ``look``       {seat, zone, owner, count, cards}: ``seat`` looked at ``count`` hidden cards of ``owner``'s
                 ``zone`` (hand, party or wilderness); ``cards`` only for the seat that looked
- ``fate``       {seat}: the seat drew 2 Fate cards (legends); its choice is a ``decision``
- ``skip-next``  {seat}: the seat will skip its next turn (legends); ``turn-skipped`` {seat}: it did
- ``turn-end``   {seat}
- ``game-end``   {faction, why, markers, seats, threshold, winner, tiebreak, leaders}: ``why`` is
                 ``guardians``,
                 ``war`` (both markers on 9+), ``balance`` (1 apart or level), ``red-ahead`` or
                 ``green-ahead``; ``seats`` {seat: face-up heroes} of the seats that reached ``threshold``
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import rules, scoring
from .fate import is_fate
from .state import State

Event = dict[str, Any]
EVENT_TYPES = ("setup", "play", "pass", "decision", "markers", "cards", "look", "fate", "skip-next",
               "turn-skipped", "turn-end", "game-end")
#: a card's place: (zone, seat or None, face up or None)
Place = tuple[str, int | None, bool | None]

_ORDER = ("place", "turn-up", "turn-down", "bury", "take", "return", "discard", "draw", "refill",
          "reshuffle", "move")


def locate(st: State) -> dict[str, Place]:
    """Where every card of ``st`` is (cards held by a pending resolution: zone ``pending``, with the one
    seat that sees them, or None when they are public)."""
    where: dict[str, Place] = {}
    for p, hand in enumerate(st.hands):
        for c in hand:
            where[c] = ("hand", p, None)
    for p, party in enumerate(st.parties):
        for c, up in party:
            where[c] = ("party", p, up)
    for c in st.tavern:
        if c is not None:
            where[c] = ("tavern", None, True)
    for zone, cards in (("harbor", st.harbor), ("wilderness", st.wilderness), ("graveyard", st.graveyard)):
        for c in cards:
            where[c] = (zone, None, zone == "graveyard")
    for fr in st.stack:
        if fr.get("op") != "ask" or is_fate(fr):
            continue
        held, seat = (fr["hid"], fr["seat"]) if "hid" in fr else (fr.get("pub", ()), None)
        for c in held:
            where.setdefault(c, ("pending", seat, None))
    return where


def _public(place: Place) -> bool:
    return bool(place[2]) or place[0] == "tavern" or (place[0] == "pending" and place[1] is None)


def _known_code(place: Place) -> str | None:
    zone, seat, up = place
    if zone == "hand":
        return f"h{seat}"
    if zone == "party" and not up:
        return f"d{seat}"
    if zone == "wilderness":
        return "w"
    return None


def _sees(after: State, viewer: int | None, card: str, src: Place, dst: Place, reveal: bool) -> bool:
    if reveal or after.phase == "over" or _public(dst):
        return True
    if _public(src) and src[0] != "pending":
        return True
    # public cards held by a resolution (the Tavern of Battle Connoisseur, the Graveyard of Crow Carrier) that
    # go to hidden zones: which one went where is the chooser's secret unless the viewer learnt it
    if viewer is None:
        return False
    for zone, seat, _ in (src, dst):
        if seat == viewer and zone in ("hand", "party", "pending"):
            return True
    code = _known_code(dst)
    return code is not None and after.known[viewer].get(card) == code


def _verb(src: Place, dst: Place) -> str:
    a, b = src[0], dst[0]
    if b == "graveyard":
        return "bury"
    if a == "party" and b == "party" and src[1] == dst[1]:
        return "turn-up" if dst[2] else "turn-down"
    if b == "wilderness":
        return "discard"
    if b == "tavern":
        return "refill"
    if b == "harbor":
        return "reshuffle" if a == "wilderness" else "discard"
    if b == "party":
        return "place" if a in ("hand", "pending") and src[1] in (None, dst[1]) else "take"
    if b in ("hand", "pending"):
        if a in ("hand", "party") and src[1] != dst[1]:
            return "take"
        if a == "party":
            return "return"
        return "draw"
    return "move"


def _zone(place: Place) -> dict[str, Any]:
    zone, seat, up = place
    out: dict[str, Any] = {"zone": zone}
    if zone in ("hand", "party") or (zone == "pending" and seat is not None):
        out["seat"] = seat
    if zone == "party":
        out["up"] = up
    return out


#: cards that moved between two places, by verb: (verb, from, to, the cards in the order they were found)
Group = tuple[str, Place, Place, list[str]]


def _groups(old: dict[str, Place], new: dict[str, Place], played: str | None) -> list[Group]:
    """The cards that moved, grouped by verb and places, in the order the table narrates them."""
    groups: dict[tuple[str, Place, Place], list[str]] = {}
    for card, dst in new.items():
        src = old.get(card)
        if src is None or src == dst or (card == played and dst == ("party", src[1], True)):
            continue
        groups.setdefault((_verb(src, dst), src, dst), []).append(card)
    order = sorted(groups.items(), key=lambda g: (_ORDER.index(g[0][0]), str(g[0][1:])))
    return [(verb, src, dst, cards) for (verb, src, dst), cards in order]


def _moves(groups: list[Group], after: State, viewer: int | None, reveal: bool) -> list[Event]:
    return [{"type": "cards", "verb": verb, "count": len(cards),
             "cards": sorted(c for c in cards if _sees(after, viewer, c, src, dst, reveal)),
             "from": _zone(src), "to": _zone(dst)} for verb, src, dst, cards in groups]


#: hidden cards a seat newly knows without them having moved: (seat, zone, owner, cards)
Look = tuple[int, str, int | None, list[str]]


def _looked(old: dict[str, Place], new: dict[str, Place], before: State, after: State) -> list[Look]:
    if not after.track or after.phase == "over":
        return []
    out: list[Look] = []
    for seat in range(after.players):
        seen: dict[str, list[str]] = {}
        for card, code in after.known[seat].items():
            if before.known[seat].get(card) == code or old.get(card) != new.get(card):
                continue
            seen.setdefault(code, []).append(card)
        for code, cards in sorted(seen.items()):
            zone = {"h": "hand", "d": "party", "w": "wilderness"}[code[0]]
            out.append((seat, zone, None if code == "w" else int(code[1:]), sorted(cards)))
    return out


def _looks(looks: list[Look], viewer: int | None, reveal: bool) -> list[Event]:
    return [{"type": "look", "seat": seat, "zone": zone, "owner": owner, "count": len(cards),
             "cards": cards if reveal or viewer == seat else []} for seat, zone, owner, cards in looks]


def _fates(st: State) -> int:
    return sum(1 for fr in st.stack if is_fate(fr))


@dataclass(frozen=True)
class _Described:
    """What a move did, whoever looks: worked out once, then shown to each viewer (`_shown`)."""

    before: State
    move: str
    after: State
    seat: int
    kind: str
    card: str | None
    played: str | None
    groups: list[Group]
    looks: list[Look]


def _describe(before: State, move: str, after: State) -> _Described:
    seat, kind, card, _, _ = rules.decision(before)
    words = move.split()
    played = words[1] if kind == "action" and words[0] == "play" else None
    old, new = locate(before), locate(after)
    return _Described(before, move, after, seat, kind, card, played, _groups(old, new, played),
                      _looked(old, new, before, after))


def _shown(d: _Described, viewer: int | None, reveal: bool) -> list[Event]:
    before, move, after, seat, kind = d.before, d.move, d.after, d.seat, d.kind
    out: list[Event] = []
    if kind == "setup":
        out.append({"type": "setup", "seat": seat})
    elif d.played is not None:
        out.append({"type": "play", "seat": seat, "card": d.played})
    elif kind == "action" and move == "pass":
        out.append({"type": "pass", "seat": seat})
    elif before.phase == "resolve" and kind != "marker":
        shown = after.last[1] if after.last is not None and viewer != seat and not reveal else move
        out.append({"type": "decision", "seat": seat, "kind": kind, "card": d.card, "move": shown})
    if before.markers != after.markers:
        ev: Event = {"type": "markers", "option": move if kind == "marker" else None}
        for name, a, b in zip(("red", "green", "guardian"), before.markers, after.markers, strict=False):
            ev[name] = [a, b]
        out.append(ev)
    out += _moves(d.groups, after, viewer, reveal)
    out += _looks(d.looks, viewer, reveal)
    if _fates(after) > _fates(before):
        top = next(fr for fr in reversed(after.stack) if is_fate(fr))
        out.append({"type": "fate", "seat": top["seat"]})
    out += [{"type": "skip-next", "seat": p} for p in after.skips if p not in before.skips]
    if after.phase == "action" and before.phase != "setup":
        out.append({"type": "turn-end", "seat": before.turn})
        out += [{"type": "turn-skipped", "seat": p} for p in before.skips if p not in after.skips]
    if after.phase == "over":
        out.append(ending(after))
    return out


def events(before: State, move: str, after: State, viewer: int | None, reveal: bool = False) -> list[Event]:
    """The events of ``move`` (played on ``before``, giving ``after``) as ``viewer`` may see them (None: a
    spectator); ``reveal`` shows every card (replays of finished games)."""
    return _shown(_describe(before, move, after), viewer, reveal)


def events_for(before: State, move: str, after: State, viewers: Sequence[int | None],
               reveal: bool = False) -> list[list[Event]]:
    """``events`` for each of ``viewers``, the move worked out once (a server tells every seat each move)."""
    described = _describe(before, move, after)
    return [_shown(described, viewer, reveal) for viewer in viewers]


def reveals(before: State, move: str, after: State) -> bool:
    """Whether ``move`` made a card known to a seat that did not know it (a card turned or played face up, a
    look, a card taken into a hand or face down into a party) or drew randomness (a draw or refill from the
    Harbor, a reshuffle, Fate cards, a random pick): a takeback never goes back past it."""
    if after.phase == "over" or after.draws > before.draws:  # (a random pick: a bury, a card taken)
        return True
    old, new = locate(before), locate(after)
    for card, dst in new.items():
        src = old.get(card)
        if src is None or src == dst:
            continue
        if (_public(dst) and not _public(src)) or src[0] == "harbor" or dst[0] == "harbor":
            return True
        if dst[1] is not None and src[1] != dst[1] and (dst[0] in ("hand", "pending") or not _public(src)):
            return True  # a seat now holds a card it did not hold: in its hand, or a hidden one in its party
    for seat in range(min(len(before.known), len(after.known))):
        for card, code in after.known[seat].items():
            held = old.get(card, ("", None, None))
            if before.known[seat].get(card) != code and not (held[0] in _HELD and held[1] == seat):
                return True  # the seat learnt where a card it did not hold went
    return _fates(after) > _fates(before)


_HELD = ("hand", "party", "pending")


def deciding(st: State) -> bool:
    """Whether a card's resolution waits for a decision (of any seat): no takeback is asked meanwhile."""
    return st.phase == "resolve"


def ending(st: State) -> Event:
    """Why a finished game ended and who won (everything is public once the game is over)."""
    n = rules.threshold(st)
    faction = scoring.result_faction(st)
    if faction == "guardians":
        why = "guardians"
    elif faction == "undead":
        why = "war"
    elif faction == "water-folk":
        why = "balance"
    else:
        why = "red-ahead" if faction == "imperial-army" else "green-ahead"
    rows = scoring.scores(st)
    reached = {str(p): sum(1 for _, up in party if up) for p, party in enumerate(st.parties)
               if sum(1 for _, up in party if up) >= n}
    tiebreak = next((r["tiebreak"] for r in rows if r["winner"]), None)
    return {"type": "game-end", "faction": faction, "why": why, "markers": dict(zip(
        ("red", "green", "guardian"), st.markers, strict=False)), "seats": reached, "threshold": n,
        "winner": scoring.winner(st), "tiebreak": tiebreak, "leaders": list(st.leaders)}
