"""Helpers for in-process cluster tests: a `Cluster` on a TestClient's hub whose Redis the test never uses."""

from __future__ import annotations

from fastapi.testclient import TestClient

from throne.server.cluster.lease import Lease
from throne.server.cluster.node import Cluster

UNREACHABLE = "redis://127.0.0.1:9"  # for a Cluster whose Redis the test never uses


def holding(client: TestClient, game_id: int, deadline: float) -> Cluster:
    """A cluster node (its Redis unused) that holds the lease of `game_id` until `deadline` (monotonic)."""
    hub = client.app.state.hub
    cluster = Cluster(hub, UNREACHABLE, node="n1")
    cluster.leases.held[game_id] = Lease(game_id, 7, deadline)
    hub.cluster = cluster
    return cluster
