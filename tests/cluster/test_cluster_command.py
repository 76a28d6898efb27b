"""`throne cluster` end to end: the command starts PostgreSQL, Redis, two nodes and HAProxy; a game against a
bot created and played through the balancer's one address survives the SIGKILL of the node that owns it
(the client reconnects through HAProxy and plays on), and SIGTERM to the command stops every piece.

The node that owns the game is found as an operator would: its lease in Redis names the node, and the
`cluster.json` the command writes names that node's process."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from tests.cluster.nodes import SRC, Player, until
from tests.cluster.play import STEP, advance, check_log_and_views, lease_owner
from tests.processes import free_port, terminate
from throne.store import Database, Repo

START = 120.0  # initdb, PostgreSQL, Redis, two nodes importing the app, HAProxy


class Balancer:
    """The cluster's one address, as the test helpers' players use a node's."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for its parent has stopped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _pids(described: dict[str, Any]) -> dict[str, int]:
    pids = {n["name"]: n["pid"] for n in described["nodes"]}
    pids.update({k: described[k]["pid"] for k in ("haproxy", "redis", "postgres")})
    return pids


class Cluster:
    """A `throne cluster` subprocess; `close` leaves no process behind, whatever happened."""

    def __init__(self, nodes: int) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="throne-cluster-cmd-"))
        self.port = free_port()
        env = {
            **os.environ,
            "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "THRONE_LEASE_TTL": "3",  # a dead owner's games move after 3 s, not 5
            "THRONE_RATE_LIMITS": "off",  # every request comes from 127.0.0.1
        }
        cmd = [sys.executable, "-m", "throne.cli", "cluster", "--nodes", str(nodes), "--port", str(self.port),
               "--data-dir", str(self.root)]  # fmt: skip
        self.out = self.root / "cluster.out"
        with self.out.open("wb") as out:
            self.proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        self.described: dict[str, Any] = {}

    def wait_ready(self) -> dict[str, Any]:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"throne cluster exited:\n{self.out.read_text()[-3000:]}")
            path = self.root / "cluster.json"
            if not self.described and path.exists():
                self.described = json.loads(path.read_text())
            try:
                return bool(self.described) and httpx.get(self._ready_url, timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        until(ready, START, "the cluster ready through HAProxy", every=0.2)
        return self.described

    @property
    def _ready_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/ready"

    def logs(self) -> str:
        tails = (f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in self.root.glob("*.log"))
        return "\n".join(tails)

    def close(self) -> None:
        terminate(self.proc, grace=60)
        for name, pid in _pids(self.described).items() if self.described else ():
            if pid and _alive(pid):  # SIGQUIT: PostgreSQL's immediate shutdown, which ends its children too
                os.kill(pid, signal.SIGQUIT if name == "postgres" else signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    started = Cluster(nodes=2)
    try:
        yield started
    finally:
        started.close()


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_throne_cluster_serves_a_game_through_haproxy_across_a_node_kill(cluster: Cluster) -> None:
    described = cluster.wait_ready()
    assert described["url"] == f"http://127.0.0.1:{cluster.port}"
    pids = _pids(described)
    assert set(pids) == {"node0", "node1", "haproxy", "redis", "postgres"} and all(pids.values())
    assert all(_alive(pid) for pid in pids.values())
    r = redis.Redis.from_url(described["redis"]["url"])
    db = Database(described["postgres"]["url"])
    balancer = Balancer(cluster.port)
    ann: Player | None = None
    try:
        # A game against a bot, created and played over the balancer's address only.
        ann = Player(balancer, "ann")  # type: ignore[arg-type]  # a Node's address, as far as a player sees
        made = ann.http.post("/api/play-bot", json={"game": "leaders", "bot": "random", "name": "ann"})
        assert made.status_code == 201, made.text
        ann.token, ann.game_id = made.json()["token"], made.json()["game"]["id"]
        ann.connect(balancer)  # type: ignore[arg-type]
        rng = random.Random(16)
        before = advance([ann], 4, rng)
        assert before >= 4, cluster.logs()

        owner = until(lambda: lease_owner(r, ann.game_id), STEP, "the game's lease")
        assert owner in ("node0", "node1")
        os.kill(pids[owner], signal.SIGKILL)  # no handover: the lease runs out, the other node claims it
        until(lambda: not _alive(pids[owner]), STEP, "the owner's end")
        survivor = "node1" if owner == "node0" else "node0"

        def reconnected() -> bool:  # HAProxy may still try the dead node until its health check fails
            with contextlib.suppress(Exception):
                ann.state = None
                ann.connect(balancer)  # type: ignore[arg-type]
                return True
            return False

        until(reconnected, STEP, "a socket through HAProxy again", every=0.2)
        after = advance([ann], 4, rng)
        assert after >= before + 4, cluster.logs()
        assert lease_owner(r, ann.game_id) == survivor
        # On ann's turn nothing moves (the bot waits for her): the log is gap-free, her view the replay's.
        if not ann.wait_ply(after, STEP)["your_turn"]:
            ann.recv_until(lambda m: m["type"] == "state" and m["your_turn"], STEP)
        assert ann.state is not None
        assert check_log_and_views(Repo(db), db.engine, ann.game_id, [ann]) == ann.state["ply"]
    finally:
        if ann is not None:
            ann.close()
            ann.http.close()
        r.close()
        db.dispose()

    # SIGTERM stops the whole cluster: HAProxy, the nodes, Redis and PostgreSQL are gone.
    cluster.proc.terminate()
    assert cluster.proc.wait(60) == 0, cluster.out.read_text()[-3000:]
    left = {name: pid for name, pid in pids.items() if _alive(pid)}
    assert left == {}, left
    assert not (cluster.root / "cluster.json").exists()
