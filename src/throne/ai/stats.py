"""Confidence intervals for arena win rates."""

from __future__ import annotations

import math


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default); (0, 1) when there are no trials."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
