"""`throne serve`'s options that choose how the server runs (its command line, not its behaviour)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from throne import cli
from throne.server import run
from throne.server.config import Settings


@pytest.mark.parametrize(
    ("args", "environ", "store_process"),
    [
        ([], None, True),  # the default: the database calls in a store process
        (["--store", "threads"], None, False),
        ([], "threads", False),  # THRONE_STORE
        (["--store", "process"], "threads", True),  # the option wins
    ],
)
def test_throne_serve_chooses_where_the_database_calls_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], environ: str | None, store_process: bool
) -> None:
    seen: dict[str, Settings] = {}
    monkeypatch.setattr(run, "serve", lambda host, port, settings, **kw: seen.update(settings=settings))
    if environ is None:
        monkeypatch.delenv("THRONE_STORE", raising=False)
    else:
        monkeypatch.setenv("THRONE_STORE", environ)
    result = CliRunner().invoke(cli.app, ["serve", "--data-dir", str(tmp_path), *args])
    assert result.exit_code == 0, result.output
    assert seen["settings"].store_process is store_process


def test_throne_serve_refuses_an_unknown_store(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.app, ["serve", "--data-dir", str(tmp_path), "--store", "disk"])
    assert result.exit_code == 2 and "--store is process or threads, not 'disk'" in result.output
