"""Meta, player profiles, game history and leaderboards."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from throne import games as registry
from throne.server.auth import hub_of
from throne.server.errors import ApiError, error_body
from throne.server.games import bot_names, game_ids
from throne.server.ratings_store import rating_json
from throne.server.routes.accounts import user_json
from throne.server.validate import INT63_MAX, UserId

router = APIRouter(prefix="/api")


@router.get("/health")
async def health() -> dict:
    """Liveness: the process answers. Whether it can serve games is /api/ready."""
    return {"ok": True}


@router.get("/ready", response_model=None)
async def ready(request: Request) -> dict | JSONResponse:
    """Readiness: 200 while the database takes writes, else 503 with the reason (a load balancer stops
    sending players here until it recovers)."""
    problem = await hub_of(request).store_ready()
    if problem is not None:
        return JSONResponse(error_body("not_ready", problem), status_code=503, headers={"Retry-After": "2"})
    return {"ok": True}


@router.get("/meta")
async def meta(request: Request) -> dict:
    """Every registered game's facts (players, options with defaults, bots, levels), for the lobby page."""
    games: dict = {}
    for spec in registry.all():
        entry = spec.to_json()
        entry["bots"] = bot_names(spec.id)
        games[spec.id] = entry
    return {"games": games, "abandon_timeout": request.app.state.settings.abandon_timeout}


@router.get("/players/{user_id}")
async def player(user_id: UserId, request: Request) -> dict:
    hub = hub_of(request)
    user = await hub.db(hub.repo.get_user, user_id)
    if user is None:
        raise ApiError(404, "unknown_player", f"no player {user_id}")
    ratings = {g: rating_json(g, await hub.db(hub.repo.rating, user_id, g)) for g in game_ids()}
    return {"user": user_json(user), "ratings": ratings}


@router.get("/players/{user_id}/games")
async def history(
    user_id: UserId,
    request: Request,
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=INT63_MAX),
) -> dict:
    hub = hub_of(request)
    user = await hub.db(hub.repo.get_user, user_id)
    if user is None:
        raise ApiError(404, "unknown_player", f"no player {user_id}")
    # private tables are neither listed nor counted (nor skipped within a page, which would place them)
    rows, total = await hub.db(hub.repo.user_games, user_id, limit, offset, include_private=False)
    if hub.cluster is not None:  # who is connected to the other nodes
        await hub.cluster.peek_presence([info.id for info, _ in rows])
    games = []
    for info, seat in rows:
        entry = hub.summary(info)
        entry["seat"] = seat
        mine = info.seat(seat) if seat is not None else None
        # A bot played this player's seat for part of the game: its result is not theirs.
        entry["taken_over"] = bool(mine is not None and mine.takeover)
        games.append(entry)
    return {"games": games, "total": total}


@router.get("/leaderboard/{game}")
async def leaderboard(game: str, request: Request, limit: int = Query(50, ge=1, le=200)) -> dict:
    if game not in game_ids():
        raise ApiError(404, "unknown_game_kind", f"unknown game {game!r}")
    hub = hub_of(request)
    rows = await hub.db(hub.repo.leaderboard, game, limit)
    shown = [(user, rating_json(game, rating)) for rating, user in rows]
    readable = [(user, rating) for user, rating in shown if rating is not None]  # (an unreadable row: logged)
    entries = [{"rank": n, "user": user_json(user), **rating} for n, (user, rating) in enumerate(readable, 1)]
    return {"game": game, "system": registry.get(game).rating, "entries": entries}
