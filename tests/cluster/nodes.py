"""Test helpers for a cluster on loopback: `throne serve --redis` node processes and players that talk to
them over HTTP and WebSockets. Every wait polls with a deadline (no fixed sleeps)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from websockets.sync.client import ClientConnection, connect

from tests.processes import free_port, terminate

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass
class Shared:
    """What a test's nodes share: a new, migrated PostgreSQL database and an emptied Redis (the `shared`
    fixture)."""

    database: str
    redis_url: str
    redis: redis.Redis


def until(check: Callable[[], Any], deadline_s: float, what: str, every: float = 0.05) -> Any:
    end = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class Node:
    """One `throne serve --redis` process."""

    def __init__(
        self,
        name: str,
        database: str,
        redis: str,
        log_dir: Path,
        lease_ttl: float,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name, self.database, self.redis = name, database, redis
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "THRONE_SECRET_KEY": "cluster-test-key",
            "THRONE_NODE_NAME": name,
            "THRONE_LEASE_TTL": str(lease_ttl),
            "THRONE_RATE_LIMITS": "off",
            "THRONE_DATA_DIR": str(log_dir / name),
            **(env or {}),
        }
        self.log = log_dir / f"{name}.log"
        self.was_ready = False
        self._spawn()

    def _spawn(self) -> None:
        self.port = free_port()
        boot = (  # all threads' stacks on SIGUSR1, should a node ever hang
            "import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
            "from throne.cli import main; sys.argv[0] = 'throne'; main()"
        )
        cmd = [sys.executable, "-c", boot, "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--database", self.database, "--redis", self.redis]  # fmt: skip
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            text = self.log.read_text(errors="replace")
            if not self.was_ready and "address already in use" in text:
                # the free port was taken before the node bound it (another test's connection got it as
                # its local port): the node starts again on another one
                self._spawn()
                return False
            raise AssertionError(f"node {self.name} exited:\n{text[-3000:]}")
        try:
            self.was_ready = httpx.get(self.base + "/api/ready", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False
        return self.was_ready

    def wait_exit(self, deadline_s: float) -> None:
        """Waits for the process to end; one that hangs prints every thread's stack into its log."""
        try:
            self.proc.wait(deadline_s)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR1)
            until(lambda: "Current thread" in self.log.read_text(errors="replace"), 5, "the stack dump")
            raise AssertionError(f"node {self.name} did not exit:\n{self.log.read_text()[-4000:]}") from None

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        terminate(self.proc)


class Player:
    """A guest account; its seat's socket may be on any node. Every `state` it receives is checked to be
    its own seat's (a socket never receives another seat's view)."""

    def __init__(self, node: Node, name: str) -> None:
        self.name = name
        self.http = httpx.Client(base_url=node.base, timeout=20)
        self.http.post("/api/accounts/guest", json={"name": name}).raise_for_status()
        self.token: str | None = None
        self.game_id = 0
        self.seat: int | None = None
        self.ws: ClientConnection | None = None
        # the open socket's context (websockets deprecates a connection not entered as a context manager)
        self._socket = contextlib.ExitStack()
        self.node: Node | None = None
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []

    def twin(self) -> Player:
        """A second client of the same seat (same token), e.g. a second tab on another node."""
        twin = Player.__new__(Player)
        twin.__dict__.update(
            name=self.name + "-twin", http=self.http, token=self.token, game_id=self.game_id, seat=None,
            ws=None, _socket=contextlib.ExitStack(), node=None, state=None, errors=[],
        )  # fmt: skip
        return twin

    def connect(self, node: Node) -> dict[str, Any]:
        """Opens the seat's socket on `node` (closing the one open) and says hello; returns the `welcome`."""
        self.close()
        self.node = node
        url = f"ws://127.0.0.1:{node.port}/ws/games/{self.game_id}"
        self.ws = self._socket.enter_context(connect(url, open_timeout=20))
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        welcome = self.recv_until(lambda m: m["type"] == "welcome", 20)
        self.seat = welcome["seat"]
        return welcome

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self._socket.close()
            self.ws = None

    def _take(self, message: dict[str, Any]) -> None:
        if message["type"] == "state":
            assert message["seat"] == self.seat, f"{self.name} got seat {message['seat']}'s view"
            if self.state is None or message["ply"] >= self.state["ply"]:
                self.state = message
        elif message["type"] == "error":
            self.errors.append(message)

    def recv_until(self, pred: Callable[[dict[str, Any]], bool], deadline_s: float) -> dict[str, Any]:
        assert self.ws is not None
        end = time.monotonic() + deadline_s
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.name}: no expected message in time (last state {self._ply()})")
            message = json.loads(self.ws.recv(timeout=left))
            self._take(message)
            if pred(message):
                return message

    def _ply(self) -> int | None:
        return None if self.state is None else self.state["ply"]

    def wait_ply(self, ply: int, deadline_s: float) -> dict[str, Any]:
        """The latest state once it is at `ply` or later."""
        if self.state is None or self.state["ply"] < ply:
            self.recv_until(lambda m: m["type"] == "state" and m["ply"] >= ply, deadline_s)
        assert self.state is not None
        return self.state

    def move(self, move: str, ply: int) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps({"type": "move", "move": move, "ply": ply}))


def ready_nodes(
    prefix: str,
    count: int,
    database: str,
    redis: str,
    log_dir: Path,
    lease_ttl: float,
    env: dict[str, str] | None = None,
) -> list[Node]:
    """`count` nodes named prefix0, prefix1, …, once every one is ready (stopped again if one is not);
    `env`: settings of their environment beside the test defaults."""
    nodes = [Node(f"{prefix}{i}", database, redis, log_dir, lease_ttl, env) for i in range(count)]
    try:
        until(lambda: all(n.ready() for n in nodes), 120, f"{count} ready nodes", every=0.2)
    except BaseException:
        for n in nodes:
            n.stop()
        raise
    return nodes


@contextlib.contextmanager
def running_nodes(shared: Shared, log_dir: Path, prefix: str, count: int = 2) -> Iterator[list[Node]]:
    """`ready_nodes` on the test's database and Redis (a 3 s lease), stopped when the block ends."""
    nodes = ready_nodes(prefix, count, shared.database, shared.redis_url, log_dir, 3.0)
    try:
        yield nodes
    finally:
        for node in nodes:
            node.stop()


def recv_json(ws: ClientConnection, pred: Callable[[dict[str, Any]], bool], deadline_s: float = 20.0) -> Any:
    """The first message `ws` receives that `pred` accepts (AssertionError after `deadline_s`)."""
    end = time.monotonic() + deadline_s
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError("no expected message in time")
        message = json.loads(ws.recv(timeout=left))
        if pred(message):
            return message


def leaders_table(ann: Player, bob: Player) -> int:
    """`ann` makes a Leaders table on her node and `bob` joins it on his, which starts the game there (and
    so owns it); returns the game id, both players' tokens set."""
    made = ann.http.post("/api/games", json={"game": "leaders"}).json()
    ann.token, ann.game_id = made["token"], made["game"]["id"]
    joined = bob.http.post(f"/api/games/{ann.game_id}/join", json={}).json()
    bob.token, bob.game_id = joined["token"], ann.game_id
    return ann.game_id


@dataclass(eq=False)  # hashable by identity, as connections are
class RoomSocket:
    """What a node's room note handling (`Cluster._room`) uses of a connection: its seat and what it was
    sent."""

    occupant: int | None = None
    seat: int | None = None
    events_ply: int | None = None
    game_id: int = 0
    session_user: int | None = None
    closed: bool = False
    sent: list[str] = field(default_factory=list)

    def send_text(self, text: str) -> None:
        self.sent.append(text)

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(json.dumps(message))

    def close(self, code: int = 1000) -> None:
        self.closed = True


def on_batches(cluster: Any, hook: Callable[[str], Awaitable[None]]) -> None:
    """Awaits `hook(commands)` before each batch of notes the node sends (its pipelines): the hook may wait
    (a slow Redis) or raise (a failed batch)."""
    real = cluster.redis.pipeline

    def pipeline(*args: Any, **kwargs: Any) -> Any:
        pipe = real(*args, **kwargs)
        execute = pipe.execute

        async def hooked(*a: Any, **k: Any) -> Any:
            await hook(str(pipe.command_stack))
            return await execute(*a, **k)

        pipe.execute = hooked
        return pipe

    cluster.redis.pipeline = pipeline


def flaky_batches(cluster: Any, command: str = "PUBLISH", times: int = 1) -> list[int]:
    """Makes the node's next `times` batches with `command` fail (a timeout on its connection alone); the
    list counts them."""
    failures: list[int] = []

    async def fail(commands: str) -> None:
        if command in commands and len(failures) < times:
            failures.append(1)
            raise redis.exceptions.TimeoutError("Timeout reading from socket")

    on_batches(cluster, fail)
    return failures
