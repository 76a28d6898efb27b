"""Run the `throne` command in a subprocess as if some packages were not installed.

A meta-path finder placed first refuses the named modules (a top-level name: its submodules too). In mode
"absent" it answers `ModuleNotFoundError` from `find_spec` (as for a package that is not installed:
`importlib.util.find_spec` fails too); in mode "broken" `find_spec` succeeds and only the import itself fails
(a damaged install).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

_RUNNER = r"""
import importlib.abc, importlib.machinery, sys

blocked, mode = set(sys.argv[1].split(",")), sys.argv[2]

class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {spec.name!r}", name=spec.name)

    def exec_module(self, module):
        raise AssertionError("never reached")

class _Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in blocked and name.partition(".")[0] not in blocked:
            return None
        if mode == "absent":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return importlib.machinery.ModuleSpec(name, _Loader())

sys.meta_path.insert(0, _Block())
sys.argv = ["throne", *sys.argv[3:]]
from throne.cli import main
main()
"""


def run_throne(
    args: str | Iterable[str],
    blocked: Iterable[str],
    *,
    mode: str = "absent",
    stdin: str = "",
    cwd: Path | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`throne ARGS` (a string is split at spaces) with the `blocked` modules made unimportable; text output
    captured."""
    args = args.split() if isinstance(args, str) else list(args)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-c", _RUNNER, ",".join(blocked), mode, *args]
    return subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout, check=False
    )


def first_leaders_turn(seed: int) -> list[str]:
    """South's whole first turn in the Leaders game of `seed`, each decision the first legal move."""
    from throne.games import leaders

    state, moves = leaders.new_game(seed=seed), []
    while state.to_play == 0:
        moves.append(state.legal_moves()[0])
        state.play(moves[-1])
    return moves
