"""The finished games of a long run, one JSON line each, appended as they finish, so a stopped run can resume.

`DIR/run.json` holds the settings that fix every game's seed (game, bots, players, seed); `DIR/NAME.jsonl`
one line per finished game. Resuming checks the settings and hands back the games already played; a line cut
short by a kill is dropped. A fresh run (no resume) starts the log over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class RunLogError(ValueError):
    """A directory that holds another run than the one asked to resume."""


class RunLog:
    """Append-only log of finished games in `directory` for a run with `settings`."""

    def __init__(self, directory: Path, name: str, settings: dict[str, Any], *, resume: bool) -> None:
        self.path = directory / f"{name}.jsonl"
        self.settings = settings
        meta = directory / "run.json"
        self.previous: list[dict[str, Any]] = []
        if resume and meta.exists():
            saved = json.loads(meta.read_text(encoding="utf-8"))
            differ = [k for k in settings if saved.get(k) != settings[k]]
            if differ:
                shown = ", ".join(f"{k} {saved.get(k)!r} (asked: {settings[k]!r})" for k in differ)
                raise RunLogError(f"{directory} holds another run: {shown}; resume it with the same settings")
            self.previous = self._read()
        directory.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps(settings, indent=1), encoding="utf-8")
        self.path.write_text("".join(json.dumps(row) + "\n" for row in self.previous), encoding="utf-8")

    def _read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                break  # the last line, cut short when the run was killed
        return rows

    def append(self, row: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
