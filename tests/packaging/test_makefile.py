"""The Makefile installs per target only the extras it needs, into one .venv that is never re-created.

Each case is a dry run (`make -n`) in a copy of the Makefile and pyproject.toml: what make would run, given
which stamps already exist.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CREATE = ["python3 -m venv .venv", ".venv/bin/python -m pip install --quiet --upgrade pip"]


def pip(extras: str, stamp: str) -> list[str]:
    return [f".venv/bin/python -m pip install --quiet -e '.{extras}'", f"touch .venv/.installed-{stamp}"]


SERVE, TEST = ".venv/bin/throne serve", ".venv/bin/python -m pytest -n 2 --dist loadgroup"

# (make arguments, whether .venv exists, stamps present, the set-up commands make would run, its last command)
CASES = [
    ("serve", False, [], [*CREATE, *pip("[server]", "server")], SERVE),
    ("serve", True, [], pip("[server]", "server"), SERVE),
    ("serve", True, ["server"], [], SERVE),
    ("test", True, ["server"], pip("[dev,ray,rl,server]", "dev-ray-rl-server"), TEST),
    ("test", True, ["server", "dev-ray-rl-server"], [], TEST),
    ("install-all", False, [], [*CREATE, *pip("[dev,ray,rl,server]", "dev-ray-rl-server")], None),
    ("install EXTRAS=ray,rl", True, ["server"], pip("[ray,rl]", "ray-rl"), None),
    ("install EXTRAS=", True, [], pip("", "core"), None),
]


def _setup(lines: list[str]) -> list[str]:
    """The commands that create the environment or install into it."""
    return [line for line in lines if "-m venv" in line or "pip install" in line or "touch .venv" in line]


@pytest.mark.parametrize(
    ("args", "venv", "stamps", "setup", "last"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES]
)
def test_make_runs(
    args: str, venv: bool, stamps: list[str], setup: list[str], last: str | None, tmp_path: Path
) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    old = (tmp_path / "pyproject.toml").stat().st_mtime - 60
    os.utime(tmp_path / "pyproject.toml", (old, old))
    if venv:
        (tmp_path / ".venv/bin").mkdir(parents=True)
        (tmp_path / ".venv/bin/python").touch()
    for stamp in stamps:
        (tmp_path / f".venv/.installed-{stamp}").touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    result = subprocess.run(
        ["make", "-n", *args.split()], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    assert _setup(lines) == setup and lines[: len(setup)] == setup
    assert lines[-1] == (last or setup[-1])


def test_a_changed_pyproject_reinstalls_into_the_same_venv(tmp_path: Path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / ".venv/bin").mkdir(parents=True)
    (tmp_path / ".venv/bin/python").touch()
    stamp = tmp_path / ".venv/.installed-server"
    stamp.touch()
    os.utime(stamp, (stamp.stat().st_mtime - 60,) * 2)  # older than pyproject.toml
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    result = subprocess.run(
        ["make", "-n", "serve"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [*pip("[server]", "server"), SERVE]
