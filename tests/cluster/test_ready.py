"""A cluster node is ready only while both its database and Redis answer (`/api/ready`)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.cluster.nodes import until
from tests.cluster.redisd import RedisServer
from throne.server.app import create_app
from throne.server.config import Settings


def test_a_node_is_not_ready_without_redis(tmp_path: Path) -> None:
    redis = RedisServer()  # its own server: this test stops it
    redis.start()
    try:
        settings = Settings(data_dir=tmp_path, secret_key="k", redis_url=redis.url, node_name="solo")
        with TestClient(create_app(settings)) as client:
            assert client.get("/api/ready").status_code == 200
            assert client.app.state.hub.cluster.node == "solo"
            redis.stop()
            answer = until(lambda: (r := client.get("/api/ready")).status_code == 503 and r, 20, "503")
            error = answer.json()["error"]
            assert error["code"] == "not_ready" and "redis" in error["message"]
            assert client.get("/api/health").status_code == 200  # alive, just not ready
    finally:
        redis.stop()
