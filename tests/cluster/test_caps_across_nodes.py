"""A person's caps hold across nodes: the games with bots they made are counted on every node, from the
shared store, so a balancer that spreads their requests over the nodes does not multiply their cap."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.cluster.nodes import Shared, ready_nodes

PLAY_BOT = {"game": "leaders", "bot": "random"}
CAP = 3  # Settings.max_bot_games_per_user


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_games_with_bots_per_player_count_every_node(shared: Shared, tmp_path: Path) -> None:
    nodes = ready_nodes("c", 2, shared.database, shared.redis_url, tmp_path, 3.0)
    clients = [httpx.Client(base_url=n.base, timeout=20) for n in nodes]
    try:
        first, second = clients
        first.post("/api/accounts/guest", json={"name": "Ann"}).raise_for_status()
        second.cookies = first.cookies  # the same person, her requests spread over both nodes
        made = [c.post("/api/play-bot", json=PLAY_BOT) for c in (first, second, first)]
        assert [r.status_code for r in made] == [201] * CAP, [r.text for r in made]
        for client in clients:
            refused = client.post("/api/play-bot", json=PLAY_BOT)
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "too_many_games"
        # the cap is the person's: another guest still plays
        second.cookies = httpx.Cookies()
        second.post("/api/accounts/guest", json={"name": "Bob"}).raise_for_status()
        assert second.post("/api/play-bot", json=PLAY_BOT).status_code == 201
    finally:
        for client in clients:
            client.close()
        for n in nodes:
            n.stop()
