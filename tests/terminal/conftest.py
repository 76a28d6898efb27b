"""Every terminal game in these tests is the same game on every run: its bots draw from a fixed generator
(a live game's bots draw fresh entropy, so an assertion about what they did would hold only by chance)."""

from __future__ import annotations

import random

import pytest

from throne import terminal


@pytest.fixture(autouse=True)
def fixed_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "bot_rng", lambda: random.Random(0))
