"""Many games at once: tournaments and self-play on a local process pool, or on Ray (extra `[ray]`).

`run_games(fn, jobs, backend, address)` maps a pure function over game specs; the arena, the tournaments and
self-play all run through it, so their results for the same seeds do not depend on the backend.
"""

from __future__ import annotations

from throne.scaleout.backend import BACKENDS, BackendError, imap_games, imap_unordered, run_games

__all__ = ["BACKENDS", "BackendError", "imap_games", "imap_unordered", "run_games"]
