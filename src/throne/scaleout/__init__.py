"""Many games at once: the arena, tournaments and self-play on a process pool or on Ray (extra `[ray]`).

`run_games(fn, jobs, backend, address)` maps a pure function over game specs; the arena, the tournaments and
self-play all run through it, so their results for the same seeds do not depend on the backend.
"""

from __future__ import annotations

from throne.scaleout.backend import BACKENDS, BackendError, imap_games, run_games

__all__ = ["BACKENDS", "BackendError", "imap_games", "run_games"]
