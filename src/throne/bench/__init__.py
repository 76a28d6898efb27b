"""Engine speed measurements behind `throne bench`.

Games with a benchmark of their own are listed in `ENGINE_BENCHES`; every other registered game is measured
through the game contract by `throne.bench.contract`.
"""

from __future__ import annotations

import importlib

ENGINE_BENCHES = {"leaders": "throne.bench.leaders", "hidden-leaders": "throne.bench.hidden_leaders"}
"""`{game id: module}`; the module's `run(runs, seconds)` prints its measurements."""


def run_engine(game: str, runs: int = 5, seconds: float = 2.0) -> None:
    """Print the engine measurements of a registered game."""
    from throne import games

    spec = games.get(game)
    name = ENGINE_BENCHES.get(spec.id)
    if name is None:
        from throne.bench import contract

        contract.run(spec, runs=runs, seconds=seconds)
        return
    importlib.import_module(name).run(runs=runs, seconds=seconds)
