"""The test nodes' own start-up: a node whose free port was taken before it bound it starts again on another
(a fresh-clone run once lost a test to that race), and a node that fails for any other reason is reported."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import nodes as nodes_module
from tests.cluster.nodes import Shared, ready_nodes


@pytest.fixture
def taken_port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The first port handed to a node is one that something else already listens on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        given = iter([port])
        real = nodes_module.free_port
        monkeypatch.setattr(nodes_module, "free_port", lambda: next(given, None) or real())
        yield port


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_node_whose_port_was_taken_starts_on_another(
    shared: Shared, taken_port: int, tmp_path: Path
) -> None:
    (node,) = ready_nodes("p", 1, shared.database, shared.redis_url, tmp_path, 3.0)
    try:
        assert node.port != taken_port and node.ready()
    finally:
        node.stop()


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_a_node_that_fails_otherwise_is_reported(shared: Shared, tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="node q0 exited"):
        ready_nodes("q", 1, "postgresql://nobody@127.0.0.1:1/none", shared.redis_url, tmp_path, 3.0)
