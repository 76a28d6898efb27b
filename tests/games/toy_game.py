"""Sum Duel: a tiny third game written against the contract only (`throne.games.api`), to prove that a game
is added in one place. Nothing outside this file knows it; tests register it with `games.register(SPEC)`.

Rules: every seat is dealt `hand` hidden cards from 1-9 (a pure function of the seed). In seat order, the
seat to play plays one of its cards face up (`play N`). When every card is played, the highest sum wins;
a tie for the highest sum is a draw.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from throne.games import GameSpec, Option, Outcome

GAME = "sum-duel"
CARDS = tuple(range(1, 10))


class SumDuelError(ValueError):
    """A move that is not legal now."""


class SumDuel:
    def __init__(self, seed: int, players: int, hand: int) -> None:
        self.seed, self.players, self.hand = seed, players, hand
        deck = [c for c in CARDS for _ in range(2)]
        random.Random(seed).shuffle(deck)
        self.hands = [sorted(deck[i * hand : (i + 1) * hand]) for i in range(players)]
        self.unseen_pool = deck[players * hand :]  # never dealt: no seat knows it
        self.played: list[list[int]] = [[] for _ in range(players)]
        self.history: list[tuple[int, str]] = []

    @property
    def to_play(self) -> int | None:
        return None if self.is_over else len(self.history) % self.players

    @property
    def is_over(self) -> bool:
        return len(self.history) == self.players * self.hand

    @property
    def outcome(self) -> Outcome | None:
        if not self.is_over:
            return None
        sums = [sum(p) for p in self.played]
        best = max(sums)
        winners = [s for s, v in enumerate(sums) if v == best]
        return Outcome.single(winners[0] if len(winners) == 1 else None, self.players, "sum", sums=sums)

    @property
    def winner(self) -> int | None:
        outcome = self.outcome
        return None if outcome is None else outcome.winner

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        return [f"play {c}" for c in sorted(set(self.hands[self.to_play]))]

    def play(self, move: str) -> None:
        if move not in self.legal_moves():
            raise SumDuelError(f"{move!r} is not a legal move")
        seat = self.to_play
        card = int(move.split()[1])
        self.hands[seat].remove(card)
        self.played[seat].append(card)
        self.history.append((seat, move))

    def view(self, seat: int | None = None) -> dict[str, Any]:
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r}")
        over = self.is_over
        return {
            "game": GAME,
            "seat": seat,
            "to_play": self.to_play,
            "hands": [h[:] if (over or s == seat) else {"count": len(h)} for s, h in enumerate(self.hands)],
            "played": [p[:] for p in self.played],
            "legal_moves": self.legal_moves() if seat is not None and seat == self.to_play else [],
            "last_move": self.history[-1][1] if self.history else None,
        }

    def determinize(self, seat: int, rng: random.Random) -> SumDuel:
        """A world `seat` cannot tell from this one: the other hands redealt from the unseen cards."""
        world = self.clone()
        others = [s for s in range(self.players) if s != seat]
        pool = sorted([c for s in others for c in world.hands[s]] + world.unseen_pool)  # order: no leak
        rng.shuffle(pool)
        for s in others:
            n = len(world.hands[s])
            world.hands[s], pool = sorted(pool[:n]), pool[n:]
        world.unseen_pool = pool
        return world

    def record(self) -> dict[str, Any]:
        return {
            "game": GAME,
            "seed": self.seed,
            "players": self.players,
            "options": {"hand": str(self.hand)},
            "moves": [[s, m] for s, m in self.history],
        }

    def clone(self) -> SumDuel:
        other = SumDuel.__new__(SumDuel)
        other.seed, other.players, other.hand = self.seed, self.players, self.hand
        other.hands = [h[:] for h in self.hands]
        other.unseen_pool = self.unseen_pool[:]
        other.played = [p[:] for p in self.played]
        other.history = self.history[:]
        return other


def new_game(seed: Any, players: int, options: Mapping[str, Any], rng: int | None = None) -> SumDuel:
    return SumDuel(int(seed) if not isinstance(seed, str) else int(seed, 16), players, int(options["hand"]))


def from_record(record: dict[str, Any]) -> SumDuel:
    if not isinstance(record, dict) or record.get("game") != GAME:
        raise SumDuelError("not a Sum Duel record")
    state = SPEC.new_state(record["seed"], record["players"], record.get("options"))
    for seat, move in record["moves"]:
        if seat != state.to_play:
            raise SumDuelError(f"move {move!r} by seat {seat}, but seat {state.to_play} is to play")
        state.play(move)
    return state


def dump(state: SumDuel) -> dict[str, Any]:
    """The full state (secrets included), for a process boundary."""
    return {
        "seed": state.seed, "players": state.players, "hand": state.hand, "hands": state.hands,
        "unseen_pool": state.unseen_pool, "played": state.played, "history": state.history,
    }


def load(data: dict[str, Any]) -> SumDuel:
    state = SumDuel.__new__(SumDuel)
    state.seed, state.players, state.hand = data["seed"], data["players"], data["hand"]
    state.hands = [list(h) for h in data["hands"]]
    state.unseen_pool = list(data["unseen_pool"])
    state.played = [list(p) for p in data["played"]]
    state.history = [(s, m) for s, m in data["history"]]
    return state


def blind(state: SumDuel, seat: int) -> dict[str, Any]:
    """What a bot of `seat` is sent: a world it cannot tell from the real one, without the seed."""
    world = dump(state.determinize(seat, random.Random(0)))
    world["seed"] = 0
    return world


def _public_move(state: SumDuel) -> str | None:
    return state.history[-1][1] if state.history else None  # a played card is shown face up


SPEC = GameSpec(
    id=GAME,
    name="Sum Duel",
    players=(2, 3, 4),
    default_players=2,
    new_game=new_game,
    from_record=from_record,
    illegal_errors=(SumDuelError,),
    options=(Option("hand", ("2", "3"), "3", help="cards per hand"),),
    rating="openskill",
    secret_moves=False,
    perfect_information=False,
    bot_levels=("easy",),
    public_move=_public_move,
    dump=dump,
    load=load,
    blind=blind,
)
