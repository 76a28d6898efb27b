"""The built wheel installed into clean virtual environments: `throne[server]` serves and plays bot games
over HTTP and WebSocket; the core package alone plays in the terminal and names the extra other commands
need.

No source tree is on the path: the commands run from the environment's bin directory, in a temp directory.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.packaging.blocker import first_leaders_turn
from tests.packaging.installed import build_wheel, clean_env, make_venv
from tests.processes import free_port

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]


class Pace:
    """Keeps a socket under the server's limit (20 messages per second, bursts of 40) with some margin."""

    def __init__(self, rate: float = 18.0, burst: float = 30.0) -> None:
        self.rate, self.burst, self.tokens, self.last = rate, burst, burst, time.monotonic()

    def wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            time.sleep((1 - self.tokens) / self.rate)
            self.tokens, self.last = 1.0, time.monotonic()
        self.tokens -= 1


@pytest.fixture(scope="session")
def wheelhouse(pytestconfig: pytest.Config) -> Path:
    return Path(pytestconfig.cache.mkdir("throne-wheelhouse"))


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def _run(cmd: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, cwd=cwd, env=clean_env(), timeout=120, check=False
    )


def _installed_from(bin_dir: Path, cwd: Path, *modules: str) -> list[str]:
    """Where the environment's Python finds each module ("0": not installed)."""
    code = "import importlib.util as u, sys\nfor m in sys.argv[1:]:\n"
    code += "    print(getattr(u.find_spec(m), 'origin', 0))"
    return _run([str(bin_dir / "python"), "-c", code, *modules], cwd).stdout.splitlines()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, wheel: Path, wheelhouse: Path) -> Iterator[str]:
    """`throne serve` from a clean environment with `throne[server]`, for the games of this module."""
    tmp_path = tmp_path_factory.mktemp("server")
    bin_dir = make_venv(tmp_path / "venv", wheel, "server", wheelhouse)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    throne, numpy = _installed_from(bin_dir, run_dir, "throne", "numpy")
    assert throne.startswith(str(tmp_path / "venv")) and numpy == "0"  # no research packages
    port = free_port()
    cmd = [str(bin_dir / "throne"), "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")]
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - lives as long as the process
    env = clean_env(THRONE_SECRET_KEY="wheel-test")
    proc = subprocess.Popen(cmd, cwd=run_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the server did not start within 60 s"
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


@pytest.mark.parametrize(("game", "players"), [("leaders", 2), ("hidden-leaders", 3)])
def test_the_server_extra_plays_a_bot_game(server: str, game: str, players: int) -> None:
    rng = random.Random(11)
    with httpx.Client(base_url=server, timeout=30) as client:
        assert client.post("/api/accounts/guest", json={"name": "Wheel"}).status_code == 200
        created = client.post("/api/play-bot", json={"game": game, "players": players, "bot": "random"})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["game"]["id"], created.json()["token"]
        moves, pace, answered = 0, Pace(), -1
        with connect(f"{server.replace('http', 'ws')}/ws/games/{game_id}") as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            while True:
                msg = json.loads(ws.recv(timeout=60))
                assert msg["type"] != "error", msg
                if msg["type"] != "state":
                    continue
                if msg["status"] != "live":
                    break
                # a ply's state can come more than once (the greeting's and a broadcast's, an offer, a
                # clock): each ply is answered once, or the second move would answer a ply already gone
                if msg["your_turn"] and msg["ply"] > answered:
                    answered = msg["ply"]
                    pace.wait()
                    move = rng.choice(msg["legal_moves"])
                    ws.send(json.dumps({"type": "move", "move": move, "ply": msg["ply"]}))
                    moves += 1
                assert moves < 2000, "the game did not end"
        assert moves > 0
        assert client.get(f"/api/games/{game_id}").json()["game"]["status"] == "finished"


def test_the_core_package_plays_in_the_terminal(tmp_path: Path, wheel: Path, wheelhouse: Path) -> None:
    bin_dir = make_venv(tmp_path / "venv", wheel, "", wheelhouse)
    throne = str(bin_dir / "throne")
    assert _installed_from(bin_dir, tmp_path, "fastapi", "sqlalchemy", "numpy", "ray") == ["0"] * 4

    hidden = _run([throne, "play", "hidden-leaders", "--players", "3", "--seed", "2"], tmp_path, "1\n" * 3000)
    assert hidden.returncode == 0, hidden.stderr
    assert "Game over. Winning faction:" in hidden.stdout and "Game abandoned" not in hidden.stdout

    stdin = "".join(f"{m}\n" for m in first_leaders_turn(7)) + "save game.json\nquit\n"
    duel = _run([throne, "play", "leaders", "--opponent", "easy", "--seed", "7"], tmp_path, stdin)
    assert duel.returncode == 0 and "Saved the record to game.json." in duel.stdout, duel.stderr
    assert len(json.loads((tmp_path / "game.json").read_text())["moves"]) > len(first_leaders_turn(7))
    replay = _run([throne, "replay", "game.json"], tmp_path, "\n" * 8 + "q\n")
    assert replay.returncode == 0 and replay.stderr == ""
    bench = _run([throne, "bench", "leaders", "--runs", "1", "--seconds", "0.05", "--quiet"], tmp_path)
    assert bench.returncode == 0 and bench.stderr == ""

    for args, line in [
        (["serve"], "`throne serve` needs the `server` extra: pip install 'throne[server]'"),
        (
            ["tournament", "leaders", "random", "greedy"],
            "`throne tournament` needs the `rl` extra: pip install 'throne[rl]'",
        ),
        (
            ["arena", "leaders", "random", "greedy", "--backend", "ray"],
            "`throne arena --backend ray` needs the `ray` extra: pip install 'throne[ray]'",
        ),
    ]:
        result = _run([throne, *args], tmp_path)
        assert (result.returncode, result.stderr) == (1, line + "\n")
