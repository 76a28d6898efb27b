"""Throne built as a wheel and installed into clean virtual environments, as `pip install throne` would.

The dependencies come from a wheelhouse kept between runs (`.pytest_cache/d/throne-wheelhouse`): installs
use `--no-index` from it, and only when it lacks something (first run, a changed dependency) is it filled
from the package index (`pip download`). The environments are made without pip (`venv --without-pip`) and
filled by this interpreter's pip (`pip --python`), which saves seconds per environment.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _checked(result: subprocess.CompletedProcess[str]) -> None:
    if result.returncode:
        raise RuntimeError(f"{' '.join(map(str, result.args))} failed:\n{result.stdout}\n{result.stderr}")


def build_wheel(workdir: Path) -> Path:
    """The throne wheel, built from a copy of the sources (nothing is written into the source tree)."""
    tree = workdir / "tree"
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    _checked(_pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(workdir / "dist"), str(tree)))
    (wheel,) = (workdir / "dist").glob("throne-*.whl")
    return wheel


@contextmanager
def _locked(wheelhouse: Path) -> Iterator[None]:
    with open(wheelhouse / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def make_venv(path: Path, wheel: Path, extras: str, wheelhouse: Path) -> Path:
    """A clean virtual environment at `path` with `wheel[extras]` installed; returns its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    requirement = f"{wheel}[{extras}]" if extras else str(wheel)
    install = (
        "--python",
        str(python),
        "install",
        "--quiet",
        "--no-compile",
        "--no-index",
        "--find-links",
        str(wheelhouse),
    )
    with _locked(wheelhouse):
        result = _pip(*install, requirement)
        if result.returncode:
            _checked(_pip("download", "--quiet", "--dest", str(wheelhouse), requirement))
            for own in wheelhouse.glob("throne-*.whl"):
                own.unlink()
            result = _pip(*install, requirement)
    _checked(result)
    return path / "bin"


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment, less what would put the source tree or another venv on the path."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}
