"""Golden playthroughs: whole recorded games whose final state and scores are pinned down.

A rule change that alters any step of these games changes the final state; if the change is intended,
regenerate the files (replay the record's seed with ``random.Random(seed)`` choosing among ``legal_moves()``).
Files named ``legacy-*`` are records without an ``"rng"`` field, dealt by the legacy generator: they must keep
replaying exactly forever. The others use the keyed generator (``"rng": 2``) with 128-bit hex secrets.
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
    again = hl.new_game(players=rec["players"], seed=rec["seed"], modules=tuple(rec["modules"]),
                        rng=rec.get("rng", 1))
    rng = random.Random(rec["seed"])
    while not again.is_over:
        again.play(rng.choice(again.legal_moves()))
    assert again.record() == rec


def test_golden_files_exist() -> None:
    legacy = [p for p in GOLDEN if p.stem.startswith("legacy-")]
    assert len(legacy) >= 2 and len(GOLDEN) - len(legacy) >= 2
    for p in legacy:
        assert "rng" not in json.loads(p.read_text(encoding="utf-8"))["record"]
