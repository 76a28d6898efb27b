"""End of the game and scoring (rule book §5)."""

from __future__ import annotations

from typing import Any

from .cards import EMPEROR, GUARDIAN_CARDS, GUARDIAN_LEADERS, GUARDIANS, LEADERS, MOTHER, is_of
from .state import State

#: Queens that count as 2 heroes of the winning faction in the party of one of these leaders.
QUEEN_LEADERS: dict[str, tuple[str, ...]] = {
    "queen-of-the-wild": ("myrad", "lemron"),
    "well-funded-queen": ("enned", "cyra"),
    "queen-of-the-streets": ("pavyr", "xiadul"),
}
BEST_FRIEND = "emperors-best-friend"


def winning_faction(red: int, green: int, guardian: int | None = None, guardian_seated: bool = False) -> str:
    """The winning faction (§5.1; legends §3.1: the Guardians first, when a Guardian leader is seated and
    the Guardian marker is strictly ahead of both R and G)."""
    if guardian_seated and guardian is not None and guardian > red and guardian > green:
        return GUARDIANS
    if red >= 9 and green >= 9:
        return "undead"
    if abs(red - green) <= 1:
        return "water-folk"
    if red - green >= 2:
        return "imperial-army"
    return "hill-tribes"


def guardian_seated(st: State) -> bool:
    """Whether any seat holds a Guardian leader (secret: only omniscient code may ask)."""
    return any(x in GUARDIAN_LEADERS for x in st.leaders)


def result_faction(st: State) -> str:
    """The faction that wins if the game ends now (omniscient: it knows whether a Guardian leader sits)."""
    return winning_faction(st.red, st.green, st.guardian, guardian_seated(st))


def public_faction(st: State) -> dict[str, str | bool]:
    """The live winning faction in a form that does not depend on the seated leaders (legends §3.3, R23):
    ``faction`` from the base order and ``guardians_if_seated`` when the Guardian marker is ahead."""
    ahead = st.guardian is not None and st.guardian > st.red and st.guardian > st.green
    return {"faction": winning_faction(st.red, st.green), "guardians_if_seated": ahead}


def faction_heroes(st: State, seat: int, faction: str) -> tuple[int, int]:
    """(heroes counted for ``faction`` in the party, of which bonus from the Queens & Friend and Mother)."""
    party = [c for c, _ in st.parties[seat]]
    leader = st.leaders[seat]
    total = bonus = 0
    for c in party:
        base = 1 if is_of(c, faction) else 0
        doubled = (c == BEST_FRIEND and EMPEROR in party) or leader in QUEEN_LEADERS.get(c, ())
        n = 2 if doubled else base
        total += n
        bonus += n - base
    if MOTHER in party:  # legends §3.2: ⌊G/2⌋, G = Guardian cards in the party, Mother included
        extra = sum(1 for c in party if c in GUARDIAN_CARDS) // 2
        total += extra
        bonus += extra
    return total, bonus


def scores(st: State) -> list[dict[str, Any]]:
    """Per seat: leader, aligned, faction heroes, total heroes, bonus, winner flag and deciding tie-break.

    Before the game is over it scores the position as if the game ended now.
    """
    fac = result_faction(st)
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
