"""Round-robin tournaments between bots and levels, on any backend, with ratings and a report.

Every game is an arena game (`throne.scaleout.arena.play_game`): bot "a" holds one seat, bot "b" all the
others, game `i` of a pairing deals with seed `seed + i // players` and puts "a" in seat `i % players`.
Leaders: each pair (A, B) plays `games` games with A as "a" (so A and B alternate sides on the same deals).
Hidden Leaders: each pair plays `games` games with A as "a" and `games` with B as "a", so that both take the
single seat equally often.

Scores for the ratings, from "a"'s side: 1 if "a" won, 0 if a "b" seat won, ½ when nobody won.

With `out`, each game is logged to `out/games.jsonl` as it finishes; `resume=True` keeps the logged games and
plays only the missing ones, with their own seeds, so the ratings equal those of an uninterrupted run. A run
stopped by Ctrl-C rates the finished games and is marked partial.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from throne.ai.registry import bot_entry, game_adapter
from throne.progress import Progress, shielded
from throne.runlog import RunLog
from throne.scaleout.arena import GameResult, play_game
from throne.scaleout.backend import check_backend, imap_unordered
from throne.scaleout.ratings import Rating, fit_elo, score_matrix


class TournamentError(ValueError):
    """Bad tournament settings (too few entrants, a repeated entrant, no games, a wrong player count)."""


@dataclass(frozen=True)
class Match:
    """One scheduled game: entrant `a` in one seat, entrant `b` in the others, as the arena plays it."""

    a: str
    b: str
    index: int


def schedule(game: str, entrants: Sequence[str], games: int, players: int | None = None) -> list[Match]:
    """Every game of the round robin, in a fixed order.

    With two seats, seat rotation already gives each entrant both seats; with more, "a" holds one seat and
    "b" all the others, so each pairing is played both ways round.
    """
    if len(entrants) < 2 or len(set(entrants)) != len(entrants):
        raise TournamentError(f"a tournament needs at least 2 distinct entrants, got {list(entrants)}")
    if games < 1:
        raise TournamentError(f"games per pairing must be at least 1, got {games}")
    seats = game_adapter(game).default_players if players is None else players
    out = []
    for x, y in itertools.combinations(entrants, 2):
        directions = [(x, y)] if seats == 2 else [(x, y), (y, x)]
        for a, b in directions:
            out.extend(Match(a, b, i) for i in range(games))
    return out


def _play(task: tuple) -> GameResult:
    return play_game(*task)


def outcome_key(result: GameResult) -> tuple[int, int, int, int | None, int]:
    """What must agree between backends for the same seeds (times do not)."""
    return (result.index, result.seed, result.seat_a, result.winner, result.moves)


def score(result: GameResult) -> float:
    if result.a_won:
        return 1.0
    return 0.0 if result.b_won else 0.5


@dataclass(frozen=True)
class TournamentResult:
    game: str
    players: int
    seed: int
    entrants: tuple[str, ...]
    games: list[tuple[Match, GameResult]]
    ratings: list[Rating]
    planned: int | None = None  # games scheduled, when fewer were played (a stopped run)

    @property
    def partial(self) -> bool:
        return self.planned is not None and len(self.games) < self.planned

    def scored(self) -> list[tuple[str, str, float]]:
        return [(m.a, m.b, score(r)) for m, r in self.games]

    def to_json(self) -> dict[str, Any]:
        matrix = score_matrix(self.entrants, self.scored())
        stopped = {"partial": True, "games_planned": self.planned} if self.partial else {}
        return {
            **stopped,
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "entrants": list(self.entrants),
            "ratings": [asdict(r) for r in self.ratings],
            "score_matrix": [[None if v != v else round(float(v), 4) for v in row] for row in matrix],
            "games": [
                {
                    "a": m.a,
                    "b": m.b,
                    "index": r.index,
                    "seed": r.seed,
                    "seat_a": r.seat_a,
                    "winner": r.winner,
                    "moves": r.moves,
                    "seconds": round(r.seconds_a + r.seconds_b, 4),
                }
                for m, r in self.games
            ],
        }


def run_tournament(
    game: str,
    entrants: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    players: int | None = None,
    options: dict[str, Any] | None = None,
    backend: str = "pool",
    address: str | None = None,
    workers: int | None = None,
    out: Path | None = None,
    resume: bool = False,
    progress: Progress | None = None,
) -> TournamentResult:
    """Play the round robin of `entrants` (bot names or levels) on `backend` and rate them.

    `out`: log every game there as it finishes; `resume`: keep the games logged there by a stopped run of the
    same game, players and seed. Ctrl-C ends the run early with the finished games rated (`partial`).
    """
    adapter = game_adapter(game, options)
    players = players or adapter.default_players
    if players not in adapter.players:
        counts = ", ".join(map(str, adapter.players))
        raise TournamentError(f"{game} is played by {counts} players, not {players}")
    entries = {name: bot_entry(game, name) for name in entrants}
    plan = schedule(game, entrants, games, players)
    check_backend(backend, address, workers)
    if resume and out is None:
        raise TournamentError("resuming needs the directory of the stopped run (out)")
    log = None
    finished: dict[Match, GameResult] = {}
    if out is not None:
        settings = {"kind": "tournament", "game": game, "players": players, "seed": seed}
        log = RunLog(out, "games", settings, resume=resume)
        finished = dict(map(_from_row, log.previous))
    missing = [m for m in plan if m not in finished]
    tasks = [(adapter, entries[m.a], entries[m.b], players, m.index, seed, False) for m in missing]
    bar = progress or Progress.off()
    bar.start(len(plan), len(plan) - len(missing))
    complete = False
    try:
        for position, result in imap_unordered(_play, tasks, backend, address, workers=workers):
            with shielded():
                finished[missing[position]] = result
                if log is not None:
                    log.append(_row(missing[position], result))
            bar.advance()
        complete = True
    except KeyboardInterrupt:
        pass
    finally:
        bar.close(stopped=not complete)
    played = [(m, finished[m]) for m in plan if m in finished]
    ratings = fit_elo(list(entrants), [(m.a, m.b, score(r)) for m, r in played])
    return TournamentResult(game, players, seed, tuple(entrants), played, ratings, len(plan))


def _row(match: Match, result: GameResult) -> dict[str, Any]:
    row = {f.name: getattr(result, f.name) for f in fields(result) if f.name != "record"}
    return {"a": match.a, "b": match.b, **row}


def _from_row(row: dict[str, Any]) -> tuple[Match, GameResult]:
    row = dict(row)
    a, b = row.pop("a"), row.pop("b")
    return Match(a, b, row["index"]), GameResult(**row)


def format_table(result: TournamentResult) -> str:
    """The ratings as a text table, best first."""
    lines = [f"{'entrant':<16} {'Elo':>7} {'±95%':>6} {'games':>6} {'score':>7}"]
    for r in result.ratings:
        lines.append(f"{r.name:<16} {r.elo:7.0f} {r.ci95:6.0f} {r.games:6d} {r.score:7.1f}")
    if result.partial:
        lines.append(f"PARTIAL: {len(result.games)} of {result.planned} games (the run was stopped)")
    return "\n".join(lines)


def write_report(result: TournamentResult, out: Path) -> dict[str, Path]:
    """Write `tournament.json`, `ratings.txt` and `tournament.png` (ratings and score matrix) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "tournament.json", "table": out / "ratings.txt", "png": out / "tournament.png"}
    paths["json"].write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    paths["table"].write_text(format_table(result) + "\n", encoding="utf-8")
    plot(result, paths["png"])
    return paths


def plot(result: TournamentResult, path: Path) -> None:
    """Ratings with their 95% intervals (left) and the score matrix (right), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result.entrants)
    matrix = score_matrix(names, result.scored())
    order = [r.name for r in result.ratings]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    left.errorbar(
        [r.elo for r in result.ratings],
        range(len(order)),
        xerr=[r.ci95 for r in result.ratings],
        fmt="o",
        capsize=4,
    )
    left.set_yticks(range(len(order)), order)
    left.invert_yaxis()
    left.set_xlabel("Elo (95% interval)")
    left.set_title(f"{result.game}: ratings" + (" (partial)" if result.partial else ""))
    image = right.imshow(matrix, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    right.set_xticks(range(len(names)), names, rotation=45, ha="right")
    right.set_yticks(range(len(names)), names)
    for i, j in itertools.product(range(len(names)), repeat=2):
        if matrix[i, j] == matrix[i, j]:
            right.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    right.set_title("mean score, row vs column")
    fig.colorbar(image, ax=right, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
