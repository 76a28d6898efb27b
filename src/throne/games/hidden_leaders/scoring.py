"""End of the game and scoring (rule book §5)."""

from __future__ import annotations

from typing import Any

from .cards import EMPEROR, LEADERS, is_of
from .state import State

#: Queens that count as 2 heroes of the winning faction in the party of one of these leaders.
QUEEN_LEADERS: dict[str, tuple[str, ...]] = {
    "queen-of-the-wild": ("myrad", "lemron"),
    "well-funded-queen": ("enned", "cyra"),
    "queen-of-the-streets": ("pavyr", "xiadul"),
}
BEST_FRIEND = "emperors-best-friend"


def winning_faction(red: int, green: int) -> str:
    if red >= 9 and green >= 9:
        return "undead"
    if abs(red - green) <= 1:
        return "water-folk"
    if red - green >= 2:
        return "imperial-army"
    return "hill-tribes"


def faction_heroes(st: State, seat: int, faction: str) -> tuple[int, int]:
    """(heroes counted for ``faction`` in the party, of which bonus from the Queens & Friend)."""
    party = [c for c, _ in st.parties[seat]]
    leader = st.leaders[seat]
    total = bonus = 0
    for c in party:
        base = 1 if is_of(c, faction) else 0
        doubled = (c == BEST_FRIEND and EMPEROR in party) or leader in QUEEN_LEADERS.get(c, ())
        n = 2 if doubled else base
        total += n
        bonus += n - base
    return total, bonus


def scores(st: State) -> list[dict[str, Any]]:
    """Per seat: leader, aligned, faction heroes, total heroes, bonus, winner flag and deciding tie-break.

    Before the game is over it scores the position as if the game ended now.
    """
    fac = winning_faction(st.red, st.green)
    rows: list[dict[str, Any]] = []
    for p in range(st.players):
        lead = st.leaders[p]
        count, bonus = faction_heroes(st, p, fac)
        rows.append({
            "seat": p,
            "leader": lead,
            "factions": list(LEADERS[lead].factions),
            "aligned": fac in LEADERS[lead].factions,
            "faction_heroes": count,
            "total_heroes": len(st.parties[p]),
            "bonus": bonus,
            "winner": False,
            "tiebreak": None,
        })
    aligned = [r for r in rows if r["aligned"]]
    if not aligned:
        return rows
    if len(aligned) == 1:
        why = "only-aligned"
        best = aligned[0]
    else:
        def key(r: dict[str, Any]) -> tuple[int, int, int]:
            return (r["faction_heroes"], -r["total_heroes"], LEADERS[r["leader"]].number)

        ranked = sorted(aligned, key=key, reverse=True)
        best, second = ranked[0], ranked[1]
        if best["faction_heroes"] != second["faction_heroes"]:
            why = "most-faction-heroes"
        elif best["total_heroes"] != second["total_heroes"]:
            why = "fewest-heroes"
        else:
            why = "higher-leader-number"
    best["winner"] = True
    for r in aligned:
        r["tiebreak"] = why
    return rows


def winner(st: State) -> int | None:
    if st.phase != "over":
        return None
    for r in scores(st):
        if r["winner"]:
            return r["seat"]
    return None
