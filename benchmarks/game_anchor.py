"""The second anchor of the server load benchmark: a minimal FastAPI WebSocket game server, no persistence.

It speaks the same protocol subset as `relay_anchor.py`, but every game is a real engine state from the game
registry, dealt from a fresh random secret: a move is checked and played by the engine (an illegal or stale
move is answered with an error and changes nothing), then every socket of the game is sent its seat's
`state`, with the seat's `view` and, for the seat to play, the engine's legal moves. It has no database, no
clocks, no events, no spectators, no metrics and no authentication beyond the seat token; messages are
encoded with orjson, as `throne serve` encodes them. What it costs per move over the relay is the engine's
work and the views; what `throne serve` costs over it is everything else (persistence first).

    python benchmarks/game_anchor.py --port 8766
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from relay_anchor import CreateIn, base_app, serve  # this script's folder (benchmarks/) is on the path

from throne import games
from throne.games import GameError, GameSpec


def _text(message: dict[str, Any]) -> str:
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()  # views may have integer keys


@dataclass
class _Game:
    spec: GameSpec
    state: Any
    players: int
    tokens: list[str] = field(default_factory=list)
    ply: int = 0
    started: bool = False  # once every seat has said hello
    sockets: dict[WebSocket, int] = field(default_factory=dict)

    def message(self, seat: int) -> str:
        over = self.state.is_over
        to_play = None if over else self.state.to_play
        mine = seat == to_play
        return _text(
            {
                "type": "state",
                "ply": self.ply,
                "seat": seat,
                "status": "finished" if over else "live",
                "to_play": to_play,
                "your_turn": mine,
                "legal_moves": self.state.legal_moves() if mine else [],
                "view": self.state.view(seat),
            }
        )

    def refusal(self, seat: int, msg: Any) -> str | None:
        """Why `msg` from `seat` is not played (an error code), or None once the engine has played it."""
        if not isinstance(msg, dict) or msg.get("type") != "move" or not isinstance(msg.get("move"), str):
            return "bad_message"
        if not self.started or self.state.is_over or seat != self.state.to_play:
            return "not_your_turn"
        if msg.get("ply") != self.ply:
            return "stale"
        try:
            self.state.play(msg["move"])
        except self.spec.illegal_errors:
            return "illegal_move"
        self.ply += 1
        return None

    async def broadcast(self) -> None:
        for ws, seat in list(self.sockets.items()):
            await ws.send_text(self.message(seat))


def create_app() -> FastAPI:
    app = base_app()
    tables: dict[int, _Game] = {}
    ids = itertools.count(1)

    @app.post("/api/games")
    async def create(body: CreateIn) -> dict:
        try:
            spec = games.get(body.game)
            state = spec.new_state(secrets.token_hex(16), body.players)
        except GameError as exc:
            raise HTTPException(400, str(exc)) from exc
        game_id, token = next(ids), secrets.token_urlsafe(16)
        tables[game_id] = _Game(spec, state, body.players, [token])
        return {"game": {"id": game_id}, "token": token}

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: int) -> dict:
        game = tables.get(game_id)
        if game is None or len(game.tokens) >= game.players:
            raise HTTPException(409, "no such table, or no free seat")
        token = secrets.token_urlsafe(16)
        game.tokens.append(token)
        return {"game": {"id": game_id}, "token": token}

    @app.websocket("/ws/games/{game_id}")
    async def socket(ws: WebSocket, game_id: int) -> None:
        await ws.accept()
        game = tables.get(game_id)
        try:
            hello = orjson.loads(await ws.receive_text())
            token = hello.get("token") if isinstance(hello, dict) else None
            if game is None or token not in game.tokens:
                await ws.close(4403)
                return
            seat = game.tokens.index(token)
            game.sockets[ws] = seat
            if not game.started and len(set(game.sockets.values())) == game.players:
                game.started = True
                await game.broadcast()
            elif game.started:
                await ws.send_text(game.message(seat))
            while True:
                try:
                    msg = orjson.loads(await ws.receive_text())
                except orjson.JSONDecodeError:
                    msg = None
                code = game.refusal(seat, msg)
                if code is not None:
                    await ws.send_text(_text({"type": "error", "code": code}))
                    continue
                await game.broadcast()
        except WebSocketDisconnect:
            pass
        finally:
            if game is not None:
                game.sockets.pop(ws, None)
                if not game.sockets and game.state.is_over:
                    tables.pop(game_id, None)

    return app


def main() -> None:
    serve(create_app(), __doc__, 8766)


if __name__ == "__main__":
    main()
