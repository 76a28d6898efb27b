"""`throne cluster`: the balancer configuration it writes (WebSockets, health checks, every node)."""

from __future__ import annotations

import pytest

from throne.server.cluster.local import _must_stop, haproxy_config


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
