"""`throne serve` in a subprocess on a free port with a temp data directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from tests.processes import free_port, terminate


class ServerProcess:
    def __init__(
        self, data_dir: Path, extra_env: dict[str, str] | None = None, options: Sequence[str] = ()
    ) -> None:
        self.data_dir = data_dir
        self.env = {**os.environ, "THRONE_SECRET_KEY": "crash-test", **(extra_env or {})}
        self.options = list(options)  # more `throne serve` options
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """The server's stdout and stderr (its store processes' too)."""
        return self.data_dir / f"server-{self.port}.log"

    def start(self) -> None:
        self.port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "throne.cli",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            *self.options,
        ]
        log = open(self.log, "wb")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start within 60 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        terminate(self.proc)
