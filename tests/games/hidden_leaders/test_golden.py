"""Golden playthroughs: whole recorded games whose final state and scores are pinned down.

A rule change that alters any step of these games changes the final state; if the change is intended,
regenerate the files (replay the record's seed with ``random.Random(seed)`` choosing among ``legal_moves()``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from throne.games import hidden_leaders as hl

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    st = hl.record_to_state(data["record"])
    assert st.is_over
    assert st.to_json() == data["final"]
    assert st.scores() == data["scores"]
    rec = data["record"]
    again = hl.new_game(players=rec["players"], seed=rec["seed"], modules=tuple(rec["modules"]))
    rng = random.Random(rec["seed"])
    while not again.is_over:
        again.play(rng.choice(again.legal_moves()))
    assert again.record() == rec


def test_golden_files_exist() -> None:
    assert len(GOLDEN) >= 2
