"""Two tiny games with the engines' small protocol, to test the game-independent parts of `throne.ai`."""

from __future__ import annotations

from typing import Any

from throne.ai.games import GameAdapter

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

    def to_json(self) -> dict:
        return {"heaps": self.heaps, "players": self.players, "to_play": self._to_play}

    @classmethod
    def from_json(cls, data: dict) -> Nim:
        return cls(data["heaps"], data["players"], data["to_play"])


def _ttt_new(seed: int, players: int) -> TicTacToe:
    return TicTacToe()


def _nim_new(seed: int, players: int) -> Nim:
    return Nim([3 + seed % 3, 4, 5], players)


def _dump(state: Any) -> dict:
    return state.to_json()


def _ttt_load(data: dict) -> TicTacToe:
    return TicTacToe.from_json(data)


def _nim_load(data: dict) -> Nim:
    return Nim.from_json(data)


def _record(state: Any) -> dict:
    return {"game": "toy", "state": state.to_json(), "moves": list(state.history)}


TICTACTOE = GameAdapter("tictactoe", (2,), _ttt_new, _dump, _ttt_load, _record)
NIM = GameAdapter("nim", (2, 3, 4), _nim_new, _dump, _nim_load, _record)
