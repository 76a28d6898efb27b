"""`throne cluster` (`make cluster`): a whole cluster on this machine, on loopback — PostgreSQL, Redis, N
`throne serve --redis` nodes and HAProxy in front of them — for local use, demos and benchmarks. Ctrl-C or
SIGTERM stops it all (each node hands its games to the nodes still running). Production runs the same
pieces on their own machines (docs/deploy.md).

While it runs, `<root>/cluster.json` says where each piece is (ports, URLs, process ids), for scripts and
tests that need to reach or stop one of them; it is removed when the cluster stops.

PostgreSQL refuses to run as root, so as root its commands run as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


class ClusterError(RuntimeError):
    """A piece that could not start (a missing program, a port in use); the message says which."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _program(name: str, package: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise ClusterError(f"{name} not found: install the Debian package {package}")
    return found


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    return Path(_program("initdb", "postgresql")).parent


def _until(check: Callable[[], bool], deadline_s: float, what: str, exited: Callable[[], str | None]) -> None:
    """Waits for `check`; fails at once if `exited()` says why the piece's process is gone."""
    end = time.monotonic() + deadline_s
    while not check():
        gone = exited()
        if gone is not None:
            raise ClusterError(f"{what} {gone}")
        if time.monotonic() > end:
            raise ClusterError(f"{what} did not start in {deadline_s:.0f} s")
        time.sleep(0.1)


def _port_in_use(port: int) -> bool:
    """Something listens on 127.0.0.1:`port` (a socket that only lingers after a close does not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _answers(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def haproxy_config(port: int, nodes: list[int]) -> str:
    """HAProxy in front of the nodes: HTTP and WebSockets (upgraded connections stay open as tunnels),
    round robin, a node out of rotation while its /api/ready fails."""
    servers = "\n".join(
        f"    server node{i} 127.0.0.1:{p} check inter 1s fall 2 rise 1" for i, p in enumerate(nodes)
    )
    return f"""global
    maxconn 8000  # raise with the file limit (ulimit -n) for more sockets per balancer

defaults
    mode http
    option forwardfor
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout http-request 10s

frontend throne
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /api/ready
    retry-on conn-failure empty-response
    retries 2
    option redispatch  # the last retry goes to another node (one that died is not yet marked down)
{servers}
"""


@dataclass
class LocalCluster:
    """The processes of a local cluster, started in order and stopped in reverse order."""

    root: Path
    nodes: int = 3
    port: int = 8000
    node_ports: list[int] = field(default_factory=list)
    procs: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)
    database_url: str = ""
    redis_url: str = ""
    as_root: bool = field(default_factory=lambda: os.geteuid() == 0)
    _log_from: dict[str, int] = field(default_factory=dict)  # where each piece's log of this run begins

    def _spawn(self, name: str, cmd: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = (self.root / f"{name}.log").open("ab")
        self._log_from[name] = log.tell()  # (the log of an earlier run of this data directory comes before)
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        log.close()
        self.procs.append((name, proc))
        return proc

    def _exited(self, name: str) -> Callable[[], str | None]:
        """For `_until`: why the process `name` is gone (its status and the end of its log), None while it
        runs."""

        def why() -> str | None:
            proc = next(p for n, p in self.procs if n == name)
            if proc.poll() is None:
                return None
            with contextlib.suppress(OSError), (self.root / f"{name}.log").open("rb") as log:
                log.seek(self._log_from.get(name, 0))
                lines = log.read().decode(errors="replace").strip().splitlines()
                if lines:
                    return f"exited ({proc.returncode}): {lines[-1][-300:]}"
            return f"exited ({proc.returncode}); see {self.root}/{name}.log"

        return why

    def _pg(self, *args: str) -> None:
        cmd = [str(_pg_bin() / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ClusterError(f"{args[0]} failed: {done.stderr.strip()[-1000:]}")

    def start_postgres(self) -> None:
        pg = self.root / "postgres"
        if not (pg / "data" / "PG_VERSION").exists():
            pg.mkdir(parents=True, exist_ok=True)
            if self.as_root:
                shutil.chown(pg, "postgres", "postgres")
            self._pg("initdb", "-D", str(pg / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        port = free_port()
        opts = f"-p {port} -k {pg} -c listen_addresses='' -c max_connections=200"
        log = str(pg / "log")
        self._pg("pg_ctl", "-D", str(pg / "data"), "-o", opts, "-l", log, "-w", "-t", "60", "start")
        self.database_url = f"postgresql+psycopg://postgres@/postgres?host={pg}&port={port}"

    def stop_postgres(self) -> None:
        with contextlib.suppress(ClusterError, OSError, subprocess.TimeoutExpired):
            self._pg("pg_ctl", "-D", str(self.root / "postgres" / "data"), "-m", "fast", "-w", "stop")

    def start_redis(self) -> None:
        port = free_port()
        redis = _program("redis-server", "redis-server")
        cmd = [redis, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self._spawn("redis", cmd)
        _until(lambda: _answers(port), 30, "redis-server", self._exited("redis"))
        self.redis_url = f"redis://127.0.0.1:{port}/0"

    def start_nodes(self, env: dict[str, str] | None = None) -> None:
        from throne.store.db import MigrationBlocked, upgrade

        try:
            upgrade(self.database_url)  # once, before the nodes start (they would all migrate at once)
        except MigrationBlocked as exc:
            raise ClusterError(f"the database cannot be upgraded: {exc}") from None
        key = self.root / "secret.key"  # one cookie key for every node: a session is valid on each
        if not key.exists():
            key.write_text(secrets.token_urlsafe(48))
            key.chmod(0o600)
        base = {**os.environ, **(env or {}), "THRONE_SECRET_KEY": key.read_text().strip()}
        for i in range(self.nodes):
            port = free_port()
            node_env = {
                **base,
                "THRONE_NODE_NAME": f"node{i}",
                "THRONE_DATA_DIR": str(self.root / f"node{i}"),
            }
            cmd = [sys.executable, "-m", "throne.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
            cmd += ["--database", self.database_url, "--redis", self.redis_url, "--log-level", "warning"]
            self._spawn(f"node{i}", cmd, node_env)
            self.node_ports.append(port)
        for i, port in enumerate(self.node_ports):
            _until(lambda port=port: _ready(port), 120, f"node{i}", self._exited(f"node{i}"))

    def start_balancer(self) -> None:
        haproxy = _program("haproxy", "haproxy")
        config = self.root / "haproxy.cfg"
        config.write_text(haproxy_config(self.port, self.node_ports))
        self._spawn("haproxy", [haproxy, "-db", "-f", str(config)])
        _until(lambda: _ready(self.port), 30, "haproxy", self._exited("haproxy"))

    def start(self, env: dict[str, str] | None = None, balancer: bool = True) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ClusterError(f"cannot use {self.root} as the data directory: {exc.strerror}") from None
        if self.as_root:  # the postgres user must reach its data directory inside
            self.root.chmod(self.root.stat().st_mode | 0o711)
        if balancer and _port_in_use(self.port):  # before anything starts: HAProxy could not bind it
            raise ClusterError(
                f"port {self.port} is in use on 127.0.0.1: stop what listens there, or choose another "
                "with --port"
            )
        try:
            self.start_postgres()
            self.start_redis()
            self.start_nodes(env)
            if balancer:
                self.start_balancer()
        except BaseException:
            self.stop()
            raise

    def postgres_pid(self) -> int | None:
        """The postmaster's process id (pg_ctl starts it as a daemon, not as a child of this process)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.root / "postgres" / "data" / "postmaster.pid").read_text().split()[0])
        return None

    def describe(self) -> dict[str, object]:
        """Where each piece is: the contents of `cluster.json`."""
        pids = {name: proc.pid for name, proc in self.procs}
        return {
            "url": f"http://127.0.0.1:{self.port}",
            "nodes": [
                {"name": f"node{i}", "port": port, "pid": pids.get(f"node{i}")}
                for i, port in enumerate(self.node_ports)
            ],
            "haproxy": {"port": self.port, "pid": pids.get("haproxy")},
            "redis": {"url": self.redis_url, "pid": pids.get("redis")},
            "postgres": {"url": self.database_url, "pid": self.postgres_pid()},
        }

    def write_description(self) -> Path:
        path = self.root / "cluster.json"
        path.write_text(json.dumps(self.describe(), indent=2) + "\n")
        return path

    def stop(self) -> None:
        """Newest first: HAProxy, then the nodes one by one (SIGTERM: each hands its games to the nodes
        still running), Redis, and PostgreSQL last."""
        for _name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.procs.clear()
        if self.database_url:
            self.stop_postgres()
        (self.root / "cluster.json").unlink(missing_ok=True)


def _ready(port: int) -> bool:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/ready", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _must_stop(exited: set[str], nodes: int) -> bool:
    """A node that dies leaves the cluster up (the others claim its games once its leases run out, as in
    production); Redis or HAProxy dying, or the last node, stops it."""
    return bool(exited & {"redis", "haproxy"}) or len({n for n in exited if n.startswith("node")}) == nodes


def run(root: Path, nodes: int, port: int) -> None:
    """Starts the cluster, prints where it is, and keeps it up until Ctrl-C or SIGTERM."""
    cluster = LocalCluster(root.resolve(), nodes, port)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    cluster.start()
    described = cluster.write_description()
    print(f"Throne cluster: http://127.0.0.1:{port} (HAProxy) in front of {nodes} nodes", flush=True)
    print(f"  nodes: {', '.join(f'http://127.0.0.1:{p}' for p in cluster.node_ports)}", flush=True)
    print(f"  PostgreSQL: {cluster.database_url}\n  Redis: {cluster.redis_url}", flush=True)
    print(f"  logs: {cluster.root}/*.log, process ids: {described} — Ctrl-C stops everything", flush=True)
    reported: set[str] = set()
    try:
        while not stopping:
            for name, proc in cluster.procs:
                if proc.poll() is not None and name not in reported:
                    reported.add(name)
                    print(f"{name} exited ({proc.returncode}); see {cluster.root}/{name}.log", flush=True)
            stopping = stopping or _must_stop(reported, nodes)
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        print("stopping the cluster…", flush=True)
        cluster.stop()
