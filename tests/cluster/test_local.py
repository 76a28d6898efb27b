"""`throne cluster`: the balancer configuration it writes (WebSockets, health checks, every node), which
pieces stopping stop it, and a start-up that fails at once with the reason."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import pytest

from throne.server.cluster.local import (
    ClusterError,
    LocalCluster,
    _must_stop,
    _until,
    free_port,
    haproxy_config,
)


def test_haproxy_balances_http_and_websockets_over_every_ready_node() -> None:
    config = haproxy_config(8000, [9001, 9002, 9003])
    lines = [line.strip() for line in config.splitlines()]
    assert "bind 127.0.0.1:8000" in lines
    assert "mode http" in lines  # HTTP mode passes the WebSocket upgrade through
    assert "timeout tunnel 1h" in lines  # an upgraded game socket stays open between moves
    assert "option httpchk GET /api/ready" in lines  # a node without its store or Redis gets no players
    assert any(line.startswith("option redispatch") for line in lines)  # a retry may pick a live node
    servers = [line for line in lines if line.startswith("server ")]
    assert [s.split()[2] for s in servers] == ["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"]
    assert all(" check " in s for s in servers)


@pytest.mark.parametrize(
    ("exited", "stops"),
    [
        (set(), False),
        ({"node1"}, False),  # the other nodes take its games over: the cluster stays up
        ({"node0", "node2"}, False),
        ({"node0", "node1", "node2"}, True),  # no node left
        ({"redis"}, True),
        ({"haproxy"}, True),
    ],
)
def test_a_dead_node_leaves_the_cluster_up_but_a_dead_redis_or_balancer_stops_it(
    exited: set[str], stops: bool
) -> None:
    assert _must_stop(exited, 3) is stops


def test_a_balancer_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """`throne cluster --port P` with P taken (say by `make serve`): refused at once, naming the port, and
    nothing started. Before, PostgreSQL, Redis and the nodes started, HAProxy could not bind, and the command
    waited out HAProxy's 30 s start-up, or took whatever answered on P for its balancer."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cluster = LocalCluster(tmp_path / "cluster", nodes=1, port=port)
        with pytest.raises(ClusterError, match=f"port {port} is in use"):
            cluster.start()
    assert cluster.procs == [] and not (tmp_path / "cluster" / "postgres").exists()


def test_a_node_that_exits_at_start_up_fails_the_cluster_at_once_with_its_reason() -> None:
    """A node that cannot start (here a bad THRONE_SWITCH_INTERVAL) exits at once with its one-line reason.
    The cluster fails as soon as it exits, with that line, instead of polling the dead node for 120 s and
    saying only that it "did not start"."""
    root = Path(tempfile.mkdtemp(prefix="throne-cluster-"))  # (not under pytest's: postgres must enter it)
    try:
        cluster = LocalCluster(root, nodes=1, port=free_port())
        began = time.monotonic()
        with pytest.raises(ClusterError, match=r"node0 exited \(2\): throne serve: .*THRONE_SWITCH_INTERVAL"):
            cluster.start(env={"THRONE_SWITCH_INTERVAL": "0"})
        assert time.monotonic() - began < 60, "the dead node was waited for"
        assert all(proc.poll() is not None for _, proc in cluster.procs), "a piece was left running"
        assert cluster.postgres_pid() is None, "PostgreSQL was left running"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_piece_that_exits_silently_is_not_blamed_on_an_earlier_runs_log(tmp_path: Path) -> None:
    """`throne cluster` keeps its data directory between runs and appends each piece's output to its log. A
    node that exits at start-up without a word (killed by a signal) is reported with its status and its log's
    path, not with the last line an earlier run left in that log."""
    root = tmp_path / "cluster"
    root.mkdir()
    (root / "node0.log").write_text("ERROR: [Errno 98] address already in use (an earlier run)\n")
    cluster = LocalCluster(root, nodes=1, port=0)
    cluster._spawn("node0", [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    try:
        with pytest.raises(ClusterError, match=r"node0 exited \(-9\); see .*node0.log") as failed:
            _until(lambda: False, 20, "node0", cluster._exited("node0"))
    finally:
        for _, proc in cluster.procs:
            proc.kill()
            proc.wait(10)
    assert "earlier run" not in str(failed.value)
