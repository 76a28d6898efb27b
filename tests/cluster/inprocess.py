"""Helpers for in-process cluster tests: a `Cluster` on a TestClient's hub whose Redis the test never uses,
and the refusal counter of its metrics."""

from __future__ import annotations

import re

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


def moves_refused(client: TestClient, code: str) -> float:
    """`throne_moves_refused_total{code=...}` as scraped from /metrics (0 when absent)."""
    text = client.get("/metrics").text
    found = re.search(rf'^throne_moves_refused_total{{code="{code}"}} (\S+)$', text, re.M)
    return 0.0 if found is None else float(found.group(1))
