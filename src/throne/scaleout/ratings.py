"""Elo ratings with uncertainty from a set of game results (Bradley–Terry, maximum a posteriori).

Each game between two entrants gives the first a score of 1 (win), 0.5 (draw) or 0 (loss). The model is
P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400)); a weak normal prior (mean 1500, sd `PRIOR_SD`) keeps
ratings finite when an entrant wins or loses every game. The fit is a few Newton steps; the 95% interval
comes from the inverse Hessian at the optimum, for ratings centred on 1500. The result depends only on the
games, never on their order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from throne.extras import require

require("rl", "`throne.scaleout.ratings` (Elo fits)", ("numpy",))

import numpy as np  # noqa: E402 - after the check of the extra

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds
PRIOR_SD = 350.0
BASE = 1500.0


class RatingError(ValueError):
    """Results that cannot be rated (an unknown entrant, a score outside [0, 1], a game against oneself)."""


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    ci95: float  # half width of the 95% interval, in Elo points
    games: int
    score: float  # points scored (wins + half draws)


def fit_elo(
    names: Sequence[str], games: Iterable[tuple[str, str, float]], iterations: int = 50
) -> list[Rating]:
    """Ratings of `names` from `(a, b, score_of_a)` games, best first."""
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise RatingError("entrant names must be unique")
    n = len(names)
    wins = np.zeros((n, n))
    played = np.zeros((n, n))
    for a, b, score in games:
        if a not in index or b not in index:
            raise RatingError(f"game between unknown entrants {a!r} and {b!r}")
        if a == b:
            raise RatingError(f"{a!r} cannot be rated against itself")
        if not 0.0 <= score <= 1.0:
            raise RatingError(f"a score must lie in [0, 1], got {score}")
        i, j = index[a], index[b]
        wins[i, j] += score
        wins[j, i] += 1.0 - score
        played[i, j] += 1
        played[j, i] += 1
    prior = (ELO / PRIOR_SD) ** 2  # prior precision in natural units
    theta = np.zeros(n)
    hessian = -prior * np.eye(n)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        grad = (wins - played * p).sum(axis=1) - prior * theta
        w = played * p * (1.0 - p)
        hessian = w - np.diag(w.sum(axis=1) + prior)
        step = np.linalg.solve(hessian, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    # Only differences are identified by the games: centre the ratings (mean BASE) and take the covariance of
    # the centred vector, so the prior's common shift does not widen every interval.
    centre = np.eye(n) - 1.0 / n
    theta -= theta.mean()
    covariance = centre @ np.linalg.inv(-hessian) @ centre
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    ratings = [
        Rating(
            name=name,
            elo=BASE + ELO * float(theta[i]),
            ci95=1.96 * ELO * float(se[i]),
            games=int(played[i].sum()),
            score=float(wins[i].sum()),
        )
        for name, i in index.items()
    ]
    return sorted(ratings, key=lambda r: (-r.elo, r.name))


def score_matrix(names: Sequence[str], games: Iterable[tuple[str, str, float]]) -> np.ndarray:
    """`m[i, j]` = mean score of names[i] against names[j] (NaN where they never met)."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    points = np.zeros((n, n))
    played = np.zeros((n, n))
    for a, b, score in games:
        i, j = index[a], index[b]
        points[i, j] += score
        points[j, i] += 1.0 - score
        played[i, j] += 1
        played[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(played > 0, points / np.maximum(played, 1), np.nan)
