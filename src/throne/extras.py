"""Which optional extra each feature needs, and one clear message when it is not installed.

`pip install throne` is the engines, the bots and terminal play; the extras add the rest:

- `server`: the web platform (`throne serve`, `throne db`);
- `rl`: the research API (Gymnasium, PettingZoo, OpenSpiel, `throne tournament`, `throne selfplay`);
- `ray`: the Ray backend of the arena, tournaments and self-play (`--backend ray`).

A feature calls `require(extra, feature)` before it imports what the extra brings; the `throne` command turns
the `MissingExtra` it raises into one line on stderr and exit status 1.
"""

from __future__ import annotations

import importlib.util

# The top-level modules each extra brings (import names, not distribution names).
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": (
        "fastapi",
        "uvicorn",
        "websockets",  # uvicorn[standard]: without it the game sockets would not open
        "sqlalchemy",
        "alembic",
        "jinja2",
        "argon2",
        "itsdangerous",
        "openskill",
        "multipart",
        "psycopg",
        "orjson",  # the sockets' JSON and the structured logs
        "prometheus_client",  # /metrics
        "redis",  # throne serve --redis (nodes sharing games)
    ),
    "rl": ("numpy", "gymnasium", "pettingzoo", "pyspiel", "pyarrow", "matplotlib"),
    "ray": ("ray",),
}


class MissingExtra(ImportError):
    """A feature was used without the optional extra that brings its packages."""

    def __init__(self, extra: str, feature: str, modules: list[str]) -> None:
        self.extra, self.feature, self.modules = extra, feature, modules
        super().__init__(message(extra, feature), name=modules[0] if modules else None)


def message(extra: str, feature: str) -> str:
    """The one line shown for a missing extra."""
    return f"{feature} needs the `{extra}` extra: pip install 'throne[{extra}]'"


def missing(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """Those of `modules` (default: all the extra brings) that cannot be imported here."""
    absent = []
    for name in EXTRAS[extra] if modules is None else modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            absent.append(name)
    return absent


def require(extra: str, feature: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise `MissingExtra` unless every module of `extra` (or just `modules`) is installed."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r} (known: {', '.join(EXTRAS)})")
    absent = missing(extra, modules)
    if absent:
        raise MissingExtra(extra, feature, absent)


def extra_of(module: str | None) -> str | None:
    """The extra that brings the top-level package of `module` (a dotted name), if any."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)
