"""Two tiny games with the engines' contract (`throne.games.api`), to test the game-independent parts of
`throne.ai`."""

from __future__ import annotations

from typing import Any

from throne.games import GameSpec, Outcome

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
CELLS = [f"{c}{r}" for r in "123" for c in "abc"]


class IllegalToyMove(ValueError):
    pass


class TicTacToe:
    """Seat 0 plays X, seat 1 plays O; moves are cell names a1..c3."""

    players = 2

    def __init__(self, board: list[int | None] | None = None, to_play: int = 0) -> None:
        self.board: list[int | None] = board if board is not None else [None] * 9
        self._to_play = to_play
        self.history: list[int] = []

    @property
    def to_play(self) -> int:
        return self._to_play

    @property
    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.board[a] is not None and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None or all(v is not None for v in self.board)

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        return sorted(CELLS[i] for i, v in enumerate(self.board) if v is None)

    def play(self, move: str) -> None:
        if move not in self.legal_moves():
            raise IllegalToyMove(f"illegal move {move!r}")
        i = CELLS.index(move)
        self.board[i] = self._to_play
        self.history.append(i)
        self._to_play = 1 - self._to_play

    def undo(self) -> None:
        self.board[self.history.pop()] = None
        self._to_play = 1 - self._to_play

    def clone(self) -> TicTacToe:
        other = TicTacToe(list(self.board), self._to_play)
        other.history = list(self.history)
        return other

    def key(self) -> tuple:
        return (tuple(self.board), self._to_play)

    @property
    def outcome(self) -> Outcome | None:
        if not self.is_over:
            return None
        return Outcome.single(self.winner, 2, "line" if self.winner is not None else "full")

    def view(self, seat: int | None = None) -> dict:
        return {"board": list(self.board), "to_play": self._to_play, "legal_moves": self.legal_moves()}

    def record(self) -> dict:
        return {"game": "tictactoe", "moves": [CELLS[i] for i in self.history]}

    def to_json(self) -> dict:
        return {"board": self.board, "to_play": self._to_play}

    @classmethod
    def from_json(cls, data: dict) -> TicTacToe:
        return cls(list(data["board"]), data["to_play"])


class Nim:
    """k-player Nim: take 1-3 objects from one heap (`h:n`); whoever takes the last object wins."""

    def __init__(self, heaps: list[int], players: int = 2, to_play: int = 0) -> None:
        self.heaps = list(heaps)
        self.players = players
        self._to_play = to_play
        self._winner: int | None = None
        self.history: list[tuple[int, int, int]] = []

    @property
    def to_play(self) -> int:
        return self._to_play

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def is_over(self) -> bool:
        return self._winner is not None

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        return [f"{h}:{n}" for h, size in enumerate(self.heaps) for n in range(1, min(3, size) + 1)]

    def play(self, move: str) -> None:
        if move not in self.legal_moves():
            raise IllegalToyMove(f"illegal move {move!r}")
        h, n = (int(x) for x in move.split(":"))
        self.heaps[h] -= n
        self.history.append((h, n, self._to_play))
        if not any(self.heaps):
            self._winner = self._to_play
        self._to_play = (self._to_play + 1) % self.players

    def undo(self) -> None:
        h, n, seat = self.history.pop()
        self.heaps[h] += n
        self._winner = None
        self._to_play = seat

    def clone(self) -> Nim:
        other = Nim(self.heaps, self.players, self._to_play)
        other._winner = self._winner
        other.history = list(self.history)
        return other

    def key(self) -> tuple:
        return (tuple(self.heaps), self._to_play)

    @property
    def outcome(self) -> Outcome | None:
        return Outcome.single(self._winner, self.players, "last") if self.is_over else None

    def view(self, seat: int | None = None) -> dict:
        return {"heaps": list(self.heaps), "to_play": self._to_play, "legal_moves": self.legal_moves()}

    def record(self) -> dict:
        start = [size + sum(n for h, n, _ in self.history if h == i) for i, size in enumerate(self.heaps)]
        moves = [f"{h}:{n}" for h, n, _ in self.history]
        return {"game": "nim", "start": start, "players": self.players, "moves": moves}

    def to_json(self) -> dict:
        return {"heaps": self.heaps, "players": self.players, "to_play": self._to_play}

    @classmethod
    def from_json(cls, data: dict) -> Nim:
        return cls(data["heaps"], data["players"], data["to_play"])


def _ttt_new(seed: int, players: int, options: Any, rng: int | None = None) -> TicTacToe:
    return TicTacToe()


def _nim_new(seed: int, players: int, options: Any, rng: int | None = None) -> Nim:
    return Nim([3 + seed % 3, 4, 5], players)


def _dump(state: Any) -> dict:
    return state.to_json()


def _ttt_load(data: dict) -> TicTacToe:
    return TicTacToe.from_json(data)


def _nim_load(data: dict) -> Nim:
    return Nim.from_json(data)


def _ttt_replay(record: dict) -> TicTacToe:
    state = TicTacToe()
    for move in record["moves"]:
        state.play(move)
    return state


def _nim_replay(record: dict) -> Nim:
    state = Nim(record["start"], record["players"])
    for move in record["moves"]:
        state.play(move)
    return state


TICTACTOE = GameSpec(
    id="tictactoe", name="Tic-tac-toe", players=(2,), new_game=_ttt_new, from_record=_ttt_replay,
    illegal_errors=(IllegalToyMove,), rating="glicko2", dump=_dump, load=_ttt_load, bot_levels=(),
)
NIM = GameSpec(
    id="nim", name="Nim", players=(2, 3, 4), new_game=_nim_new, from_record=_nim_replay,
    illegal_errors=(IllegalToyMove,), dump=_dump, load=_nim_load, bot_levels=(),
)
