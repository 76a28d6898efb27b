"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2012): one rating period at a time.

Ratings are on the Glicko scale (1500 / 350); the update happens on the internal Glicko-2 scale (÷ 173.7178).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SCALE = 173.7178
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5
EPSILON = 1e-6


@dataclass(frozen=True)
class Glicko2Rating:
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois variant of regula falsi on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(
    player: Glicko2Rating, results: Iterable[tuple[Glicko2Rating, float]], tau: float = TAU
) -> Glicko2Rating:
    """New rating of `player` after one rating period of (opponent, score) results (score 1, 0.5 or 0)."""
    games = list(results)
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    if not games:  # step 6 only: the deviation grows
        phi_star = math.sqrt(phi * phi + player.volatility**2)
        return Glicko2Rating(player.rating, phi_star * SCALE, player.volatility)
    v_inv = 0.0
    delta_sum = 0.0
    for opp, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a game score must be between 0 and 1, not {score}")
        mu_j = (opp.rating - DEFAULT_RATING) / SCALE
        phi_j = opp.rd / SCALE
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    sigma = _new_volatility(player.volatility, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Glicko2Rating(mu_new * SCALE + DEFAULT_RATING, phi_new * SCALE, sigma)


def rate_game(a: Glicko2Rating, b: Glicko2Rating, score_a: float) -> tuple[Glicko2Rating, Glicko2Rating]:
    """Both players' new ratings after one game (its own rating period); score_a is 1, 0.5 or 0."""
    return rate(a, [(b, score_a)]), rate(b, [(a, 1.0 - score_a)])


def leaderboard_score(r: Glicko2Rating) -> float:
    """A conservative estimate used to order the leaderboard."""
    return r.rating - 2.0 * r.rd
