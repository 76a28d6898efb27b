"""The game state: the string API of §6 and the fast integer-action path on one object."""

from __future__ import annotations

from typing import Any

from .. import legacy_rng
from ..api import Outcome
from ..randomness import LEGACY_RNG, RNG_VERSION, Seed, check_seed, check_version, keyed, new_secret
from . import notation
from .actions import DECODE, MOVE_STRINGS, T_END, T_HC2, T_PATH, T_REC, T_SWAP
from .board import NAMES, NUM_CELLS, START_CELLS
from .errors import IllegalMoveError
from .pieces import BR, CARDS, CODES, CU, HE, NUM_KINDS, SIDES
from .rules import (
    ACTION,
    BANISH,
    CAPTURE,
    MAX_CHAMPIONS,
    PHASES,
    REACTION,
    RECRUIT,
    available,
    champions_held,
    gen_action_phase,
    gen_ban,
    gen_reaction,
    gen_recruit,
    lost,
    nemesis_owner,
)

TURN_LIMIT = 200
REPETITIONS = 3
TERMINATIONS = ("capture", "surround")
MODES = ("discovery", "strategist")
#: Strategist mode: banishments per side in each of the two rounds, and the champions each side must hold
#: before the second round.
SECOND_BAN_AFTER = 2


def allowance(turn: int, turns: int) -> int:
    """Recruitments a turn allows when it starts: two on North's first turn (leaders.md §3), else one."""
    return 2 if (turn == 1 and turns == 1) else 1


class State:
    """A Leaders game: position, history (for undo and the record) and the draw-rule bookkeeping."""

    __slots__ = (
        "_history",
        "_legal_moves",
        "_reps",
        "_stack",
        "_start",
        "acted_mask",
        "banned",
        "board",
        "deck",
        "deck_pos",
        "draw_rule",
        "loc",
        "market_cards",
        "phase_id",
        "recruits",
        "strategist",
        "termination",
        "turn",
        "turns",
        "winner",
    )

    def __init__(
        self,
        board: list[int],
        turn: int,
        phase: int,
        acted: int,
        market: list[int],
        deck: list[int],
        recruits: int,
        turns: int,
        draw_rule: bool = True,
        strategist: bool = False,
        banned: tuple[int, ...] = (),
    ) -> None:
        self.board = board
        self.loc = [-1] * (NUM_KINDS * 2)
        for c, p in enumerate(board):
            if p >= 0:
                self.loc[p] = c
        self.turn = turn
        self.phase_id = phase
        self.acted_mask = acted
        self.market_cards = market
        self.deck = deck
        self.deck_pos = 0
        self.recruits = recruits
        self.turns = turns
        self.draw_rule = draw_rule
        #: Strategist mode (no market: every card neither recruited nor banished is available)
        self.strategist = strategist
        #: Strategist mode: banished cards in the order banished (North, South, North, South)
        self.banned = banned
        self.winner: int | None = None
        self.termination: str | None = None
        self._stack: list[list[Any]] = []
        self._history: list[int] = []
        self._reps: dict[tuple[Any, ...], int] = {}
        self._legal_moves: tuple[str, ...] | None = None  # legal_moves() of this position, once asked
        if draw_rule and phase == ACTION and acted == 0:
            self._reps[self._rep_key()] = 1
        self._start = self.position()

    players = 2
    """Leaders is a two-player game (seat 0 is South, seat 1 North)."""

    # ----------------------------------------------------------------- basic properties
    @property
    def to_play(self) -> int:
        """Who must decide now: the Nemesis owner during a reaction, else the turn player."""
        if self.phase_id == REACTION:
            return nemesis_owner(self.loc)
        return self.turn

    @property
    def phase(self) -> str:
        return PHASES[self.phase_id]

    @property
    def mode(self) -> str:
        return MODES[self.strategist]

    @property
    def outcome(self) -> Outcome | None:
        """Winner and reason (capture, surround, repetition, turn-limit) once the game is over."""
        if self.termination is None:
            return None
        return Outcome.single(self.winner, 2, self.termination, termination=self.termination)

    @property
    def is_over(self) -> bool:
        return self.termination is not None

    @property
    def market(self) -> list[str | None]:
        """The face-up market slots; in Strategist mode every available card (no slots, no deck)."""
        if self.strategist:
            return [CODES[c] for c in available(self)]
        return [CODES[c] if c >= 0 else None for c in self.market_cards]

    @property
    def deck_size(self) -> int:
        return len(self.deck) - self.deck_pos

    @property
    def recruit_allowance(self) -> int:
        """Recruitments the turn allows in all (leaders.md §3): two on North's first turn, else one."""
        return allowance(self.turn, self.turns)

    @property
    def acted(self) -> frozenset[str]:
        return frozenset(CODES[k] for k in range(NUM_KINDS) if (self.acted_mask >> k) & 1)

    def pieces(self) -> list[tuple[int, str, str]]:
        """(side, code, cell) of every piece, South first, in table order."""
        loc = self.loc  # kind k's piece of side s is at loc[2k + s]: every other entry is one side's
        out = [(0, CODES[k], NAMES[c]) for k, c in enumerate(loc[0::2]) if c >= 0]
        out += [(1, CODES[k], NAMES[c]) for k, c in enumerate(loc[1::2]) if c >= 0]
        return out

    def key(self) -> tuple[Any, ...]:
        """Cheap hashable key of the position (the turn counter is left out)."""
        return (
            tuple(self.board),
            self.turn,
            self.phase_id,
            self.acted_mask,
            tuple(self.market_cards),
            self.deck_pos,
            self.recruits,
            self.banned,
        )

    def _rep_key(self) -> tuple[Any, ...]:
        return (tuple(self.board), self.turn, tuple(self.market_cards), self.banned)

    # ----------------------------------------------------------------- fast path
    def legal_actions(self) -> list[int]:
        """Legal action ids for ``to_play`` (one per resulting position)."""
        out: list[int] = []
        if self.termination is not None:
            return out
        self._generate(out, None)
        return out

    def _generate(self, out: list[int], alts: set[int] | None) -> None:
        if self.phase_id == ACTION:
            gen_action_phase(self, out, alts)
        elif self.phase_id == RECRUIT:
            gen_recruit(self, out)
        elif self.phase_id == BANISH:
            gen_ban(self, out)
        else:
            gen_reaction(self, out, alts)

    def accepted_actions(self) -> set[int]:
        """Every action id ``play``/``apply`` accepts now: the listed ones plus equivalent spellings."""
        out: list[int] = []
        alts: set[int] = set()
        if self.termination is None:
            self._generate(out, alts)
        alts.update(out)
        return alts

    def apply(self, action: int) -> None:
        """Apply a legal action id without validation; ``undo`` takes it back."""
        self._legal_moves = None
        self._stack.append(
            [
                self.board,
                self.loc,
                self.turn,
                self.phase_id,
                self.acted_mask,
                self.market_cards,
                self.deck_pos,
                self.recruits,
                self.turns,
                self.winner,
                self.termination,
                self.banned,
                None,
            ]
        )
        self._history.append(action)
        board = self.board = self.board[:]
        loc = self.loc = self.loc[:]
        t, args = DECODE[action]
        phase = self.phase_id
        if phase == BANISH:
            self.banned = (*self.banned, args[0])
            if len(self.banned) % 2:
                self.turn = 0  # South banishes second
            else:
                self.turn = self.turns % 2
                self.phase_id = ACTION
            return
        if phase == REACTION:
            f, dest = args[0], args[-1]
            p = board[f]
            board[f] = -1
            board[dest] = p
            loc[p] = dest
            owner = p & 1
            self.phase_id = ACTION
            other = owner ^ 1
            how = lost(board, loc[other], other)
            if how:
                self._finish(owner, how)
                return
            how = lost(board, loc[owner], owner)
            if how:
                self._finish(other, how)
            return
        side = self.turn
        if phase == RECRUIT:
            if t == T_REC:
                kind, c = args
                p = kind * 2 + side
                board[c] = p
                loc[p] = c
            else:
                kind = HE
                c1, c2 = args
                board[c1] = HE * 2 + side
                loc[HE * 2 + side] = c1
                board[c2] = CU * 2 + side
                loc[CU * 2 + side] = c2
            if not self.strategist:
                market = self.market_cards = self.market_cards[:]
                slot = market.index(kind)
                if self.deck_pos < len(self.deck):
                    market[slot] = self.deck[self.deck_pos]
                    self.deck_pos += 1
                else:
                    market[slot] = -1
            self.recruits -= 1
            other = side ^ 1
            how = lost(board, loc[other], other)
            if how:
                self._finish(side, how)
                return
            self._recruit_or_end()
            return
        # action phase
        if t == T_END:
            self._recruit_or_end()
            return
        old_leaders = (loc[0], loc[1])
        if t == T_PATH:
            f, dest = args[0], args[-1]
            p = board[f]
            board[f] = -1
            board[dest] = p
            loc[p] = dest
            kind = p >> 1
            if kind in (HE, CU):
                self.acted_mask |= (1 << HE) | (1 << CU)
            else:
                self.acted_mask |= 1 << kind
        elif t == T_HC2:
            f1, t1, f2, t2 = args
            p1 = board[f1]
            board[f1] = -1
            board[t1] = p1
            loc[p1] = t1
            p2 = board[f2]
            board[f2] = -1
            board[t2] = p2
            loc[p2] = t2
            self.acted_mask |= (1 << HE) | (1 << CU)
        elif t == T_SWAP:
            f, tg = args
            p, q = board[f], board[tg]
            board[f] = q
            board[tg] = p
            loc[p] = tg
            loc[q] = f
            self.acted_mask |= 1 << (p >> 1)
        else:  # T_TARGET
            f, tg, dest = args
            p, q = board[f], board[tg]
            board[dest] = q
            loc[q] = dest
            if p >> 1 == BR:
                board[f] = -1
                board[tg] = p
                loc[p] = tg
            else:
                board[tg] = -1
            self.acted_mask |= 1 << (p >> 1)
        other = side ^ 1
        how = lost(board, loc[other], other)
        if how:
            self._finish(side, how)
            return
        owner = nemesis_owner(loc)
        if owner >= 0 and old_leaders[owner ^ 1] != loc[owner ^ 1]:
            probe: list[int] = []
            gen_reaction(self, probe)
            if probe:
                self.phase_id = REACTION

    def _finish(self, winner: int, how: int) -> None:
        self.winner = winner
        self.termination = "capture" if how == CAPTURE else "surround"

    def _recruit_or_end(self) -> None:
        if self.recruits > 0 and champions_held(self.loc, self.turn) < MAX_CHAMPIONS:
            probe: list[int] = []
            gen_recruit(self, probe, first_only=True)
            if probe:
                self.phase_id = RECRUIT
                return
        self._end_turn()

    def _end_turn(self) -> None:
        self.turn ^= 1
        self.turns += 1
        self.acted_mask = 0
        self.phase_id = ACTION
        self.recruits = allowance(self.turn, self.turns)
        if self.draw_rule:
            key = self._rep_key()
            n = self._reps.get(key, 0) + 1
            self._reps[key] = n
            self._stack[-1][-1] = key
            if n >= REPETITIONS:
                self.termination = "repetition"
            elif self.turns >= TURN_LIMIT:
                self.termination = "turn-limit"
        if (
            self.strategist
            and self.termination is None
            and len(self.banned) == 2
            and champions_held(self.loc, 0) >= SECOND_BAN_AFTER
            and champions_held(self.loc, 1) >= SECOND_BAN_AFTER
        ):
            self.phase_id = BANISH  # the second round of banishments, North first
            self.turn = 1

    def undo(self) -> None:
        """Take back the last action (from ``play`` or ``apply``)."""
        self._legal_moves = None
        if not self._stack:
            raise IllegalMoveError("nothing to undo")
        (
            self.board,
            self.loc,
            self.turn,
            self.phase_id,
            self.acted_mask,
            self.market_cards,
            self.deck_pos,
            self.recruits,
            self.turns,
            self.winner,
            self.termination,
            self.banned,
            key,
        ) = self._stack.pop()
        self._history.pop()
        if key is not None:
            n = self._reps[key] - 1
            if n:
                self._reps[key] = n
            else:
                del self._reps[key]

    def clone(self) -> State:
        """An independent copy sharing nothing mutable (history included, so undo works on it)."""
        c = State.__new__(State)
        c.board = self.board[:]
        c.loc = self.loc[:]
        c.turn, c.phase_id, c.acted_mask = self.turn, self.phase_id, self.acted_mask
        c.market_cards = self.market_cards[:]
        c.deck, c.deck_pos = self.deck, self.deck_pos
        c.recruits, c.turns, c.draw_rule = self.recruits, self.turns, self.draw_rule
        c.strategist, c.banned = self.strategist, self.banned
        c.winner, c.termination = self.winner, self.termination
        # Entries are never changed once their `apply` returned (board, loc and market are copied on write),
        # so the copy shares them: cloning costs one pointer per ply instead of a list per ply.
        c._stack = self._stack[:]
        c._history = self._history[:]
        c._reps = dict(self._reps)
        c._start = self._start
        c._legal_moves = self._legal_moves
        return c

    @staticmethod
    def action_to_move(action: int) -> str:
        return MOVE_STRINGS[action]

    @staticmethod
    def move_to_action(move: str) -> int:
        """The action id of a move string (any well-formed spelling); raises IllegalMoveError if malformed."""
        return notation.parse_move(move)

    # ----------------------------------------------------------------- string API
    def legal_moves(self) -> list[str]:
        """The legal move strings, sorted. Kept until the position changes (`apply`, `undo`): a server asks
        for them once per seat's view and once more for the seat to play."""
        if self._legal_moves is None:
            self._legal_moves = tuple(sorted(map(MOVE_STRINGS.__getitem__, self.legal_actions())))
        return list(self._legal_moves)

    def play(self, move: str) -> None:
        """Play a move string; raises IllegalMoveError (state unchanged) saying why it is not legal."""
        if self.termination is not None:
            raise IllegalMoveError(f"game over ({self._result_text()}): no more moves")
        action = notation.parse_move(move)
        cached = self._legal_moves
        # A move listed by legal_moves() (kept for this position) is legal without generating them again.
        if (cached is not None and MOVE_STRINGS[action] in cached) or action in self.accepted_actions():
            self.apply(action)
            return
        from .explain import explain

        raise IllegalMoveError(f"illegal move '{move.strip()}': {explain(self, action)}")

    def _result_text(self) -> str:
        if self.winner is None:
            return f"draw by {self.termination}"
        return f"{SIDES[self.winner]} won by {self.termination}"

    def position(self) -> str:
        return notation.format_position(self)

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "game": "leaders",
            "start": self._start,
            "moves": [MOVE_STRINGS[a] for a in self._history],
            "result": None
            if self.termination is None
            else ("draw" if self.winner is None else SIDES[self.winner]),
            "termination": self.termination,
        }
        if not self.draw_rule:
            rec["draw_rule"] = False
        return rec

    @property
    def last_move(self) -> str | None:
        return MOVE_STRINGS[self._history[-1]] if self._history else None

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """JSON-safe description for UIs (no hidden deck order); the same for every seat."""
        return {
            "game": "leaders",
            "pieces": [{"side": s, "code": k, "cell": c} for s, k, c in self.pieces()],
            "turn": self.turn,
            "to_play": self.to_play,
            "phase": self.phase,
            "acted": [CODES[k] for k in range(NUM_KINDS) if (self.acted_mask >> k) & 1],
            "mode": self.mode,
            "market": self.market,
            "banned": [CODES[k] for k in self.banned],
            "deck_size": self.deck_size,
            "recruits": self.recruits,
            "recruit_allowance": self.recruit_allowance,
            "turns": self.turns,
            "is_over": self.is_over,
            "winner": self.winner,
            "termination": self.termination,
            "legal_moves": self.legal_moves(),
            "last_move": self.last_move,
        }

    def __repr__(self) -> str:
        return f"leaders.State({self.position()!r})"


def new_game(
    seed: Seed | None = None, draw_rule: bool = True, mode: str = "discovery", rng: int = RNG_VERSION
) -> State:
    """The standard start: both Leaders on their start cells.

    ``mode="discovery"`` (the basic game): the 16 cards shuffled by ``seed``, 3 of them face up as the market.
    ``mode="strategist"``: no market and no deck (``seed`` is unused); North, then South, banishes a card.
    ``seed`` None deals from a fresh 128-bit secret. The deal is in the start position, so records replay
    without the seed; ``rng=LEGACY_RNG`` reproduces the deals of the old ``random.Random(seed)`` scheme.
    """
    if mode not in MODES:
        raise ValueError(f"unknown Leaders mode {mode!r} (modes: {', '.join(MODES)})")
    check_version(rng)
    if seed is None:
        seed = new_secret()
    check_seed(seed)
    board = [-1] * NUM_CELLS
    board[START_CELLS[0]] = 0
    board[START_CELLS[1]] = 1
    if mode == "strategist":
        return State(board, 1, BANISH, 0, [-1, -1, -1], [], 1, 0, draw_rule, strategist=True)
    cards = list(CARDS)
    if rng == LEGACY_RNG:
        if not isinstance(seed, int):
            raise ValueError(f"the legacy generator takes an integer seed, not {seed!r}")
        legacy_rng.dealer(seed).shuffle(cards)
    else:
        keyed(seed, "leaders/deck").shuffle(cards)
    return State(board, 0, ACTION, 0, cards[:3], cards[3:], 1, 0, draw_rule)


def from_position(text: str, draw_rule: bool = True) -> State:
    """A state from a position string of §5.2 (raises PositionError)."""
    return notation.parse_position(text, draw_rule)
