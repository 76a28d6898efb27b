"""No game id is branched on outside the engines: code outside `src/throne/games/` chooses by what a game's
spec declares (renderer, seat names, tutorial, events), never by comparing the id. Registration tables
(``{"leaders": ...}``) and calls that pass an id are allowed; comparisons are not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from throne import games

SRC = Path(games.__file__).resolve().parent.parent  # src/throne
ENGINES = SRC / "games"
SUFFIXES = (".py", ".js", ".html")


def _pattern(ids: tuple[str, ...]) -> re.Pattern[str]:
    lit = "|".join(re.escape(i) for i in ids)
    q = f"""["'`](?:{lit})["'`]"""
    return re.compile(
        rf"(?:==|!=)=?\s*{q}"  # x == "leaders", x !== "leaders"
        rf"|{q}\s*(?:==|!=)"  # "leaders" == x
        rf"|\bin\s*[\(\[\{{]\s*{q}\s*[,\)\]\}}]"  # x in ("leaders", ...), x not in ["leaders"]
        rf"|\bcase\s+{q}"  # JS switch on the id
        rf"|\.(?:startswith|startsWith|endswith|endsWith)\(\s*{q}"
    )


PATTERN = _pattern(games.ids())

# (line, flagged): the detector itself, so that the scan below can fail
CASES = [
    ('if self.game == "leaders":', True),
    ('return a if game != "hidden-leaders" else b', True),
    ('if game not in ("leaders", "hidden-leaders"):', True),
    ("if (game === 'leaders') {", True),
    ('case "hidden-leaders":', True),
    ('if "leaders" == game:', True),
    ('_DEDICATED = {"leaders": _register_leaders, "hidden-leaders": _register_hidden}', False),
    ('bot = ai.make_bot("leaders", "hard", seed=1)', False),
    ('"leaders": sorted(LEADERS.values(), key=lambda x: x.number),', False),
    ('if v["leaders"][seat]:', False),
]


@pytest.mark.parametrize(("line", "flagged"), CASES)
def test_the_detector_sees_id_comparisons(line: str, flagged: bool) -> None:
    assert bool(PATTERN.search(line)) is flagged


def test_no_game_id_comparison_outside_the_engines() -> None:
    files = [p for p in SRC.rglob("*") if p.suffix in SUFFIXES and ENGINES not in p.parents]
    assert len(files) > 50  # the scan really reads the platform
    found = [f"{p.relative_to(SRC)}:{n}: {line.strip()}"
             for p in files for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if PATTERN.search(line)]
    assert not found, "game ids compared outside the engines (choose by the spec):\n" + "\n".join(found)
