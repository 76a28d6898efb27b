"""Bot-versus-bot matches over many games, seats rotated, on a process pool.

Game `i` deals with seed `seed + i // players` and puts bot A in seat `i % players`, so every deal is played
with A in every seat. In Hidden Leaders bot A holds one seat and bot B all the others.

A run stopped by Ctrl-C or SIGTERM reports the games it finished, marked partial. With `save`, every game is
written as it finishes (its record and a line of `results.jsonl`), so `resume=True` plays only the missing
games, with the seeds they would have had, and ends with the numbers of an uninterrupted run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from throne.ai.base import AIError
from throne.ai.games import GameAdapter
from throne.ai.registry import BotEntry, bot_entry, game_adapter
from throne.ai.stats import wilson
from throne.progress import Progress, shielded
from throne.runlog import RunLog
from throne.scaleout.backend import check_backend, imap_unordered

MAX_MOVES = 20000
"""A game still running after this many decisions is stopped and counted as a draw (a safety net only)."""


class ArenaError(AIError):
    """Bad arena settings (player count, number of games)."""


@dataclass(frozen=True)
class GameResult:
    index: int
    seed: int
    seat_a: int
    winner: int | None
    moves: int
    seconds_a: float
    moves_a: int
    seconds_b: float
    moves_b: int
    record: dict | None = None

    @property
    def a_won(self) -> bool:
        return self.winner == self.seat_a

    @property
    def b_won(self) -> bool:
        return self.winner is not None and self.winner != self.seat_a


def play_game(
    adapter: GameAdapter,
    entry_a: BotEntry,
    entry_b: BotEntry,
    players: int,
    index: int,
    seed: int,
    keep_record: bool = False,
    options: dict[str, Any] | None = None,
) -> GameResult:
    """Play one game to its end (module-level so pool workers can run it); ``options`` are game options
    passed to the adapter's ``new_game`` (e.g. Hidden Leaders ``modules``)."""
    seat_a = index % players
    deal = seed + index // players
    state = adapter.new_game(deal, players, **options) if options else adapter.new_game(deal, players)
    bots = {
        seat: (entry_a if seat == seat_a else entry_b).build(seed=deal * 101 + seat * 7 + 1)
        for seat in range(players)
    }
    spent = [0.0, 0.0]
    counts = [0, 0]
    moves = 0
    while not state.is_over and moves < MAX_MOVES:
        seat = state.to_play
        started = time.process_time()
        move = bots[seat].choose(state, seat)
        side = 0 if seat == seat_a else 1
        spent[side] += time.process_time() - started
        counts[side] += 1
        state.play(move)
        moves += 1
    winner = state.winner if state.is_over else None
    return GameResult(
        index=index,
        seed=deal,
        seat_a=seat_a,
        winner=winner,
        moves=moves,
        seconds_a=spent[0],
        moves_a=counts[0],
        seconds_b=spent[1],
        moves_b=counts[1],
        record=adapter.record(state) if keep_record else None,
    )


def _play_job(args: tuple) -> GameResult:
    return play_game(*args)


def run_arena(
    game: str,
    bot_a: str,
    bot_b: str,
    *,
    games: int,
    players: int | None = None,
    options: dict[str, Any] | None = None,
    jobs: int = 1,
    seed: int = 0,
    save: Path | None = None,
    resume: bool = False,
    progress: Progress | None = None,
    backend: str = "pool",
    address: str | None = None,
) -> dict[str, Any]:
    """Play `games` games of `bot_a` against `bot_b` and return the report (see `summarize`).

    `options` are game options of every deal (Hidden Leaders: ``{"modules": [...]}``).

    `backend`/`address` choose where the games run (`throne.scaleout.backend`: "pool", "ray", "serial"); the
    results are the same for the same seed on every backend. `resume` (with `save`) keeps the games a stopped
    run saved there. Ctrl-C ends the run early: the report then covers the finished games and has
    `"partial": true` and `"games_planned"`.
    """
    adapter = game_adapter(game, options)
    entry_a, entry_b = bot_entry(game, bot_a), bot_entry(game, bot_b)
    players = players or adapter.default_players
    if players not in adapter.players:
        raise ArenaError(f"{game} is played by {', '.join(map(str, adapter.players))} players, not {players}")
    if games < 1:
        raise ArenaError(f"an arena needs at least one game, got {games}")
    check_backend(backend, address)
    if resume and save is None:
        raise ArenaError("resuming needs the directory of the stopped run (save)")
    log = None
    finished: dict[int, GameResult] = {}
    if save is not None:
        settings = {"kind": "arena", "game": game, "bot_a": bot_a, "bot_b": bot_b}
        settings |= {"players": players, "seed": seed, **({"options": options} if options else {})}
        log = RunLog(save, "results", settings, resume=resume)
        finished = {r.index: r for r in map(_from_row, log.previous) if r.index < games}
    tasks = [(adapter, entry_a, entry_b, players, i, seed, save is not None, options) for i in range(games)]
    tasks = [t for t in tasks if t[4] not in finished]
    bar = progress or Progress.off()
    bar.start(games, len(finished))
    bar.status = running_score(bot_a, finished.values())
    started = time.perf_counter()
    complete = False
    try:
        for _, result in _run(tasks, jobs, backend, address):
            with shielded():
                finished[result.index] = result
                if log is not None:
                    _save_game(save, log, result)
            bar.advance(status=running_score(bot_a, finished.values()))
        complete = True
    except KeyboardInterrupt:
        pass
    finally:
        bar.close(stopped=not complete)
    results = [finished[i] for i in sorted(finished)]
    report = summarize(game, bot_a, bot_b, players, seed, results)
    if options:
        report["options"] = options
    report["wall_seconds"] = round(time.perf_counter() - started, 3)
    if len(results) < games:
        report["partial"] = True
        report["games_planned"] = games
    if save is not None:
        (save / "arena.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


def running_score(bot_a: str, results: Iterable[GameResult]) -> str:
    """`bot_a`'s wins so far with their 95% interval, as the progress display shows them."""
    outcomes = [r.a_won for r in results]
    if not outcomes:
        return ""
    wins, n = sum(outcomes), len(outcomes)
    lo, hi = (round(x, 4) for x in wilson(wins, n))  # rounded as in the report
    return f"{bot_a} {wins}/{n} {wins / n:.1%} [{lo:.1%}, {hi:.1%}]"


def _run(
    tasks: list[tuple], jobs: int, backend: str = "pool", address: str | None = None
) -> Iterable[tuple[int, GameResult]]:
    if backend == "pool" and jobs <= 1:
        backend = "serial"
    yield from imap_unordered(_play_job, tasks, backend, address, workers=jobs if jobs > 1 else None)


def summarize(
    game: str, bot_a: str, bot_b: str, players: int, seed: int, results: list[GameResult]
) -> dict[str, Any]:
    """Win rates with 95% Wilson intervals, draws, average length and time per move, per-seat splits."""
    n = len(results)
    a_wins = sum(r.a_won for r in results)
    b_wins = sum(r.b_won for r in results)
    draws = n - a_wins - b_wins

    def side(wins: int) -> dict[str, Any]:
        lo, hi = wilson(wins, n)
        return {"wins": wins, "win_rate": wins / n if n else 0.0, "ci95": [round(lo, 4), round(hi, 4)]}

    def per_move(seconds: float, moves: int) -> float:
        return seconds / moves if moves else 0.0

    by_seat = {}
    for seat in range(players):
        mine = [r for r in results if r.seat_a == seat]
        by_seat[str(seat)] = {"games": len(mine), "a_wins": sum(r.a_won for r in mine)}
    return {
        "game": game,
        "bot_a": bot_a,
        "bot_b": bot_b,
        "players": players,
        "games": n,
        "seed": seed,
        "a": side(a_wins),
        "b": side(b_wins),
        "draws": draws,
        "avg_moves": sum(r.moves for r in results) / n if n else 0.0,
        "seconds_per_move": {
            "a": per_move(sum(r.seconds_a for r in results), sum(r.moves_a for r in results)),
            "b": per_move(sum(r.seconds_b for r in results), sum(r.moves_b for r in results)),
        },
        "a_by_seat": by_seat,
        "results": [
            {"index": r.index, "seed": r.seed, "seat_a": r.seat_a, "winner": r.winner, "moves": r.moves}
            for r in results
        ],
    }


def format_report(report: dict[str, Any]) -> str:
    """The report as a few lines of text."""
    a, b = report["a"], report["b"]
    b_label = report["bot_b"] if report["players"] == 2 else f"{report['bot_b']} (x{report['players'] - 1})"
    spm = report["seconds_per_move"]
    lines = [
        f"{report['game']}: {report['bot_a']} vs {b_label}, {report['games']} games, "
        f"{report['players']} players, seed {report['seed']}"
        + "".join(f", {k} {_option_text(v)}" for k, v in report.get("options", {}).items()),
        f"  {report['bot_a']:<12} wins {a['wins']:>5}  {a['win_rate']:6.1%}  "
        f"95% CI [{a['ci95'][0]:.1%}, {a['ci95'][1]:.1%}]",
        f"  {b_label:<12} wins {b['wins']:>5}  {b['win_rate']:6.1%}  "
        f"95% CI [{b['ci95'][0]:.1%}, {b['ci95'][1]:.1%}]",
        f"  draws / no winner {report['draws']}",
        f"  average length {report['avg_moves']:.1f} moves; CPU time per move "
        f"{report['bot_a']} {spm['a'] * 1000:.2f} ms, {report['bot_b']} {spm['b'] * 1000:.2f} ms",
        "  "
        + report["bot_a"]
        + " wins by seat: "
        + ", ".join(f"{s}: {v['a_wins']}/{v['games']}" for s, v in report["a_by_seat"].items()),
    ]
    if report.get("partial"):
        lines.append(f"  PARTIAL: {report['games']} of {report['games_planned']} games (the run was stopped)")
    if "wall_seconds" in report:
        lines.append(f"  wall time {report['wall_seconds']:.1f} s")
    return "\n".join(lines)


def _option_text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _save_game(directory: Path, log: RunLog, result: GameResult) -> None:
    # each game's record on its own (so `throne replay` reads it); seats and seeds are in results.jsonl
    (directory / f"game-{result.index:05d}.json").write_text(json.dumps(result.record), encoding="utf-8")
    log.append({f.name: getattr(result, f.name) for f in fields(result) if f.name != "record"})


def _from_row(row: dict[str, Any]) -> GameResult:
    return GameResult(**row)
