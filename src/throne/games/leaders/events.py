"""What a move did, as structured public events (the table animates and narrates them).

Leaders hides nothing but the deck order, so every seat and every spectator gets the same events. Each
event is a JSON-safe dict with a ``type`` and the parameters below (cells by name, pieces by code, sides as
seats: 0 South, 1 North):

- ``move``      {piece, side, path, ability}: a piece moved itself along ``path``; ``ability`` is the code
                whose ability was used (None for a basic step; ``VI`` for the Leader's Vizier double step)
- ``displace``  {piece, side, from, to, by, by_side, how}: ``piece`` was moved by the ability of ``by``;
                ``how`` is ``push`` (Bruiser), ``pull`` (Claw Launcher), ``swap`` (Illusionist) or ``move``
                (Manipulator, Brewmaster)
- ``reaction``  {piece, side, path}: the Nemesis reaction
- ``recruit``   {card, side, cells}: a champion recruited (Hermit & Cub: two cells, Hermit first)
- ``refill``    {slot, card}: the market slot refilled from the deck (``card`` None: the deck was empty)
- ``ban``       {card, side}: a card banished (Strategist mode)
- ``turn-end``  {side, turn}: the side ended its turn; ``turn`` is the full turn (1-based) it ended
- ``game-end``  {reason, winner, leader, loser, pieces}: the game ended; for a capture or a surround
                ``leader`` is the lost Leader's cell and ``pieces`` the enemy pieces ({piece, side, cell})
                that captured it, or every piece around it for a surround
"""

from __future__ import annotations

from typing import Any

from .actions import DECODE, T_BAN, T_END, T_HC2, T_PATH, T_REC, T_RECHC, T_SWAP, T_TARGET
from .board import ADJACENT, LINE2, NAMES, NEIGHBOURS
from .pieces import AR, AS, BR, CL, CODES, CU, HE, VI, L
from .rules import REACTION, RECRUIT
from .state import State

Event = dict[str, Any]
EVENT_TYPES = ("move", "displace", "reaction", "recruit", "refill", "ban", "turn-end", "game-end")


def _piece(p: int) -> tuple[str, int]:
    return CODES[p >> 1], p & 1


def _move(p: int, path: tuple[int, ...], ability: str | None) -> Event:
    code, side = _piece(p)
    return {"type": "move", "piece": code, "side": side, "path": [NAMES[c] for c in path], "ability": ability}


def _displace(q: int, f: int, t: int, by: int, how: str) -> Event:
    code, side = _piece(q)
    by_code, by_side = _piece(by)
    return {"type": "displace", "piece": code, "side": side, "from": NAMES[f], "to": NAMES[t],
            "by": by_code, "by_side": by_side, "how": how}


def _path_ability(kind: int, path: tuple[int, ...]) -> str | None:
    if kind in (HE, CU):
        return CODES[HE]
    if len(path) == 2 and ADJACENT[path[0]][path[1]]:
        return None  # a basic step (also what an ability could have done: the step is the plain reading)
    return CODES[VI] if kind == L else CODES[kind]


def culprits(board: list[int], lcell: int, side: int, reason: str) -> list[Event]:
    """The enemy pieces that captured the Leader of ``side`` on ``lcell`` (every neighbour for a surround)."""
    enemy = side ^ 1
    out: list[Event] = []
    if reason == "surround":
        cells = list(NEIGHBOURS[lcell])
    else:
        near = [c for c in NEIGHBOURS[lcell] if board[c] >= 0 and board[c] & 1 == enemy]
        assassin = [c for c in near if board[c] >> 1 == AS]
        cells = assassin or [c for c in near if board[c] >> 1 not in (CU, AR)]
        if not assassin and len(cells) == 1:
            cells += [c for c in LINE2[lcell] if board[c] == AR * 2 + enemy]
    for c in sorted(cells, key=lambda c: NAMES[c]):
        if board[c] >= 0:
            code, s = _piece(board[c])
            out.append({"piece": code, "side": s, "cell": NAMES[c]})
    return out


def events(before: State, move: str, after: State) -> list[Event]:
    """The events of playing ``move`` on ``before`` (which gave ``after``)."""
    action = before.move_to_action(move)
    t, args = DECODE[action]
    board = before.board
    side = before.turn
    out: list[Event] = []
    if t == T_BAN:
        out.append({"type": "ban", "card": CODES[args[0]], "side": side})
    elif before.phase_id == REACTION:
        p = board[args[0]]
        path = [NAMES[c] for c in args]
        out.append({"type": "reaction", "piece": CODES[p >> 1], "side": p & 1, "path": path})
    elif before.phase_id == RECRUIT:
        kind = args[0] if t == T_REC else HE
        cells = args[1:] if t == T_REC else args
        out.append({"type": "recruit", "card": CODES[kind], "side": side, "cells": [NAMES[c] for c in cells]})
        if not before.strategist:
            slot = before.market_cards.index(kind)
            new = after.market_cards[slot]
            out.append({"type": "refill", "slot": slot, "card": CODES[new] if new >= 0 else None})
    elif t == T_PATH:
        p = board[args[0]]
        out.append(_move(p, args, _path_ability(p >> 1, args)))
    elif t == T_HC2:
        f1, t1, f2, t2 = args
        out.append(_move(board[f1], (f1, t1), CODES[HE]))
        out.append(_move(board[f2], (f2, t2), CODES[HE]))
    elif t == T_SWAP:
        f, tg = args
        out.append(_move(board[f], (f, tg), CODES[board[f] >> 1]))
        out.append(_displace(board[tg], tg, f, board[f], "swap"))
    elif t == T_TARGET:
        f, tg, dest = args
        p, q = board[f], board[tg]
        kind = p >> 1
        if kind == BR:
            out.append(_move(p, (f, tg), CODES[BR]))
        out.append(_displace(q, tg, dest, p, "push" if kind == BR else "pull" if kind == CL else "move"))
    elif t not in (T_END, T_RECHC):  # pragma: no cover - every action type is handled above
        raise ValueError(f"no events for {move!r}")
    if after.termination is not None:
        out.append(_ending(after))
    elif after.turns != before.turns:
        out.append({"type": "turn-end", "side": side, "turn": before.turns // 2 + 1})
    return out


def reveals(before: State, move: str, after: State) -> bool:
    """Whether ``move`` refilled the market from the deck (a card nobody knew): no takeback past it."""
    return any(e["type"] == "refill" and e["card"] is not None for e in events(before, move, after))


def _ending(after: State) -> Event:
    reason = after.termination
    ev: Event = {"type": "game-end", "reason": reason, "winner": after.winner, "leader": None, "loser": None,
                 "pieces": []}
    if reason in ("capture", "surround") and after.winner is not None:
        loser = after.winner ^ 1
        lcell = after.loc[loser]
        ev.update(leader=NAMES[lcell], loser=loser, pieces=culprits(after.board, lcell, loser, reason))
    return ev


def game_events(state: State) -> list[list[Event]]:
    """The events of every move of ``state``'s history, replayed from its start (one list per ply)."""
    from .notation import parse_position

    cur = parse_position(state._start, state.draw_rule)
    out = []
    for action in state._history:
        move = State.action_to_move(action)
        nxt = cur.clone()
        nxt.apply(action)
        out.append(events(cur, move, nxt))
        cur = nxt
    return out
