"""Lobby and game routes: create, list, join, leave, play a bot now, moves, views, records, replays."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from throne.server.auth import (
    caps_of,
    client_ip,
    current_user,
    hub_of,
    rate_limit,
    seat_token,
    user_or_guest,
)
from throne.server.errors import ApiError
from throne.server.games import game_ids, initial_state, rebuild, stored_kind
from throne.server.lobby import NewTable
from throne.server.match import MoveRefused
from throne.server.sessions import token_hash
from throne.server.validate import INT63_MAX, GameId, Ply, SeatNo
from throne.store.models import User
from throne.store.repo import DamagedRecord, GameInfo

router = APIRouter(prefix="/api")
STATUSES = ("open", "live", "finished", "aborted")
MOVE_MAX = 256


class CreateIn(BaseModel):
    game: str = Field(max_length=32)
    players: int = Field(default=2, ge=1, le=16)
    options: dict[str, Any] = Field(default_factory=dict)
    bots: dict[int, str] = Field(default_factory=dict)
    seat: SeatNo | None = None
    sit: bool = True
    rated: bool = False
    private: bool = False
    name: str | None = None
    time_control: dict[str, Any] | None = None
    side: SeatNo | None = None


class PlayBotIn(BaseModel):
    game: str = Field(max_length=32)
    bot: str = Field(default="easy", max_length=64)
    players: int = Field(default=2, ge=1, le=16)
    options: dict[str, Any] = Field(default_factory=dict)
    name: str | None = None
    time_control: dict[str, Any] | None = None
    side: SeatNo | None = None


class JoinIn(BaseModel):
    seat: SeatNo | None = None
    name: str | None = None
    invite: str | None = Field(default=None, max_length=64)


class MoveIn(BaseModel):
    move: str = Field(min_length=1, max_length=MOVE_MAX)
    ply: Ply | None = None


async def _game(request: Request, game_id: int, invite: str | None = None) -> GameInfo:
    hub = hub_of(request)
    info = await hub.db(hub.repo.get_game, game_id)
    hub.check_invite(info, invite)
    return info


@router.get("/games")
async def list_games(
    request: Request, status: str = "open,live", game: str | None = None, limit: int = Query(50, ge=1, le=200)
) -> dict:
    wanted = [s for s in status.split(",") if s]
    bad = [s for s in wanted if s not in STATUSES]
    if bad or not wanted:
        raise ApiError(400, "bad_status", f"status must be a comma-separated subset of {', '.join(STATUSES)}")
    if game is not None and game not in game_ids():
        raise ApiError(400, "unknown_game_kind", f"unknown game {game!r}")
    hub = hub_of(request)
    user = await current_user(request)
    games = await hub.db(hub.repo.list_games, wanted, game, limit)
    if hub.cluster is not None:  # who is connected to the other nodes
        await hub.cluster.peek_presence([g.id for g in games])
    return {"games": [hub.summary(g, user.id if user else None) for g in games]}


async def _table_limits(request: Request, table: NewTable, user: User | None) -> None:
    """The rate limit on table creation, the table itself, then the caps on open tables and games with bots:
    all before a visitor is made a guest, so a refused request leaves no guest behind. (Within
    `Caps.making`: the caps count no table another request of the same person is making.)"""
    await rate_limit(request, "table", None if user is None else f"uid:{user.id}")
    hub_of(request).check_table(table, user)
    await caps_of(request).check_table(hub_of(request), user, table, client_ip(request))


async def _replay_limit(request: Request) -> None:
    user = await current_user(request)
    await rate_limit(request, "replay", None if user is None else f"uid:{user.id}")


@router.post("/games", status_code=201)
async def create_game(body: CreateIn, request: Request, response: Response) -> dict:
    hub = hub_of(request)
    table = NewTable(
        body.game,
        body.players,
        body.options,
        dict(body.bots),
        body.seat,
        body.sit,
        body.rated,
        body.private,
        body.time_control,
        body.side,
    )
    caps, ip, user = caps_of(request), client_ip(request), await current_user(request)
    async with caps.making(hub, user, ip):
        await _table_limits(request, table, user)
        user = await user_or_guest(request, response, body.name)
        info, token, invite = await hub.create_table(user, table)
        caps.created(info.id, ip)
    return {"game": hub.summary(info, user.id), "token": token, "invite": invite}


@router.post("/play-bot", status_code=201)
async def play_bot(body: PlayBotIn, request: Request, response: Response) -> dict:
    hub = hub_of(request)
    bots = {place: body.bot for place in range(1, body.players)}  # as Hub.play_bot seats them
    table = NewTable(
        body.game, body.players, body.options, bots, 0, True, False, False, body.time_control, body.side
    )
    caps, ip, user = caps_of(request), client_ip(request), await current_user(request)
    async with caps.making(hub, user, ip):
        await _table_limits(request, table, user)
        user = await user_or_guest(request, response, body.name)
        info, token = await hub.play_bot(
            user, body.game, body.bot, body.players, body.options, body.time_control, body.side
        )
        caps.created(info.id, ip)
    summary = hub.summary(info, user.id)
    return {"game": summary, "token": token, "seat": (summary["you"] or {}).get("seat")}


@router.get("/games/{game_id}/chat")
async def game_chat(game_id: GameId, request: Request, invite: str | None = None) -> dict:
    """The table chat as a replay shows it: the players' channel, and the spectators' once it is over."""
    info = await _game(request, game_id, invite)
    await _replay_limit(request)  # up to 1,000 stored rows: limited like replays and records
    hub = hub_of(request)
    channels = ["players", "spectators"] if info.status == "finished" else ["players"]
    return {"id": info.id, "messages": await hub.db(hub.repo.chat, game_id, channels, 1000)}


@router.get("/games/{game_id}")
async def get_game(game_id: GameId, request: Request, invite: str | None = None) -> dict:
    info = await _game(request, game_id, invite)
    user = await current_user(request)
    hub = hub_of(request)
    owner = await hub.owner_summary(info)
    if hub.cluster is not None:  # who is connected to the other nodes
        await hub.cluster.peek_presence([info.id])
    return {"game": hub.summary(info, user.id if user else None, owner)}


@router.post("/games/{game_id}/join")
async def join(game_id: GameId, body: JoinIn, request: Request, response: Response) -> dict:
    hub = hub_of(request)
    info = await _game(request, game_id, body.invite)
    hub.check_join(info, await current_user(request), body.seat)  # a refused visitor is made no guest
    user = await user_or_guest(request, response, body.name)
    info, token, place = await hub.join(info, user, body.seat)
    summary = hub.summary(info, user.id)
    seat = (summary["you"] or {}).get("seat", place)
    return {"game": summary, "token": token, "seat": seat}


@router.post("/games/{game_id}/leave")
async def leave(game_id: GameId, request: Request) -> dict:
    hub = hub_of(request)
    info = await hub.db(hub.repo.get_game, game_id)
    token = seat_token(request) if not info.private else request.headers.get("x-seat-token", "")
    if info.private and (
        len(token) > 128 or await hub.db(hub.repo.seat_by_token, game_id, token_hash(token)) is None
    ):
        raise _no_seat(game_id, True, "")
    info = await hub.leave(game_id, token)
    return {"game": hub.summary(info)}


def _no_seat(game_id: int, hidden: bool, message: str) -> ApiError:
    """A request without a seat: 403, or, at a private table it may not see, the 404 of a missing game."""
    if hidden:
        return ApiError(404, "not_found", f"no game {game_id}")
    return ApiError(403, "bad_token", message)


async def _seat_for(request: Request, game_id: int, required: bool, hidden: bool = False) -> int | None:
    """The engine seat the request acts for: its X-Seat-Token, else the session user's seat. `hidden`:
    the game is a private table the request has no invite for, so refusals look like a missing game."""
    hub = hub_of(request)
    token = request.headers.get("x-seat-token")
    if token:
        if len(token) > 128:
            raise _no_seat(game_id, hidden, "the seat token is not valid for this game")
        seat = await hub.db(hub.repo.seat_by_token, game_id, token_hash(token))
        if seat is None:
            raise _no_seat(game_id, hidden, "the seat token is not valid for this game")
        return seat.seat
    user = await current_user(request)
    if user is not None:
        info = await hub.db(hub.repo.get_game, game_id)
        for s in info.seats:
            if s.user_id == user.id and s.kind == "human":
                return s.seat
    if required or hidden:
        raise _no_seat(game_id, hidden, "this action needs the seat token (header X-Seat-Token)")
    return None


# A refused move is 409 (the game's state refused it), except what is not the move's fault: a failure here
# (500) and a store or owner that could not take it now (503: send it again).
_REFUSAL_STATUS = {
    "server_error": 500,
    "store_unavailable": 503,
    "owner_moved": 503,
    "owner_unavailable": 503,
}


@router.post("/games/{game_id}/move")
async def move(game_id: GameId, body: MoveIn, request: Request) -> dict:
    hub = hub_of(request)
    info = await hub.db(hub.repo.get_game, game_id)
    if info.private:  # whoever holds no seat there learns nothing, not even that it has not started
        await _seat_for(request, game_id, required=True, hidden=True)
    if info.status == "open":
        raise ApiError(409, "not_live", f"game {game_id} has not started")
    seat = await _seat_for(request, game_id, required=True)
    assert seat is not None
    try:
        ply = await hub.submit_move(game_id, seat, body.move, body.ply)
    except MoveRefused as exc:
        raise ApiError(_REFUSAL_STATUS.get(exc.code, 409), exc.code, exc.message) from None
    return {"ok": True, "ply": ply}


@router.get("/games/{game_id}/view")
async def view(game_id: GameId, request: Request, invite: str | None = None) -> dict:
    hub = hub_of(request)
    info = await hub.db(hub.repo.get_game, game_id)
    hidden = info.private and not hub.invite_ok(info, invite)
    seat = await _seat_for(request, game_id, required=False, hidden=hidden)
    try:
        message = await hub.current_state(game_id, seat)
    except MoveRefused as exc:  # the node that runs the game cannot be reached right now
        raise ApiError(503, exc.code, exc.message, headers={"Retry-After": "2"}) from None
    if message is None:
        raise ApiError(409, "not_live", f"game {game_id} is {info.status}")
    return {
        "seat": message["seat"],  # none for a seat whose person resigned while the game goes on
        "ply": message["ply"],
        "status": message["status"],
        "view": message["view"],
        "legal_moves": message["legal_moves"],
        "to_play": message["to_play"],
    }


@router.get("/games/{game_id}/record")
async def record(game_id: GameId, request: Request, invite: str | None = None) -> dict:
    hub = hub_of(request)
    info = await _game(request, game_id, invite)
    await _replay_limit(request)
    hub.check_playable(game_id)
    kind = stored_kind(info)
    names = [s.name for s in info.seats]
    if info.status == "finished":
        loaded = await hub.finished_state(game_id)
        assert loaded is not None
        rec = dict(loaded[1].record())
    elif info.status == "live":
        moves = await hub.db(hub.repo.moves, game_id)
        state = await hub.cpu(rebuild, kind, info, moves)
        public = kind.public_record(state)
        if public is None:
            raise ApiError(
                409, "game_live", "the record of a live Hidden Leaders game is secret until it ends"
            )
        rec = public
    else:
        raise ApiError(409, "not_live", f"game {game_id} is {info.status}; it has no moves")
    rec.update(id=game_id, seats=names)
    return rec


@router.get("/games/{game_id}/replay")
async def replay(
    game_id: GameId,
    request: Request,
    invite: str | None = None,
    start: int = Query(0, ge=0, le=INT63_MAX),
    limit: int = Query(1000, ge=1, le=5000),
    views: bool = True,
) -> dict:
    hub = hub_of(request)
    info = await _game(request, game_id, invite)
    await _replay_limit(request)
    if info.status not in ("live", "finished"):
        raise ApiError(409, "not_live", f"game {game_id} is {info.status}; it has no moves")
    hub.check_playable(game_id)
    kind = stored_kind(info)
    moves = await hub.db(hub.repo.moves, game_id)
    finished = info.status == "finished"
    # the events of a live game as the request's seat may see them (its own cards named), else public; a
    # seat whose person resigned or ran out of time, played on by a bot, sees what spectators do
    viewer = None if finished else await _seat_for(request, game_id, required=False)
    if viewer in info.seats_out():
        viewer = None

    def step(state: Any, ply: int, seat: int | None, mv: str | None, before: Any = None) -> dict[str, Any]:
        events = []
        if before is not None and mv is not None:
            # a finished game reveals everything; a live one shows what spectators may see
            evs = kind.spec.move_events(before, mv, state, viewer, finished)
            events = [{"ply": ply, "seat": seat, **ev} for ev in evs]
        if finished:
            entry = {"ply": ply, "seat": seat, "move": mv, "events": events}
            if views:
                entry["view"] = kind.reveal(state)
            return entry
        view = kind.view(state, None)
        entry = {"ply": ply, "seat": seat, "move": kind.public_move(state) if ply else None, "events": events}
        if views:
            entry["view"] = view
        return entry

    def build() -> list[dict[str, Any]]:
        """Every step of the game (on a worker thread: a long game costs seconds of CPU)."""
        try:
            state = initial_state(kind, info)
        except Exception as exc:
            raise DamagedRecord(game_id, f"its start does not replay: {exc}") from exc
        every = [step(state, 0, None, None)]
        for ply, (seat, mv) in enumerate(moves, start=1):
            before = state.clone()
            try:
                if state.to_play != seat:
                    raise ValueError(f"it is by seat {seat} but seat {state.to_play} is to play")
                state.play(mv)
            except Exception as exc:
                raise DamagedRecord(game_id, f"its stored move {ply - 1} does not replay: {exc}") from exc
            every.append(step(state, ply, seat, mv, before))
        return every

    # what a replay depends on: the moves, not only their count (after a takeback, another move at a ply)
    key = (game_id, info.status, hash(tuple(moves)), views, viewer)
    steps = (await hub.cached(key, build))[start : start + limit]
    return {"id": game_id, "game": info.game, "status": info.status, "total": len(moves) + 1, "steps": steps}
