"""The anchor of the server load benchmark: a minimal FastAPI WebSocket relay of moves, no persistence.

It speaks the subset of `throne serve`'s protocol that `server_load.py` uses (create and join a table over
HTTP, `hello` with the seat token, `move` with the ply, `state` messages with `your_turn` and
`legal_moves`), but a "game" is only a ply counter and a seat to play: no engine, no database, no views. A
move from the seat to play at the current ply is relayed as the new state to every socket of the game. What
`throne serve` achieves relative to this relay, on the same machine in the same run, is the figure that
matters; absolute moves/s depend on the machine and on what else runs on it.

    python benchmarks/relay_anchor.py --port 8765
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import secrets
from dataclasses import dataclass, field

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from pydantic import BaseModel

MOVES = ("a", "b", "c", "d")  # every position offers these; any of them advances the game
# Plies before a relayed game ends: drawn per game, so that games started together do not all end (and get
# replaced) at the same moment.
LENGTHS = (60, 140)


@dataclass
class _Game:
    players: int
    length: int
    tokens: list[str] = field(default_factory=list)
    ply: int = 0
    sockets: dict[WebSocket, int] = field(default_factory=dict)

    @property
    def to_play(self) -> int:
        return self.ply % self.players

    def state(self, seat: int) -> str:
        live = self.ply < self.length
        mine = live and seat == self.to_play
        return json.dumps(
            {
                "type": "state",
                "ply": self.ply,
                "seat": seat,
                "status": "live" if live else "finished",
                "to_play": self.to_play if live else None,
                "your_turn": mine,
                "legal_moves": list(MOVES) if mine else [],
            }
        )


class CreateIn(BaseModel):
    game: str = "leaders"
    players: int = 2


def base_app() -> FastAPI:
    """An anchor's app with the health route the benchmark waits for (shared with `game_anchor.py`)."""
    app = FastAPI()

    @app.get("/api/health")
    async def health() -> dict:
        return {"ok": True}

    return app


def create_app() -> FastAPI:
    app = base_app()
    games: dict[int, _Game] = {}
    ids = itertools.count(1)

    @app.post("/api/games")
    async def create(body: CreateIn) -> dict:
        game_id, token = next(ids), secrets.token_urlsafe(16)
        games[game_id] = _Game(body.players, random.randint(*LENGTHS), [token])
        return {"game": {"id": game_id}, "token": token}

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: int) -> dict:
        token = secrets.token_urlsafe(16)
        games[game_id].tokens.append(token)
        return {"game": {"id": game_id}, "token": token}

    @app.websocket("/ws/games/{game_id}")
    async def socket(ws: WebSocket, game_id: int) -> None:
        await ws.accept()
        game = games[game_id]
        try:
            hello = json.loads(await ws.receive_text())
            seat = game.tokens.index(hello["token"])
            game.sockets[ws] = seat
            if len(game.sockets) == game.players:
                for other, other_seat in list(game.sockets.items()):
                    await other.send_text(game.state(other_seat))
            while True:
                msg = json.loads(await ws.receive_text())
                if msg.get("type") != "move" or seat != game.to_play or msg.get("ply") != game.ply:
                    await ws.send_text(json.dumps({"type": "error", "code": "refused"}))
                    continue
                game.ply += 1
                for other, other_seat in list(game.sockets.items()):
                    await other.send_text(game.state(other_seat))
        except WebSocketDisconnect:
            pass
        finally:
            game.sockets.pop(ws, None)
            if not game.sockets and game.ply >= game.length:
                games.pop(game_id, None)

    return app


def serve(app: FastAPI, doc: str, port: int) -> None:
    """Runs an anchor with the same server options as `throne serve`: the same WebSocket binding, no
    per-message compression, the same message size cap; `--host` and `--port` from the command line."""
    import uvicorn

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=port)
    args = parser.parse_args()
    options = {"log_level": "warning", "ws_max_size": 64 * 1024, "ws_per_message_deflate": False}
    options["ws"] = "websockets-sansio"
    uvicorn.run(app, host=args.host, port=args.port, **options)


def main() -> None:
    serve(create_app(), __doc__, 8765)


if __name__ == "__main__":
    main()
