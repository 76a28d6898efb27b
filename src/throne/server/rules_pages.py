"""The rules and help pages: ``/rules``, ``/rules/leaders``, ``/rules/hidden-leaders`` and ``/help``.

Every fact on these pages comes from the engines: the Leaders diagrams are computed from positions the
engine reads (:mod:`throne.server.rules_diagrams`), and the Hidden Leaders tables (thresholds, leaders, cards
by faction, Fate cards, the winning-faction examples) from the engine's own tables and scoring function. The
texts are the catalogue's (``rules.*``, ``help.*``, ``hl.card.*``, ``leaders.piece.*``).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from throne.games.hidden_leaders.cards import (
    CARDS,
    EMPEROR,
    FACTIONS,
    GUARDIANS,
    LEADERS,
    MODULES,
    THRESHOLDS,
)
from throne.games.hidden_leaders.fate import FATE_DECK
from throne.games.hidden_leaders.scoring import winning_faction
from throne.games.leaders.pieces import CODES
from throne.server import rules_diagrams
from throne.server.pages import _render

router = APIRouter(include_in_schema=False)

#: Marker positions shown as examples of the winning order (the faction is the engine's answer).
WIN_EXAMPLES: tuple[tuple[int, int], ...] = ((9, 11), (6, 7), (4, 4), (8, 5), (12, 8), (3, 6), (9, 7))


@cache
def _leaders_context() -> dict[str, Any]:
    diagrams = rules_diagrams.champion_diagrams()
    return {
        "pieces": [
            {"code": code, "kind": rules_diagrams.kind_of(code), "diagram": diagrams[code]}
            for code in CODES if code != "CU"  # the Cub shares the Hermit's card and diagram
        ],
        "losses": rules_diagrams.loss_diagrams(),
        "recruit": rules_diagrams.recruit_diagram(),
    }


@cache
def _hidden_context() -> dict[str, Any]:
    by_faction: dict[str, list[dict[str, Any]]] = {f: [] for f in (*FACTIONS, GUARDIANS)}
    for card in CARDS.values():
        if card.id == EMPEROR:
            continue
        by_faction[card.faction or GUARDIANS].append(
            {"id": card.id, "module": card.module, "guardian": card.guardian}
        )
    players = sorted(THRESHOLDS["full"])
    return {
        "factions": [(f, sorted(cards, key=lambda c: (MODULES.index(c["module"]), c["id"])))
                     for f, cards in by_faction.items() if cards],
        "emperor": EMPEROR,
        "modules": MODULES,
        "players": players,
        "thresholds": {v: [THRESHOLDS[v][p] for p in players] for v in ("full", "basic")},
        "leaders": sorted(LEADERS.values(), key=lambda x: x.number),
        "examples": [(r, g, winning_faction(r, g)) for r, g in WIN_EXAMPLES],
        "fates": sorted(Counter(FATE_DECK).items()),
        "track": range(1, 13),
    }


@router.get("/rules", response_class=HTMLResponse)
async def rules_index(request: Request) -> HTMLResponse:
    return await _render(request, "rules_index.html")


@router.get("/rules/leaders", response_class=HTMLResponse)
async def rules_leaders(request: Request) -> HTMLResponse:
    return await _render(request, "rules_leaders.html", **_leaders_context())


@router.get("/rules/hidden-leaders", response_class=HTMLResponse)
async def rules_hidden_leaders(request: Request) -> HTMLResponse:
    return await _render(request, "rules_hidden.html", **_hidden_context())


@router.get("/help", response_class=HTMLResponse)
async def help_page(request: Request) -> HTMLResponse:
    return await _render(request, "help.html")
