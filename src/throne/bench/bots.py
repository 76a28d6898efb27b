"""`throne bench GAME --bots`: search speed of every bot of a game on mid-game positions.

Search bots run for a fixed time and report iterations per second (MCTS iterations, alpha-beta nodes,
heuristic evaluations of the whole-turn search, determinized playouts of ISMCTS); bots without a search
loop report decisions per second. Rates are per CPU second of the process (`time.process_time`), so a
loaded machine does not distort them (the time budgets themselves are wall-clock); each figure is the median
over `runs` positions.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from throne.ai import registry
from throne.ai.base import Budget
from throne.ai.positions import random_positions
from throne.progress import Progress


def positions(game: str, count: int, seed: int = 0) -> list[Any]:
    """`count` positions reached by 10-40 random moves from seeded deals (never finished ones)."""
    adapter = registry.game_adapter(game)
    return random_positions(
        lambda deal: adapter.new_game(deal, adapter.default_players), count, seed, min_moves=10, max_moves=40
    )


def measure(game: str, name: str, state: Any, seconds: float) -> tuple[float, str]:
    """(rate, unit) of bot `name` on `state` during about `seconds`."""
    bot = registry.make_bot(game, name, seed=1)
    seat = state.to_play
    if hasattr(bot, "last_iterations"):
        started = time.process_time()
        bot.choose(state, seat, Budget(seconds=seconds))
        return bot.last_iterations / (time.process_time() - started), "iterations/s"
    decisions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        bot.choose(state, seat)
        decisions += 1
    return decisions / (time.process_time() - started), "decisions/s"


def run(game: str, runs: int = 5, seconds: float = 2.0, progress: Progress | None = None) -> bool:
    """Print the median rate of every plain bot (levels are these bots with fixed budgets).

    False when Ctrl-C cut the runs short: the bots measured so far are printed.
    """
    names = [n for n in registry.bot_names(game) if not registry.bot_entry(game, n).level]
    states = positions(game, runs)
    bar = progress or Progress.off()
    bar.start(len(names) * runs)
    table: list[tuple[str, list[tuple[float, str]]]] = []
    complete = False
    try:
        for name in names:
            table.append((name, []))
            for state in states:
                table[-1][1].append(measure(game, name, state, seconds))
                bar.advance()
        complete = True
    except KeyboardInterrupt:
        if not table or not table[0][1]:
            raise
    finally:
        bar.close(stopped=not complete)
    print(f"{game} bots: median of {runs} positions, {seconds:g} s each, rates per CPU second")
    print(f"{'bot':<12} {'rate':>12}  unit")
    for name, rates in table:
        if not rates:
            continue
        rate = statistics.median(r for r, _ in rates)
        short = f"  ({len(rates)} of {runs} positions)" if len(rates) < runs else ""
        print(f"{name:<12} {rate:>12.0f}  {rates[0][1]}{short}")
    if not complete:
        print("PARTIAL: the benchmark was stopped")
    return complete
