"""Long commands (arena, tournament, selfplay, bench) in a terminal and in a pipe: progress on stderr,
Ctrl-C after some games keeps the finished ones (marked partial), a resumed run ends as an uninterrupted one.

Each command runs in its own process group, so that Ctrl-C reaches it (and any pool workers) as it would
from a terminal; the runs are long (many cheap games), so that the signal always comes before their end.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from throne.scaleout.arena import run_arena
from throne.scaleout.selfplay import load_selfplay
from throne.scaleout.tournament import outcome_key, run_tournament

SRC = str(Path(__file__).resolve().parents[1] / "src")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG = 100_000  # games (or pairing games) that no test waits for


@dataclass
class Finished:
    code: int
    out: str  # stdout (a pipe) or everything shown (a terminal)
    err: str  # stderr (a pipe only)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("THRONE_")}
    return env | {"PYTHONPATH": SRC, "THRONE_PROGRESS_EVERY": "0", "TERM": "xterm-256color", "COLUMNS": "160"}


def _read(fd: int, until: float) -> bytes:
    ready, _, _ = select.select([fd], [], [], max(0.0, min(0.2, until - time.monotonic())))
    if not ready:
        return b""
    try:
        return os.read(fd, 65536) or b"EOF"
    except OSError:  # the terminal's other end is closed: everyone using it has exited
        return b"EOF"


def interrupt(args: list[str], *, tty: bool, total: int, after: int = 2) -> Finished:
    """Run `throne ARGS`, send SIGINT to its process group once `after` of `total` units are shown done."""
    command = [sys.executable, "-m", "throne.cli", *args]
    if tty:
        watch, terminal = pty.openpty()
        streams = {"stdin": terminal, "stdout": terminal, "stderr": terminal}
    else:
        streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen(command, env=_environment(), start_new_session=True, **streams)
    if tty:
        os.close(terminal)
    else:
        watch = proc.stderr.fileno()
    shown, sent = b"", False
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            chunk = _read(watch, deadline)
            if chunk == b"EOF":
                break
            shown += chunk
            screen = ANSI.sub("", shown.decode(errors="replace"))
            counts = [int(n) for n in re.findall(rf"(\d+)/{total}\b", screen)]
            if not sent and counts and max(counts) >= after:
                os.killpg(proc.pid, signal.SIGINT)
                sent = True
        out = proc.stdout.read() if not tty else b""
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        if tty:
            os.close(watch)
    assert sent, "the run ended before it could be interrupted"
    _no_process_left(proc.pid)
    text = shown.decode(errors="replace")
    return Finished(code, text if tty else out.decode(), "" if tty else text)


def _no_process_left(group: int) -> None:
    """The command's workers are gone with it (none left running in its process group)."""
    for _ in range(50):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail("worker processes outlived the interrupted command")


def run(args: list[str]) -> Finished:
    command = [sys.executable, "-m", "throne.cli", *args]
    done = subprocess.run(command, env=_environment(), capture_output=True, text=True, timeout=120)
    return Finished(done.returncode, done.stdout, done.stderr)


def test_arena_in_a_pipe_stops_with_partial_json_and_resumes(tmp_path: Path) -> None:
    save = tmp_path / "arena"
    args = ["arena", "leaders", "random", "greedy", "--seed", "3", "--backend", "serial", "--save", str(save)]
    stopped = interrupt([*args, "--games", str(LONG), "--json"], tty=False, total=LONG)
    assert stopped.code == 130, stopped.err
    report = json.loads(stopped.out)
    finished = report["games"]
    assert report["partial"] is True and report["games_planned"] == LONG and finished >= 2
    lines = stopped.err.splitlines()
    assert re.match(rf"arena random vs greedy: 1/{LONG} games \(0%\), [\d.]+ games/s, ETA ", lines[0])
    assert "; random " in lines[0] and "% [" in lines[0]  # the running score with its interval
    assert lines[-1].endswith("(stopped)") and "Traceback" not in stopped.err

    games = finished + 6
    resumed = run([*args, "--games", str(games), "--json", "--resume", "--quiet"])
    assert resumed.code == 0 and resumed.err == ""
    whole = run_arena("leaders", "random", "greedy", games=games, seed=3, backend="serial")
    final = json.loads(resumed.out)
    assert "partial" not in final and final["results"] == whole["results"] and final["a"] == whole["a"]


def test_tournament_in_a_pipe_stops_with_a_partial_report_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "tour"
    args = ["tournament", "leaders", "random", "greedy", "--seed", "5", "--backend", "serial"]
    args += ["--out", str(out)]
    stopped = interrupt([*args, "--games", str(LONG)], tty=False, total=LONG)
    assert stopped.code == 130, stopped.err
    assert "PARTIAL: " in stopped.out and f" of {LONG} games" in stopped.out
    report = json.loads((out / "tournament.json").read_text())
    assert report["partial"] is True and (out / "tournament.png").exists()
    assert stopped.err.splitlines()[-1].endswith("(stopped)")

    games = len(report["games"]) + 5
    resumed = run([*args, "--games", str(games), "--resume"])
    assert resumed.code == 0 and "PARTIAL" not in resumed.out
    assert resumed.err.splitlines()[-1].startswith(f"tournament leaders: {games}/{games} games (100%)")
    whole = run_tournament("leaders", ["random", "greedy"], games, seed=5, backend="serial")
    final = json.loads((out / "tournament.json").read_text())
    assert "partial" not in final
    keys = ("index", "seed", "seat_a", "winner", "moves")
    assert [tuple(g[k] for k in keys) for g in final["games"]] == [outcome_key(r) for _, r in whole.games]
    assert final["ratings"] == [asdict(r) for r in whole.ratings]


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_selfplay_keeps_the_finished_games(tmp_path: Path, tty: bool) -> None:
    args = ["selfplay", "leaders", "--games", str(LONG), "--backend", "serial", "--out", str(tmp_path)]
    stopped = interrupt(args, tty=tty, total=LONG)
    assert stopped.code == 130
    meta, table = load_selfplay(tmp_path)
    assert meta["partial"] is True and meta["games"] >= 2 and meta["games_planned"] == LONG
    assert sorted(set(table.column("game").to_pylist())) == meta["game_numbers"] == list(range(meta["games"]))
    assert f"of {meta['games']} games (PARTIAL: {meta['games']} of {LONG}" in stopped.out


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_bench_prints_the_runs_measured(tty: bool) -> None:
    args = ["bench", "leaders", "--runs", "50", "--seconds", "0.05"]
    stopped = interrupt(args, tty=tty, total=150, after=3)  # 3 measurements a run
    assert stopped.code == 130
    assert "random playouts: games/s" in stopped.out
    assert "PARTIAL: " in stopped.out and "of 50 runs" in stopped.out


def test_arena_on_a_terminal_shows_a_live_bar_and_stops_its_workers(tmp_path: Path) -> None:
    args = ["arena", "leaders", "random", "random", "--games", str(LONG), "--jobs", "2"]
    args += ["--save", str(tmp_path)]
    stopped = interrupt(args, tty=True, total=LONG)
    assert stopped.code == 130
    screen = ANSI.sub("", stopped.out)
    assert "━" in screen and "games/s" in screen and "ETA" in screen and "random " in screen
    assert "arena random vs random: stopped after " in screen and "PARTIAL: " in screen
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen
    saved = json.loads((tmp_path / "arena.json").read_text())
    logged = (tmp_path / "results.jsonl").read_text().splitlines()
    assert saved["partial"] is True and saved["games"] == len(logged) >= 2


def test_tournament_on_a_terminal(tmp_path: Path) -> None:
    args = ["tournament", "leaders", "random", "greedy", "--games", str(LONG), "--backend", "serial"]
    stopped = interrupt([*args, "--out", str(tmp_path)], tty=True, total=LONG)
    assert stopped.code == 130
    screen = ANSI.sub("", stopped.out)
    assert "━" in screen and "games/s" in screen and "PARTIAL: " in screen and "Elo" in screen


def test_sigterm_stops_like_ctrl_c(tmp_path: Path) -> None:
    args = ["arena", "leaders", "random", "random", "--games", str(LONG), "--backend", "serial", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "throne.cli", *args],
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr.readline()  # the first game is done
    proc.terminate()
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143 and json.loads(out)["partial"] is True
