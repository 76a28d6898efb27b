"""``asyncio.run`` for tests, in a thread of its own.

A test worker that has run browser tests keeps Playwright's event loop running in its main thread, and
``asyncio.run`` refuses to start where a loop is running; a fresh thread has none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
