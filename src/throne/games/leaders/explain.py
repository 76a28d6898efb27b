"""Why a move is not legal: precise reasons for IllegalMoveError messages (off the hot path)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .actions import DECODE, T_BAN, T_END, T_HC2, T_PATH, T_REC, T_RECHC, T_SWAP, T_TARGET
from .board import ADJACENT, NAMES, RECRUIT_CELLS, RECRUIT_SET
from .pieces import ACTIVE, CODES, CU, HE, JA, NE, PIECE_NAMES, PR, SIDE_NAMES
from .rules import (
    ACTION,
    BANISH,
    CAPTURE,
    REACTION,
    RECRUIT,
    available,
    gen_piece,
    lost,
    make_ctx,
    nemesis_owner,
    offered,
)

if TYPE_CHECKING:
    from .state import State


def _piece(p: int) -> str:
    return f"{SIDE_NAMES[p & 1]} {PIECE_NAMES[p >> 1]}"


def _self_harm(st: State, action: int) -> str | None:
    """If the action is geometrically legal but leaves the mover's Leader lost, say how."""
    c = st.clone()
    side = c.turn
    c.apply(action)
    how = lost(c.board, c.loc[side], side)
    if not how:
        return None
    word = "captured" if how == CAPTURE else "surrounded"
    extra = " (even though it would also take the enemy Leader)" if c.winner == side else ""
    return f"it would leave your own Leader {word}{extra}"


def _recruit_reason(st: State, action: int) -> str:
    t, args = DECODE[action]
    side = st.turn
    kind = args[0] if t == T_REC else HE
    cells = args[1:] if t == T_REC else args
    if kind not in offered(st):
        if st.strategist:
            why = "banished" if kind in st.banned else "already recruited"
            return f"{CODES[kind]} is not available: it is {why}"
        shown = ",".join(CODES[k] if k >= 0 else "-" for k in st.market_cards)
        return f"{CODES[kind]} is not in the market ({shown})"
    for c in cells:
        if c not in RECRUIT_SET[side]:
            own = " ".join(NAMES[x] for x in RECRUIT_CELLS[side])
            return f"{NAMES[c]} is not one of your recruitment cells ({own})"
        if st.board[c] >= 0:
            return f"{NAMES[c]} is occupied"
    c = st.clone()
    c.apply(action)
    how = lost(c.board, c.loc[side], side)
    if how:
        return "the placement would leave your own Leader " + ("captured" if how == CAPTURE else "surrounded")
    return "not a legal recruitment here"


def _reaction_reason(st: State, action: int) -> str:
    owner = nemesis_owner(st.loc)
    ne = st.loc[NE * 2 + owner]
    t, args = DECODE[action]
    who = SIDE_NAMES[owner]
    foreign = (
        t in (T_PATH, T_TARGET, T_SWAP, T_HC2) and st.board[args[0]] >= 0 and st.board[args[0]] & 1 != owner
    )
    if foreign or (t in (T_END, T_REC, T_RECHC) and owner != st.turn):
        return f"not your decision: {who} must first choose the Nemesis reaction (Nemesis on {NAMES[ne]})"
    if t != T_PATH or args[0] != ne:
        return f"a Nemesis reaction is pending: {who} must move the Nemesis on {NAMES[ne]}"
    options = st.legal_actions()
    if len(args) == 2 and options and len(DECODE[options[0]][1]) == 3:
        return "the Nemesis must move 2 cells when a 2-step path exists"
    for c in args[1:]:
        if st.board[c] >= 0:
            return f"{NAMES[c]} is occupied"
    if not all(ADJACENT[a][b] for a, b in itertools.pairwise(args)):
        return "the Nemesis moves by basic steps between neighbouring cells"
    return "that path would leave your own Leader surrounded while another path exists"


def explain(st: State, action: int) -> str:
    """A one-line reason why ``action`` is not legal for ``st.to_play`` now."""
    t, args = DECODE[action]
    side = st.turn
    if st.phase_id == REACTION:
        return _reaction_reason(st, action)
    if st.phase_id == BANISH:
        if t != T_BAN:
            return f"banishment: {SIDE_NAMES[side]} must first banish a card with 'ban CODE'"
        kind = args[0]
        why = "already banished" if kind in st.banned else "already recruited"
        return f"{CODES[kind]} cannot be banished: it is {why}" if kind not in available(st) else "unexpected"
    if t == T_BAN:
        if not st.strategist:
            return "banishments exist only in Strategist mode"
        return "cards are banished only before the first recruitment and once both sides hold two champions"
    if st.phase_id == RECRUIT:
        if t not in (T_REC, T_RECHC):
            what = "an available card" if st.strategist else "a market card"
            return f"recruitment phase: {SIDE_NAMES[side]} must take {what} with +CODE@CELL"
        return _recruit_reason(st, action)
    assert st.phase_id == ACTION
    if t in (T_REC, T_RECHC):
        return "recruitment comes after the action phase: play 'end' first"
    if t == T_END:  # pragma: no cover - 'end' is always legal in the action phase
        return "unexpected"
    f = args[0]
    p = st.board[f]
    if p < 0:
        return f"no piece on {NAMES[f]}"
    if p & 1 != side:
        return f"not your piece: {NAMES[f]} holds the {_piece(p)} and {SIDE_NAMES[side]} is to play"
    kind = p >> 1
    name = f"the {PIECE_NAMES[kind]} on {NAMES[f]}"
    if kind == NE:
        return "the Nemesis never acts on its own (it only reacts when the enemy Leader moves)"
    if (st.acted_mask >> kind) & 1:
        return f"{name} has already acted this turn"
    if t == T_HC2 and kind not in (HE, CU):
        return "only the Hermit & Cub move two pieces in one action"
    if t == T_HC2 and st.board[args[2]] not in (HE * 2 + side, CU * 2 + side):
        return "the second path must move the other piece of the Hermit & Cub"
    loose: list[int] = []
    gen_piece(make_ctx(st, loose, set(), check=False, jail=False, protect=False), st, kind)
    ctx_alts: set[int] = set()
    unchecked: list[int] = []
    gen_piece(make_ctx(st, unchecked, ctx_alts, check=False), st, kind)
    if action in unchecked or action in ctx_alts:
        reason = _self_harm(st, action)
        if reason:
            return reason
    loose_alts: set[int] = set()
    gen_piece(make_ctx(st, [], loose_alts, check=False, jail=False, protect=False), st, kind)
    if action in loose or action in loose_alts:
        ja = st.loc[JA * 2 + (side ^ 1)]
        if kind in ACTIVE and ja >= 0 and ADJACENT[ja][f]:
            return f"{name} is jailed (next to the enemy Jailer on {NAMES[ja]}) and cannot start its ability"
        pr = st.loc[PR * 2 + (side ^ 1)]
        tgt = args[1] if t in (T_SWAP, T_TARGET) else -1
        if pr >= 0 and tgt >= 0:
            return f"the target on {NAMES[tgt]} is protected by the enemy Protector on {NAMES[pr]}"
    if t == T_PATH and any(st.board[c] >= 0 for c in args[1:]):
        occupied = next(c for c in args[1:] if st.board[c] >= 0)
        return f"{name} cannot end or stop on {NAMES[occupied]}: it is occupied"
    return f"not a legal move for {name} ({PIECE_NAMES[kind]}: see the rule book for its moves)"
