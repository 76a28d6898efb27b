"""Applies rating updates inside the transaction that stores a rated game's last move."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from throne import games
from throne.server.ratings import glicko2, multiplayer
from throne.store.repo import GameInfo, SeatInfo, load_ratings, save_rating

log = logging.getLogger(__name__)


def rating_hook(info: GameInfo) -> Callable[[Session, GameInfo], None] | None:
    """The update to run when this game finishes, or None when it does not count."""
    if not info.rated:
        return None
    system = games.get(info.game).rating
    for s in info.seats:
        if s.user_id is None or not s.registered:
            return None  # a guest sat: not rated
        if s.kind == "human" and not s.takeover:
            continue
        if system == "openskill" and _left(s):
            continue  # one winner among n: the game goes on with a bot and the player who left loses
        return None  # a bot took a seat over otherwise (even if its player came back): not rated
    return _RATE[system]


LEFT = ("resign", "timeout", "abandoned")


def _left(seat: SeatInfo) -> bool:
    """The seat's player left the game for good (resigned, ran out of time, abandoned it); a bot plays on."""
    return seat.kind == "bot" and seat.takeover and seat.left in LEFT


def _seat_users(info: GameInfo) -> list[int]:
    return [s.user_id for s in sorted(info.seats, key=lambda s: s.seat) if s.user_id is not None]


def glicko_of(data: dict[str, Any] | None) -> glicko2.Glicko2Rating:
    if not data:
        return glicko2.Glicko2Rating()
    return glicko2.Glicko2Rating(data["rating"], data["rd"], data["volatility"])


def skill_of(data: dict[str, Any] | None) -> multiplayer.SkillRating:
    if not data:
        return multiplayer.SkillRating()
    return multiplayer.SkillRating(data["mu"], data["sigma"])


def _rate_glicko2(session: Session, info: GameInfo) -> None:
    """Two seats, a win, a loss or a draw."""
    users = _seat_users(info)
    if len(users) != 2 or users[0] == users[1]:
        return
    winner = (info.result or {}).get("winner")
    score0 = 0.5 if winner is None else (1.0 if winner == 0 else 0.0)
    rows = load_ratings(session, info.game, users, "glicko2")
    old = [glicko_of(rows[u].data) for u in users]
    new = glicko2.rate_game(old[0], old[1], score0)
    for user, rating in zip(users, new, strict=True):
        data = {"rating": rating.rating, "rd": rating.rd, "volatility": rating.volatility}
        save_rating(session, rows[user], data, glicko2.leaderboard_score(rating))


def _rate_openskill(session: Session, info: GameInfo) -> None:
    """Any number of seats, one winner; seats whose player left lose. A game nobody won counts only when
    someone left it: they are ranked below the others, who tie (a tie of all says nothing)."""
    users = _seat_users(info)
    winner = (info.result or {}).get("winner")
    losers = [s.seat for s in info.seats if _left(s)]
    if (winner is None and not losers) or len(set(users)) != len(users) or len(users) != info.players:
        return
    rows = load_ratings(session, info.game, users, "openskill")
    old = [skill_of(rows[u].data) for u in users]
    new = multiplayer.rate_game(old, winner, losers)
    for user, rating in zip(users, new, strict=True):
        data = {"mu": rating.mu, "sigma": rating.sigma}
        save_rating(session, rows[user], data, rating.ordinal)


_RATE = {"glicko2": _rate_glicko2, "openskill": _rate_openskill}


def rating_json(game: str, row: Any) -> dict[str, Any] | None:
    """A stored rating as the API shows it; None without one, or for a row that cannot be read (logged)."""
    if row is None:
        return None
    try:
        if games.get(game).rating == "glicko2":
            fields = {k: float(row.data[k]) for k in ("rating", "rd", "volatility")}
            return {"system": "glicko2", **fields, "games": row.games, "score": row.score}
        fields = {k: float(row.data[k]) for k in ("mu", "sigma")}
        return {"system": "openskill", **fields, "ordinal": row.score, "games": row.games, "score": row.score}
    except (KeyError, TypeError, ValueError):
        log.warning("the %s rating of user %s cannot be read; left out", game, getattr(row, "user_id", "?"))
        return None
