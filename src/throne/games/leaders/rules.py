"""Move generation and the Leader-lost test: the rules of §2-4, on raw board arrays.

``board[cell]`` is a piece id (``kind * 2 + side``) or -1; ``loc[pid]`` is its cell or -1. Generators append
action ids to ``out``; when two strings reach the same position only the first is listed and the others go to
``alts`` (still accepted by ``play``). Every listed action leaves the mover's own Leader safe (§4 step 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import BAN, END, HC2, PATH2, PATH3, REC, RECHC, SWAP, TARGET
from .board import ADJACENT, LINE2, NEAR2, NEIGHBOUR_MASK, NEIGHBOURS, NUM_CELLS, RAYS, RECRUIT_CELLS, STEP
from .pieces import AC, ACTIVE, AR, AS, BM, BR, CARDS, CL, CU, HE, IL, JA, MA, NE, PR, RG, RI, VI, WA

if TYPE_CHECKING:
    from .state import State

N = NUM_CELLS
NONE, CAPTURE, SURROUND = 0, 1, 2
ACTION, RECRUIT, REACTION, BANISH = 0, 1, 2, 3
PHASES = ("action", "recruit", "reaction", "ban")


def lost(board: list[int], lcell: int, side: int) -> int:
    """How the Leader of ``side`` on ``lcell`` is lost: CAPTURE, SURROUND or NONE (§4)."""
    enemy = side ^ 1
    count = 0
    full = True
    for c in NEIGHBOURS[lcell]:
        p = board[c]
        if p < 0:
            full = False
        elif p & 1 == enemy:
            k = p >> 1
            if k == AS:
                return CAPTURE
            if k != CU and k != AR:
                count += 1
    if count == 1:
        archer = AR * 2 + enemy
        for c in LINE2[lcell]:
            if board[c] == archer:
                return CAPTURE
    if count >= 2:
        return CAPTURE
    return SURROUND if full else NONE


class _Ctx:
    """Per-call data for generating one side's moves."""

    __slots__ = (
        "adj",
        "alts",
        "board",
        "check",
        "jail",
        "lc",
        "loc",
        "near",
        "out",
        "p_side",
        "prot",
        "protect",
    )

    def __init__(
        self, st: State, out: list[int], alts: set[int] | None, check: bool, jail: bool, protect: bool
    ) -> None:
        self.board = st.board
        self.loc = st.loc
        self.p_side = side = st.turn
        self.lc = st.loc[side]
        self.near = NEAR2[self.lc]
        self.adj = ADJACENT[self.lc]
        self.out = out
        self.alts = alts
        self.check = check
        self.jail = jail
        self.protect = protect
        pr = st.loc[PR * 2 + (side ^ 1)]
        self.prot = (NEIGHBOUR_MASK[pr] | (1 << pr)) if (protect and pr >= 0) else 0


def _emit(ctx: _Ctx, seen: dict[int, bool], key: int, action: int, ok: bool) -> None:
    prev = seen.get(key)
    if prev is None:
        seen[key] = ok
        if ok:
            ctx.out.append(action)
    elif prev and ctx.alts is not None:
        ctx.alts.add(action)


def _path_ok(ctx: _Ctx, p: int, f: int, t: int) -> bool:
    """Is moving own piece p from f to empty t safe for the own Leader?"""
    if not ctx.check:
        return True
    board = ctx.board
    side = ctx.p_side
    if p == side:  # the Leader itself
        board[f] = -1
        board[t] = p
        bad = lost(board, t, side)
        board[t] = -1
        board[f] = p
        return not bad
    if not ctx.adj[t]:  # an own piece can only harm by filling the Leader's last free neighbour
        return True
    board[f] = -1
    board[t] = p
    bad = lost(board, ctx.lc, side)
    board[t] = -1
    board[f] = p
    return not bad


def _moves_ok(ctx: _Ctx, moves: tuple[tuple[int, int, int], ...]) -> bool:
    """Is the simultaneous relocation (pid, from, to)... safe for the own Leader?"""
    if not ctx.check:
        return True
    board, side, near, adj = ctx.board, ctx.p_side, ctx.near, ctx.adj
    lc = ctx.lc
    relevant = False
    # Vacating a cell never makes a Leader lost; only where pieces land matters: an own piece next to
    # the Leader (surround), an enemy piece within 2 (capture, the Archer's reach).
    for p, _f, t in moves:
        if p == side:
            lc = t
            relevant = True
        elif adj[t] if (p & 1) == side else near[t]:
            relevant = True
    if not relevant:
        return True
    for _p, f, _t in moves:
        board[f] = -1
    for p, _f, t in moves:
        board[t] = p
    bad = lost(board, lc, side)
    for _p, _f, t in moves:
        board[t] = -1
    for p, f, _t in moves:
        board[f] = p
    return not bad


def _steps(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    """Basic steps; always generated first for a piece, so ``seen`` starts empty."""
    board = ctx.board
    row = PATH2[f]
    out = ctx.out
    if p == ctx.p_side:
        for n in NEIGHBOURS[f]:
            if board[n] < 0:
                _emit(ctx, seen, n, row[n], _path_ok(ctx, p, f, n))
        return
    adj = ctx.adj
    for n in NEIGHBOURS[f]:
        if board[n] < 0:
            ok = _path_ok(ctx, p, f, n) if adj[n] else True
            seen[n] = ok
            if ok:
                out.append(row[n])


def _leader(ctx: _Ctx, st: State, p: int, f: int) -> None:
    seen: dict[int, bool] = {}
    _steps(ctx, p, f, seen)
    if st.loc[VI * 2 + ctx.p_side] < 0:
        return
    board = ctx.board
    for n1 in NEIGHBOURS[f]:
        if board[n1] >= 0:
            continue
        base = (f * N + n1) * N
        for n2 in NEIGHBOURS[n1]:
            if n2 != f and board[n2] < 0:
                _emit(ctx, seen, n2, PATH3[base + n2], _path_ok(ctx, p, f, n2))


def _acrobat(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    board = ctx.board
    landings = []
    for d in range(6):
        ray = RAYS[f][d]
        if len(ray) >= 2 and board[ray[0]] >= 0 and board[ray[1]] < 0:
            n2 = ray[1]
            landings.append(n2)
            _emit(ctx, seen, n2, PATH2[f][n2], _path_ok(ctx, p, f, n2))
    for n2 in landings:
        base = (f * N + n2) * N
        for d in range(6):
            ray = RAYS[n2][d]
            if len(ray) >= 2:
                m1, m2 = ray[0], ray[1]
                if m1 != f and m2 != f and board[m1] >= 0 and board[m2] < 0:
                    _emit(ctx, seen, m2, PATH3[base + m2], _path_ok(ctx, p, f, m2))


def _rider(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    board = ctx.board
    for d in range(6):
        ray = RAYS[f][d]
        if len(ray) >= 2 and board[ray[0]] < 0 and board[ray[1]] < 0:
            _emit(ctx, seen, ray[1], PATH2[f][ray[1]], _path_ok(ctx, p, f, ray[1]))


def _royal_guard(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    board = ctx.board
    firsts = [c for c in NEIGHBOURS[ctx.lc] if board[c] < 0]
    for c in firsts:
        _emit(ctx, seen, c, PATH2[f][c], _path_ok(ctx, p, f, c))
    for c in firsts:
        base = (f * N + c) * N
        for c2 in NEIGHBOURS[c]:
            if board[c2] < 0:
                _emit(ctx, seen, c2, PATH3[base + c2], _path_ok(ctx, p, f, c2))


def _visible(board: list[int], f: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(index along the ray, target cell, ray) of the visible non-adjacent characters from f."""
    found = []
    for d in range(6):
        ray = RAYS[f][d]
        for i, c in enumerate(ray):
            if board[c] >= 0:
                if i >= 1:
                    found.append((i, c, ray))
                break
    return found


def _is_protected(ctx: _Ctx, q: int, cell: int) -> bool:
    return (q & 1) != ctx.p_side and (ctx.prot >> cell) & 1 == 1


def _illusionist(ctx: _Ctx, p: int, f: int) -> None:
    board = ctx.board
    for _i, t, _ray in _visible(board, f):
        q = board[t]
        if _is_protected(ctx, q, t):
            continue
        moves = ((p, f, t), (q, t, f))
        if _moves_ok(ctx, moves):
            ctx.out.append(SWAP[f][t])


def _claw(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    board = ctx.board
    for i, t, ray in _visible(board, f):
        dest = ray[i - 1]
        _emit(ctx, seen, dest, PATH2[f][dest], _path_ok(ctx, p, f, dest))
        q = board[t]
        if not _is_protected(ctx, q, t) and _moves_ok(ctx, ((q, t, ray[0]),)):
            ctx.out.append(TARGET[(f * N + t) * N + ray[0]])


def _manipulator(ctx: _Ctx, f: int) -> None:
    board = ctx.board
    for _i, t, _ray in _visible(board, f):
        q = board[t]
        if (q & 1) == ctx.p_side or _is_protected(ctx, q, t):
            continue
        base = (f * N + t) * N
        for n in NEIGHBOURS[t]:
            if board[n] < 0 and _moves_ok(ctx, ((q, t, n),)):
                ctx.out.append(TARGET[base + n])


def _wanderer(ctx: _Ctx, p: int, f: int, seen: dict[int, bool]) -> None:
    board, loc = ctx.board, ctx.loc
    enemy = ctx.p_side ^ 1
    blocked = 0
    for q in range(enemy, len(loc), 2):
        c = loc[q]
        if c >= 0:
            blocked |= NEIGHBOUR_MASK[c]
    row = PATH2[f]
    for c in range(N):
        if board[c] < 0 and not (blocked >> c) & 1:
            _emit(ctx, seen, c, row[c], _path_ok(ctx, p, f, c))


def _brewmaster(ctx: _Ctx, f: int) -> None:
    board = ctx.board
    side = ctx.p_side
    for n in NEIGHBOURS[f]:
        q = board[n]
        if q < 0 or (q & 1) != side:
            continue
        base = (f * N + n) * N
        for m in NEIGHBOURS[n]:
            if board[m] < 0 and _moves_ok(ctx, ((q, n, m),)):
                ctx.out.append(TARGET[base + m])


def _bruiser(ctx: _Ctx, p: int, f: int) -> None:
    board = ctx.board
    side = ctx.p_side
    for d in range(6):
        n = STEP[f][d]
        if n < 0:
            continue
        q = board[n]
        if q < 0 or (q & 1) == side or _is_protected(ctx, q, n):
            continue
        base = (f * N + n) * N
        for dd in (d + 5, d, d + 1):
            m = STEP[n][dd % 6]
            if m >= 0 and board[m] < 0 and _moves_ok(ctx, ((p, f, n), (q, n, m))):
                ctx.out.append(TARGET[base + m])


def _hermit_cub(ctx: _Ctx, st: State) -> None:
    board = ctx.board
    side = ctx.p_side
    hp, cp = HE * 2 + side, CU * 2 + side
    h, c = st.loc[hp], st.loc[cp]
    seen: dict[int, bool] = {}
    # key: final Hermit cell * N + final Cub cell (an absent piece keeps cell -1 -> key stays unique)
    for p, f, other in ((hp, h, c), (cp, c, h)):
        if f < 0:
            continue
        for n in NEIGHBOURS[f]:
            if board[n] < 0:
                key = n * N + other if p == hp else other * N + n
                _emit(ctx, seen, key, PATH2[f][n], _moves_ok(ctx, ((p, f, n),)))
    if h < 0 or c < 0:
        return
    for p1, f1, p2, f2 in ((hp, h, cp, c), (cp, c, hp, h)):
        for t1 in NEIGHBOURS[f1]:
            if board[t1] >= 0:
                continue
            board[f1] = -1
            board[t1] = p1
            targets = [t2 for t2 in NEIGHBOURS[f2] if board[t2] < 0]
            board[t1] = -1
            board[f1] = p1
            for t2 in targets:
                key = t1 * N + t2 if p1 == hp else t2 * N + t1
                moves = ((p1, f1, t1), (p2, f2, t2))
                _emit(ctx, seen, key, HC2[(f1, t1, f2, t2)], _moves_ok(ctx, moves))


def gen_piece(ctx: _Ctx, st: State, kind: int) -> None:
    """Append the actions of the turn player's piece of ``kind`` (assumed on the board and not acted)."""
    p = kind * 2 + ctx.p_side
    f = st.loc[p]
    if kind == 0:
        _leader(ctx, st, p, f)
        return
    if kind in (HE, CU):
        _hermit_cub(ctx, st)
        return
    if kind == NE:
        return
    seen: dict[int, bool] = {}
    _steps(ctx, p, f, seen)
    if kind not in ACTIVE:
        return
    if ctx.jail:
        ja = st.loc[JA * 2 + (ctx.p_side ^ 1)]
        if ja >= 0 and ADJACENT[ja][f]:
            return
    if kind == AC:
        _acrobat(ctx, p, f, seen)
    elif kind == RI:
        _rider(ctx, p, f, seen)
    elif kind == BR:
        _bruiser(ctx, p, f)
    elif kind == RG:
        _royal_guard(ctx, p, f, seen)
    elif kind == IL:
        _illusionist(ctx, p, f)
    elif kind == CL:
        _claw(ctx, p, f, seen)
    elif kind == MA:
        _manipulator(ctx, f)
    elif kind == WA:
        _wanderer(ctx, p, f, seen)
    elif kind == BM:
        _brewmaster(ctx, f)


def make_ctx(
    st: State,
    out: list[int],
    alts: set[int] | None = None,
    check: bool = True,
    jail: bool = True,
    protect: bool = True,
) -> _Ctx:
    return _Ctx(st, out, alts, check, jail, protect)


def gen_action_phase(st: State, out: list[int], alts: set[int] | None = None) -> None:
    ctx = _Ctx(st, out, alts, True, True, True)
    out.append(END)
    side = st.turn
    acted = st.acted_mask
    loc = st.loc
    for kind in range(NE):  # the Nemesis never acts; the Cub is handled with the Hermit
        if loc[kind * 2 + side] < 0 or (acted >> kind) & 1:
            continue
        if kind == CU and loc[HE * 2 + side] >= 0:
            continue
        gen_piece(ctx, st, kind)


def nemesis_owner(loc: list[int]) -> int:
    if loc[NE * 2] >= 0:
        return 0
    if loc[NE * 2 + 1] >= 0:
        return 1
    return -1


def gen_reaction(st: State, out: list[int], alts: set[int] | None = None) -> None:
    """The Nemesis reaction paths (§4 step 3, ruling).

    It must move 2 cells whenever any 2-step path exists: the 2-step paths that keep the owner's Leader safe,
    or all of them when every one leaves it lost. Only when no 2-step path exists does it move 1 step (same
    rule among the 1-step paths); with no step at all it stays (nothing is listed).
    """
    board = st.board
    owner = nemesis_owner(st.loc)
    p = NE * 2 + owner
    f = st.loc[p]
    lc = st.loc[owner]
    near = NEAR2[lc]

    def safe(t: int) -> bool:
        if not (near[t] or near[f]):
            return True
        board[f] = -1
        board[t] = p
        bad = lost(board, lc, owner)
        board[t] = -1
        board[f] = p
        return not bad

    # destination -> (safe, first path to it); later paths to a seen destination are alternative spellings
    dests: dict[int, tuple[bool, int]] = {}
    more: list[tuple[int, int]] = []
    firsts = [a for a in NEIGHBOURS[f] if board[a] < 0]
    for a in firsts:
        base = (f * N + a) * N
        for b in NEIGHBOURS[a]:
            if b != f and board[b] < 0:
                if b in dests:
                    more.append((b, PATH3[base + b]))
                else:
                    dests[b] = (safe(b), PATH3[base + b])
    if not dests:
        dests = {a: (safe(a), PATH2[f][a]) for a in firsts}
    keep_all = not any(ok for ok, _ in dests.values())  # every path harms the owner: one must still be taken
    for ok, action in dests.values():
        if ok or keep_all:
            out.append(action)
    if alts is not None:
        alts.update(action for b, action in more if keep_all or dests[b][0])


MAX_CHAMPIONS = 4  # a hand is at most 5 cards: the Leader + 4 champions


def champions_held(loc: list[int], side: int) -> int:
    """Champion cards of ``side`` on the board (Hermit & Cub count once; the Leader is not counted)."""
    return sum(1 for k in CARDS if loc[k * 2 + side] >= 0)


def available(st: State) -> list[int]:
    """Strategist mode: the champion cards neither recruited (on the board) nor banished, in table order."""
    loc = st.loc
    return [k for k in CARDS if loc[k * 2] < 0 and loc[k * 2 + 1] < 0 and k not in st.banned]


def offered(st: State) -> list[int]:
    """The cards the turn player may recruit: the market (discovery) or every available card (strategist)."""
    return available(st) if st.strategist else st.market_cards


def gen_ban(st: State, out: list[int]) -> None:
    """Strategist banishments: any available card."""
    out.extend(BAN[k] for k in available(st))


def gen_recruit(st: State, out: list[int], first_only: bool = False) -> None:
    """Legal placements of the turn player (§3 recruitment); stops after one when ``first_only``."""
    board = st.board
    side = st.turn
    if st.recruits <= 0 or champions_held(st.loc, side) >= MAX_CHAMPIONS:
        return  # §3: no recruitment left this turn, or the hand already holds 5 cards
    lc = st.loc[side]
    near = NEAR2[lc]
    empties = [c for c in RECRUIT_CELLS[side] if board[c] < 0]
    if not empties:
        return
    for card in offered(st):
        if card < 0:
            continue
        if card == HE:
            hp, cp = HE * 2 + side, CU * 2 + side
            for c1 in empties:
                for c2 in empties:
                    if c1 == c2:
                        continue
                    if near[c1] or near[c2]:
                        board[c1] = hp
                        board[c2] = cp
                        bad = lost(board, lc, side)
                        board[c1] = board[c2] = -1
                        if bad:
                            continue
                    out.append(RECHC[c1][c2])
                    if first_only:
                        return
        else:
            p = card * 2 + side
            row = REC[card]
            for c in empties:
                if near[c]:
                    board[c] = p
                    bad = lost(board, lc, side)
                    board[c] = -1
                    if bad:
                        continue
                out.append(row[c])
                if first_only:
                    return
