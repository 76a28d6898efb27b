"""Elo fit: ordering, symmetry, uncertainty shrinking with more games, and precise errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from throne.scaleout.ratings import RatingError, fit_elo, score_matrix


def test_even_results_give_even_ratings() -> None:
    games = [("a", "b", 1.0), ("a", "b", 0.0), ("b", "c", 0.5), ("a", "c", 0.5)] * 5
    ratings = {r.name: r for r in fit_elo(["a", "b", "c"], games)}
    for r in ratings.values():
        assert r.elo == pytest.approx(1500.0, abs=1e-6)


def test_stronger_entrant_rated_higher_and_mean_is_1500() -> None:
    games = [("a", "b", 1.0)] * 15 + [("a", "b", 0.0)] * 5 + [("b", "c", 1.0)] * 15 + [("b", "c", 0.0)] * 5
    ratings = fit_elo(["a", "b", "c"], games)
    assert [r.name for r in ratings] == ["a", "b", "c"]
    assert sum(r.elo for r in ratings) / 3 == pytest.approx(1500.0)
    # 75% expected score is about 191 Elo points; the weak prior pulls the gap in a little
    assert 120 < ratings[0].elo - ratings[1].elo < 200


def test_a_clean_sweep_stays_finite() -> None:
    ratings = fit_elo(["a", "b"], [("a", "b", 1.0)] * 50)
    assert all(math.isfinite(r.elo) and math.isfinite(r.ci95) for r in ratings)
    assert ratings[0].name == "a"


def test_more_games_narrow_the_interval() -> None:
    few = fit_elo(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)] * 5)
    many = fit_elo(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)] * 200)
    assert many[0].ci95 < few[0].ci95 / 3


def test_order_of_games_does_not_matter() -> None:
    games = [("a", "b", 1.0), ("b", "c", 0.5), ("c", "a", 0.0), ("a", "b", 0.0)] * 3
    assert fit_elo(["a", "b", "c"], games) == fit_elo(["a", "b", "c"], list(reversed(games)))


def test_score_matrix() -> None:
    m = score_matrix(["a", "b", "c"], [("a", "b", 1.0), ("b", "a", 0.5)])
    assert m[0, 1] == 0.75 and m[1, 0] == 0.25 and np.isnan(m[0, 2])


@pytest.mark.parametrize(
    ("names", "games", "message"),
    [
        (["a", "a"], [], "unique"),
        (["a", "b"], [("a", "x", 1.0)], "unknown"),
        (["a", "b"], [("a", "a", 1.0)], "itself"),
        (["a", "b"], [("a", "b", 2.0)], r"\[0, 1\]"),
    ],
)
def test_errors(names: list[str], games: list, message: str) -> None:
    with pytest.raises(RatingError, match=message):
        fit_elo(names, games)
