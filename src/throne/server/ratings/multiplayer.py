"""Hidden Leaders ratings with OpenSkill's Plackett–Luce model: the winner first, every other seat tied
second, and seats whose player left the game (resigned, ran out of time, abandoned it) tied last."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class SkillRating:
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def rate_game(
    ratings: Sequence[SkillRating], winner: int | None, losers: Sequence[int] = ()
) -> list[SkillRating]:
    """New ratings of every seat (in seat order) after a game won by seat `winner` (None: nobody won, the
    seats tie); `losers` left the game and lose it whatever the bot that played their seat on reached."""
    if (winner is not None and not 0 <= winner < len(ratings)) or len(ratings) < 2:
        raise ValueError(f"winner {winner} is not one of {len(ratings)} seats")
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    ranks = [3 if seat in losers else 1 if seat == winner else 2 for seat in range(len(ratings))]
    new = _MODEL.rate(teams, ranks=ranks)
    return [SkillRating(team[0].mu, team[0].sigma) for team in new]
