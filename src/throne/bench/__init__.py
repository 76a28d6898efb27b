"""Engine speed measurements behind `throne bench`.

Games with a benchmark of their own are listed in `ENGINE_BENCHES`; every other registered game is measured
through the game contract by `throne.bench.contract`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from throne.progress import Progress

ENGINE_BENCHES = {"leaders": "throne.bench.leaders", "hidden-leaders": "throne.bench.hidden_leaders"}
"""`{game id: module}`; the module's `run(runs, seconds, progress)` prints its measurements and says
whether they are complete."""


def run_engine(game: str, runs: int = 5, seconds: float = 2.0, progress: Progress | None = None) -> bool:
    """Print the engine measurements of a registered game; False when Ctrl-C cut them short."""
    from throne import games

    spec = games.get(game)
    name = ENGINE_BENCHES.get(spec.id)
    if name is None:
        from throne.bench import contract

        return contract.run(spec, runs=runs, seconds=seconds, progress=progress)
    return importlib.import_module(name).run(runs=runs, seconds=seconds, progress=progress)
