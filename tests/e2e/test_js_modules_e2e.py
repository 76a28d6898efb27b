"""The browser modules that turn legal move strings into clicks and labels, run in Chromium.

Rows mirror leaders.md §5.1 (move shapes) and hidden-leaders.md §7.1 (decision strings, taken from real
engine games)."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page

from tests.e2e.helpers import Contexts
from throne.games import hidden_leaders as hl

pytestmark = pytest.mark.e2e

TOKENS = [
    ("end", ["end"]),
    ("c3-c4", ["c3", "c4"]),
    ("d1-d2-e2", ["d1", "d2", "e2"]),
    ("c3-c5-e4", ["c3", "c5", "e4"]),
    ("c3:c4>c5", ["c3", "c4", "c5"]),
    ("c3:c6", ["c3", "c6"]),
    ("a1-a2", ["a1", "a2"]),
    ("b1-b2,a1-a2", ["b1", "b2", "a1", "a2"]),
    ("+RI@a1", ["+RI", "a1"]),
    ("+HE@a1,b1", ["+HE", "a1", "b1"]),
    ("ban NE", ["ban NE"]),
]
LEGAL = ["c3-c4", "c3-c5", "c3-c5-e4", "d1-d2", "e4:e5>e6", "end", "+HE@a1,b1", "+HE@b1,a1"]
CHOICES = [
    ([], ["+HE", "c3", "d1", "e4", "end"], None),
    (["c3"], ["c4", "c5"], None),
    (["c3", "c5"], ["e4"], "c3-c5"),
    (["c3", "c5", "e4"], [], "c3-c5-e4"),
    (["e4"], ["e5"], None),
    (["e4", "e5"], ["e6"], None),
    (["+HE"], ["a1", "b1"], None),
    (["+HE", "b1"], ["a1"], None),
    (["c4"], [], None),
]


@pytest.fixture
def page(contexts: Contexts) -> Page:
    p = contexts.page()
    p.goto("/leaderboard")
    return p


def test_leaders_move_tokens(page: Page) -> None:
    script = """async (moves) => {
        const { tokens } = await import('/static/js/leaders-moves.js');
        return moves.map((move) => tokens(move));
    }"""
    got = page.evaluate(script, [move for move, _ in TOKENS])
    assert dict(zip([move for move, _ in TOKENS], got, strict=True)) == dict(TOKENS)


def test_leaders_choices_follow_the_legal_moves_only(page: Page) -> None:
    script = """async ([legal, rows]) => {
        const { choices } = await import('/static/js/leaders-moves.js');
        return rows.map(([clicks]) => {
            const c = choices(legal, clicks);
            return [[...c.next].sort(), c.complete];
        });
    }"""
    got = page.evaluate(script, [LEGAL, [[c] for c, _, _ in CHOICES]])
    assert got == [[sorted(nxt), complete] for _, nxt, complete in CHOICES]


def _hidden_leaders_moves(games: int = 6) -> list[str]:
    rng = random.Random(5)
    moves: set[str] = set()
    for seed in range(games):
        state = hl.new_game(players=2 + seed % 5, seed=seed,
                            modules=("core", "kickstarter", "queens", "legends"))
        while not state.is_over:
            legal = state.legal_moves()
            moves.update(legal)
            state.play(rng.choice(legal))
    return sorted(moves)


def test_every_hidden_leaders_decision_gets_a_localised_label(page: Page) -> None:
    moves = _hidden_leaders_moves()
    for lang in ("en", "fa", "ja"):
        _check_labels(page, lang, moves)


def _check_labels(page: Page, lang: str, moves: list[str]) -> None:
    script = """async ([lang, moves]) => {
        await (await import('/static/js/i18n.js')).loadCatalog(lang);
        const { moveLabel } = await import('/static/js/hidden-table.js');
        return moves.map((m) => moveLabel(m, ['A', 'B', 'C', 'D', 'E', 'F']));
    }"""
    labels = page.evaluate(script, [lang, moves])
    ids = re.compile("|".join(re.escape(card) for card in sorted(hl.CARDS, key=len, reverse=True)))
    leaked = {
        move: label for move, label in zip(moves, labels, strict=True) if not label or ids.search(label)
    }
    assert leaked == {}
    if lang != "en":
        untranslated = [m for m, label in zip(moves, labels, strict=True) if re.fullmatch(r"[a-z ]+", label)]
        assert untranslated == []


NEIGHBOURS = [  # leaders.md §1 examples, plus a corner and an edge
    ("d1", ["c1", "d2", "e1"]),
    ("d4", ["c3", "c4", "d3", "d5", "e3", "e4"]),
    ("c3", ["b2", "b3", "c2", "c4", "d3", "d4"]),
    ("a1", ["a2", "b1", "b2"]),
    ("g4", ["f4", "f5", "g3"]),
]


def test_board_geometry(page: Page) -> None:
    script = """async (names) => {
        const b = await import('/static/js/leaders-board.js');
        const cells = b.cells();
        return {
            count: cells.length,
            named: [[0, 3], [0, 0], [0, -3], [-3, 3], [3, -3]].map(([q, r]) => b.cellName(q, r)),
            around: names.map((n) => b.neighbours(n).sort()),
        };
    }"""
    got = page.evaluate(script, [name for name, _ in NEIGHBOURS])
    assert got["count"] == 37
    assert got["named"] == ["d1", "d4", "d7", "a1", "g4"]
    assert got["around"] == [sorted(cells) for _, cells in NEIGHBOURS]


def test_move_list_grouped_by_turn(page: Page) -> None:
    moves = ["d1-d2", "end", "+CL@a1", "d7-d6", "end", "+RI@f5", "+AC@e6", "a1-a2", "end", "d6-d5", "end"]
    script = "async (m) => (await import('/static/js/leaders-table.js')).groupTurns(m)"
    assert page.evaluate(script, moves) == [
        ["d1-d2", "end", "+CL@a1"],
        ["d7-d6", "end", "+RI@f5", "+AC@e6"],
        ["a1-a2", "end"],
        ["d6-d5", "end"],
    ]


def test_move_list_banishments_stand_alone(page: Page) -> None:
    moves = ["ban NE", "ban AS", "d1-d2", "end", "+CL@a1", "d7-d6", "end", "+RI@f5"]
    moves += ["ban VI", "ban HE", "end"]
    script = "async (m) => (await import('/static/js/leaders-table.js')).groupTurns(m)"
    assert page.evaluate(script, moves) == [
        ["ban NE"],
        ["ban AS"],
        ["d1-d2", "end", "+CL@a1"],
        ["d7-d6", "end", "+RI@f5"],
        ["ban VI"],
        ["ban HE"],
        ["end"],
    ]
