"""Plain-language sentences for the engines' move events, for the terminal (the web table's wording: the same
catalogue keys, ``ui.ev.*``, in English)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from throne import games, i18n

LANG = "en"
_OWNED = {"bury", "place", "take", "return", "turn-up", "turn-down"}
_ZONES = {"tavern": "hl.zone.tavern", "harbor": "hl.zone.harbor", "wilderness": "hl.zone.wilderness",
          "graveyard": "hl.zone.graveyard"}


def _t(key: str, **kw: Any) -> str:
    return i18n.t(LANG, key, **kw)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _piece(code: str) -> str:
    return _t(f"leaders.piece.{code}.name")


def _card(card: str) -> str:
    return _t(f"hl.card.{card}.name")


class Narrator:
    """Sentences for the events of one game as ``seat`` sees them.

    Seats are named by the game's spec (``seat_names``, through the catalogue's ``ui.<game>.<name>`` as the
    lobby does), else by ``name(seat)``. The wording follows each event's own fields, never the game id."""

    def __init__(self, game: str, seat: int | None, name: Callable[[int], str] | None = None) -> None:
        self.game, self.seat, self.name = game, seat, name
        self.seat_names = games.get(game).seat_names

    def who(self, seat: int | None) -> str:
        if seat is not None and seat == self.seat:
            return _t("ui.ev.you")
        if seat is not None and 0 <= seat < len(self.seat_names):
            name = self.seat_names[seat]
            try:
                return _t(f"ui.{self.game}.{name}")
            except i18n.UnknownMessageError:  # a game whose seat names are not in the catalogue
                return name
        return self.name(seat) if self.name and seat is not None else f"seat {seat}"

    def piece(self, code: str, side: int) -> str:
        if side == self.seat:
            return _t("ui.ev.your_piece", piece=_piece(code))
        return _t("ui.ev.whose_piece", side=self.who(side), piece=_piece(code))

    def sentences(self, events: list[dict[str, Any]]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(events):
            ev = events[i]
            nxt = events[i + 1] if i + 1 < len(events) else None
            if ev["type"] == "play" and nxt is not None and nxt["type"] == "markers":
                out.append(_t("ui.ev.hl.play_markers", who=self.who(ev["seat"]), card=_card(ev["card"]),
                              change=self._markers(nxt)))
                i += 2
                continue
            text = self.sentence(ev)
            if text:
                out.append(text)
            i += 1
        return out

    def _markers(self, ev: dict[str, Any]) -> str:
        parts = []
        for name in ("red", "green", "guardian"):
            if name in ev and ev[name][0] != ev[name][1]:
                d = ev[name][1] - ev[name][0]
                parts.append(_t(f"ui.ev.hl.marker.{name}", d=f"+{d}" if d > 0 else f"−{-d}"))
        return _list(parts) if parts else _t("ui.ev.hl.marker.none")

    def _cards(self, ev: dict[str, Any]) -> str:
        names = [_card(c) for c in ev["cards"]]
        hidden = ev["count"] - len(names)
        if hidden == 1:
            names.append(_t("ui.ev.hl.hidden_one"))
        elif hidden > 1:
            names.append(_t("ui.ev.hl.hidden_n", n=hidden))
        return _list(names)

    def sentence(self, ev: dict[str, Any]) -> str | None:
        kind = ev["type"]
        by = self.who(ev.get("seat"))
        if kind == "move":
            key = "ui.ev.l.ability" if ev["ability"] and ev["piece"] != "L" else "ui.ev.l.move"
            return _t(key, piece=_cap(self.piece(ev["piece"], ev["side"])), path=" → ".join(ev["path"]))
        if kind == "displace":
            return _t(f"ui.ev.l.by_{ev['how']}", by=_cap(self.piece(ev["by"], ev["by_side"])),
                      piece=self.piece(ev["piece"], ev["side"]), **{"from": ev["from"], "to": ev["to"]})
        if kind == "reaction":
            return _t("ui.ev.l.reaction", piece=_cap(self.piece(ev["piece"], ev["side"])),
                      path=" → ".join(ev["path"]))
        if kind == "recruit":
            return _t("ui.ev.l.recruit", who=self.who(ev["side"]), card=_piece(ev["card"]),
                      cells=_list(ev["cells"]))
        if kind == "refill":
            return _t("ui.ev.l.refill", card=_piece(ev["card"])) if ev["card"] else _t("ui.ev.l.refill_empty")
        if kind == "ban":
            return _t("ui.ev.l.ban", who=self.who(ev["side"]), card=_piece(ev["card"]))
        if kind == "turn-end":  # a numbered turn of a side (Leaders) or the end of a seat's turn
            if "turn" in ev:
                return _t("ui.ev.l.turn_end", who=self.who(ev["side"]), n=ev["turn"])
            return _t("ui.ev.hl.turn_end", who=by)
        if kind == "game-end":  # a termination reason (Leaders) or a winning faction (Hidden Leaders)
            return self._leaders_end(ev) if "reason" in ev else self._hidden_end(ev)
        if kind in ("setup", "pass"):
            return _t(f"ui.ev.hl.{kind}", who=by)
        if kind == "play":
            return _t("ui.ev.hl.play", who=by, card=_card(ev["card"]))
        if kind == "decision":
            return _t("ui.ev.hl.decision", who=by, choice=ev["move"])
        if kind == "markers":
            return _t("ui.ev.hl.markers", change=self._markers(ev))
        if kind == "cards":
            return self._moved(ev, by)
        if kind == "look":
            suffix = "_n" if ev["count"] > 1 else ""
            if ev["owner"] is not None and ev["owner"] == self.seat and ev["zone"] != "wilderness":
                suffix += "_you"
            cards = f": {_list([_card(c) for c in ev['cards']])}" if ev["cards"] else ""
            owner = "" if ev["owner"] is None else self.who(ev["owner"])
            return _t(f"ui.ev.hl.look_{ev['zone']}{suffix}", who=by, owner=owner, n=ev["count"], cards=cards)
        if kind == "fate":
            return _t("ui.ev.hl.fate", who=by)
        if kind == "skip-next":
            return _t("ui.ev.hl.skip_next", who=by)
        if kind == "turn-skipped":
            return _t("ui.ev.hl.turn_skipped", who=by)
        return None

    def _moved(self, ev: dict[str, Any], by: str) -> str:
        verb = ev["verb"]
        zone = ev["to"] if verb in ("place", "return") else ev["from"]
        seat = zone.get("seat", ev["to"].get("seat"))
        key = "draw" if verb == "take" and "seat" not in ev["from"] else verb
        if key in _OWNED and seat is not None:
            if seat == self.seat:
                key += "_you"
            elif seat == ev.get("seat"):
                key += "_self"
        who = self.who(seat) if verb == "return" or verb.startswith("turn-") else by
        source = _t(_ZONES.get(ev["from"]["zone"], "ui.ev.hl.zone.other"))
        owner = "" if seat is None else self.who(seat)
        return _t(f"ui.ev.hl.{key}", who=who, cards=self._cards(ev), owner=owner, source=source)

    def _leaders_end(self, ev: dict[str, Any]) -> str:
        if ev["reason"] == "surround":
            return _t("ui.ev.l.surround", leader=_cap(self.piece("L", ev["loser"])), cell=ev["leader"])
        if ev["reason"] == "capture":
            side = ev["pieces"][0]["side"] if ev["pieces"] else 1 - ev["loser"]
            names = _list([f"{_piece(p['piece'])} {p['cell']}" for p in ev["pieces"]])
            pieces = (_t("ui.ev.your_pieces", pieces=names) if side == self.seat
                      else _t("ui.ev.whose_pieces", side=self.who(side), pieces=names))
            return _t("ui.ev.l.capture", pieces=_cap(pieces), leader=self.piece("L", ev["loser"]),
                      cell=ev["leader"])
        return _t(f"ui.leaders.termination.{ev['reason']}")

    def _hidden_end(self, ev: dict[str, Any]) -> str:
        markers = {"red": "", "green": "", "guardian": "", **ev["markers"]}
        text = _t("ui.ev.hl.end", faction=_t(f"hl.faction.{ev['faction']}"),
                  why=_t(f"ui.ev.hl.why.{ev['why']}", **markers))
        reached = [_t("ui.ev.hl.reached", who=self.who(int(s)), n=n) for s, n in ev["seats"].items()]
        return f"{text} {_list(reached)}." if reached else text
