"""The `throne` command line: thin wrappers that import the part they need only when it runs."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from throne import extras

if TYPE_CHECKING:
    from throne.progress import Progress, Stop

app = typer.Typer(
    name="throne",
    help="Play and study Leaders and Hidden Leaders.",
    no_args_is_help=True,
    add_completion=False,
)


GAME_HELP = "A game id (see `throne games`)."
OPTION_HELP = "A game option NAME=VALUE (a list: comma-separated); repeatable (see `throne games`)."


def _spec(game: str) -> Any:
    """The registered game `game`, or a usage error naming the known ones."""
    from throne import games

    try:
        return games.get(game)
    except games.UnknownGameError as exc:
        raise typer.BadParameter(str(exc)) from exc


def _options(
    spec: Any, players: int | None, pairs: list[str] | None, **shortcuts: str | None
) -> tuple[int, dict[str, Any]]:
    """The player count and validated options of `spec` from `--option NAME=VALUE` and the shortcuts
    (`--modules`, `--variant`, ... : the option of that name)."""
    from throne.games import OptionsError

    raw: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"an option is NAME=VALUE, got {pair!r}")
        raw[name.strip()] = value.strip()
    raw.update({k: v for k, v in shortcuts.items() if v is not None})
    for option in spec.options:
        if option.multiple and isinstance(raw.get(option.name), str):
            raw[option.name] = [v.strip() for v in raw[option.name].split(",") if v.strip()]
    players = spec.seats_default if players is None else players
    try:
        return players, spec.normalize_options(players, raw)
    except OptionsError as exc:
        raise typer.BadParameter(str(exc)) from exc


@app.command("games")
def list_games() -> None:
    """List the registered games: ids, player counts and options."""
    from throne import games

    for spec in games.all():
        counts = ", ".join(map(str, spec.players))
        typer.echo(f"{spec.id}: {spec.name}, {counts} players (default {spec.seats_default})")
        for option in spec.options:
            default = ",".join(option.default) if option.multiple else option.default
            kind = "list of" if option.multiple else "one of"
            choices = ", ".join(option.choices)
            typer.echo(f"  --option {option.name}=...  {kind} {choices} (default {default})")


QUIET_HELP = "No progress display on stderr (for scripts)."


def _progress(label: str, quiet: bool, unit: str = "games") -> Progress:
    """A live bar when stderr is a terminal, periodic lines when it is not, nothing with --quiet."""
    from throne.progress import Progress

    return Progress(label, unit, mode="off" if quiet else "auto")


@contextlib.contextmanager
def _stoppable() -> Iterator[Stop]:
    """Ctrl-C and SIGTERM stop the run inside; one stopped before it kept anything exits at once."""
    from throne.progress import stop_on_signals

    with stop_on_signals() as stop:
        try:
            yield stop
        except KeyboardInterrupt:
            typer.echo("stopped before any result was kept", err=True)
            raise typer.Exit(stop.exit_code) from None


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=GAME_HELP)],
    opponent: Annotated[
        str, typer.Option(help="'human' (hot seat), 'random', or a bot name or level (see `throne bots`).")
    ] = "random",
    side: Annotated[str, typer.Option(help="Leaders: your side, S or N.")] = "S",
    players: Annotated[int | None, typer.Option(help="Number of players (default: the game's).")] = None,
    seat: Annotated[int, typer.Option(help="Your seat (0 moves first).")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help=OPTION_HELP)] = None,
    modules: Annotated[str | None, typer.Option(help="Shortcut for --option modules=...")] = None,
    variant: Annotated[str | None, typer.Option(help="Shortcut for --option variant=...")] = None,
    mode: Annotated[str | None, typer.Option(help="Shortcut for --option mode=...")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (random if omitted).")] = None,
) -> None:
    """Play a game in the terminal."""
    from throne import terminal

    spec = _spec(game)
    players, options = _options(spec, players, option, modules=modules, variant=variant, mode=mode)
    terminal.play(
        spec, opponent=opponent, seat=seat, players=players, options=options, seed=seed, side=side
    )


@app.command()
def replay(file: Annotated[Path, typer.Argument(help="A game record (JSON) saved by Throne.")]) -> None:
    """Step through a saved game record."""
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise typer.BadParameter(f"cannot read a game record from {file}: {exc}") from exc
    from throne import games, terminal

    kind = record.get("game") if isinstance(record, dict) else None
    try:
        spec = games.get(kind)
    except games.UnknownGameError:
        raise typer.BadParameter(f"{file} is not a Throne game record ('game' is {kind!r})") from None
    terminal.replay(spec, record)


@app.command()
def bench(
    game: Annotated[str, typer.Argument(help=GAME_HELP)],
    runs: Annotated[int, typer.Option(help="Repetitions; the median is reported.")] = 5,
    seconds: Annotated[float, typer.Option(help="Length of each timed run.")] = 2.0,
    bots: Annotated[bool, typer.Option("--bots", help="Measure bot search speed (iterations/s).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help=QUIET_HELP)] = False,
) -> None:
    """Measure engine speed (random playouts, apply/undo); prints medians of several runs.

    Ctrl-C prints what was measured so far, marked partial (exit status 130).
    """
    spec = _spec(game)
    progress = _progress(f"bench {spec.id}", quiet, unit="measurements")
    with _stoppable() as stop:
        if bots:
            from throne.bench import bots as bot_bench

            complete = bot_bench.run(spec.id, runs=runs, seconds=seconds, progress=progress)
        else:
            from throne.bench import run_engine

            complete = run_engine(spec.id, runs=runs, seconds=seconds, progress=progress)
    if not complete:
        raise typer.Exit(stop.exit_code)


@app.command()
def arena(
    game: Annotated[str, typer.Argument(help=GAME_HELP)],
    bot_a: Annotated[str, typer.Argument(help="A bot or level (see `throne bots`); one seat, rotated.")],
    bot_b: Annotated[str, typer.Argument(help="The opponent bot or level (every other seat).")],
    games: Annotated[int, typer.Option(help="Number of games.")] = 100,
    players: Annotated[int | None, typer.Option(help="Players (default: the game's).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help=OPTION_HELP)] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    save: Annotated[
        Path | None, typer.Option(help="Directory for the game records and the report, written as games end.")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Keep the games a stopped run saved in --save; play the rest.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the first deal.")] = 0,
    backend: Annotated[str, typer.Option(help="'pool' (local processes), 'ray' or 'serial'.")] = "pool",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --backend ray).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help=QUIET_HELP)] = False,
    modules: Annotated[str | None, typer.Option(help="Shortcut for --option modules=...")] = None,
) -> None:
    """Play bots against each other; prints win rates with 95% confidence intervals.

    Ctrl-C prints the results of the finished games, marked partial (exit status 130).
    """
    _backend_needs(backend, "arena")
    from throne.ai import AIError
    from throne.runlog import RunLogError
    from throne.scaleout import arena as arena_mod
    from throne.scaleout.backend import BackendError

    spec = _spec(game)
    players, options = _options(spec, players, option, modules=modules)
    with _stoppable() as stop:
        try:
            report = arena_mod.run_arena(
                spec.id,
                bot_a,
                bot_b,
                games=games,
                players=players,
                options=options if (option or modules) else None,
                jobs=jobs,
                seed=seed,
                save=save,
                resume=resume,
                progress=_progress(f"arena {bot_a} vs {bot_b}", quiet),
                backend=backend,
                address=address,
            )
        except (AIError, BackendError, RunLogError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from exc
    typer.echo(json.dumps(report, indent=1) if as_json else arena_mod.format_report(report))
    if report.get("partial"):
        raise typer.Exit(stop.exit_code)


@app.command()
def bots(
    game: Annotated[str | None, typer.Argument(help="Only this game.")] = None,
) -> None:
    """List the bots and strength levels of each game."""
    from throne import games
    from throne.ai import registry

    for name in [_spec(game).id] if game else list(games.ids()):
        typer.echo(f"{name}:")
        for bot, budget, description in registry.describe(name):
            typer.echo(f"  {bot:<10} {budget:<22} {description}")


@app.command()
def tournament(
    game: Annotated[str, typer.Argument(help=GAME_HELP)],
    entrants: Annotated[list[str], typer.Argument(help="Two or more bots or levels (see `throne bots`).")],
    games: Annotated[int, typer.Option(help="Games per pairing (each way round with 3+ players).")] = 20,
    players: Annotated[int | None, typer.Option(help="Players (default: the game's).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help=OPTION_HELP)] = None,
    seed: Annotated[int, typer.Option(help="Seed of the first deal.")] = 0,
    backend: Annotated[str, typer.Option(help="'pool' (local processes), 'ray' or 'serial'.")] = "pool",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --backend ray).")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: one per CPU).")] = None,
    out: Annotated[
        Path, typer.Option(help="Output directory (games as they end, then JSON, table, PNG).")
    ] = Path("tournament"),
    resume: Annotated[
        bool, typer.Option("--resume", help="Keep the games a stopped run logged in --out; play the rest.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help=QUIET_HELP)] = False,
) -> None:
    """Round-robin tournament: Elo ratings with 95% intervals, score matrix, JSON and a PNG plot.

    Ctrl-C rates the finished games and writes the report, marked partial (exit status 130).
    """
    extras.require("rl", "`throne tournament`", ("numpy", "matplotlib"))
    _backend_needs(backend, "tournament")
    from throne.scaleout import tournament as tour

    spec = _spec(game)
    players, options = _options(spec, players, option)
    with _stoppable() as stop:
        try:
            result = tour.run_tournament(
                spec.id,
                entrants,
                games,
                seed=seed,
                players=players,
                options=options,
                backend=backend,
                address=address,
                workers=workers,
                out=out,
                resume=resume,
                progress=_progress(f"tournament {spec.id}", quiet),
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
    paths = tour.write_report(result, out)
    typer.echo(tour.format_table(result))
    typer.echo(f"wrote {paths['json']}, {paths['table']} and {paths['png']}")
    if result.partial:
        raise typer.Exit(stop.exit_code)


@app.command()
def selfplay(
    game: Annotated[str, typer.Argument(help=GAME_HELP)],
    games: Annotated[int, typer.Option(help="Number of games.")] = 100,
    out: Annotated[Path, typer.Option(help="Output directory (Parquet, meta.json).")] = Path("selfplay"),
    bot: Annotated[str, typer.Option(help="The bot or level in every seat.")] = "random",
    players: Annotated[int | None, typer.Option(help="Players (default: the game's).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help=OPTION_HELP)] = None,
    modules: Annotated[str | None, typer.Option(help="Shortcut for --option modules=...")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the first game (game i uses seed + i).")] = 0,
    backend: Annotated[str, typer.Option(help="'pool' (local processes), 'ray' or 'serial'.")] = "pool",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --backend ray).")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: one per CPU).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help=QUIET_HELP)] = False,
) -> None:
    """Self-play games written as training trajectories (observations, legal actions, actions, returns).

    Ctrl-C writes the finished games, marked partial in meta.json (exit status 130).
    """
    extras.require("rl", "`throne selfplay`")
    _backend_needs(backend, "selfplay")
    from throne.scaleout.selfplay import run_selfplay

    spec = _spec(game)
    players, options = _options(spec, players, option, modules=modules)
    with _stoppable() as stop:
        try:
            meta = run_selfplay(
                spec.id,
                games,
                out,
                bot=bot,
                seed=seed,
                players=players,
                options=options,
                backend=backend,
                address=address,
                workers=workers,
                progress=_progress(f"selfplay {spec.id}", quiet),
            )
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
    note = f" (PARTIAL: {meta['games']} of {games}, the run was stopped)" if meta.get("partial") else ""
    where = out / meta["files"]["trajectories"]
    typer.echo(f"wrote {meta['rows']} decisions of {meta['games']} games{note} to {where}")
    if meta.get("partial"):
        raise typer.Exit(stop.exit_code)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    database: Annotated[
        str | None, typer.Option(help="Database URL (default: SQLite in --data-dir; THRONE_DATABASE_URL).")
    ] = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default ./data).")] = None,
    abandon_timeout: Annotated[
        float | None, typer.Option(help="Seconds before a bot takes over a vanished player's seat.")
    ] = None,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
    log_format: Annotated[
        str, typer.Option(help="text, or json: one JSON object a line (THRONE_LOG_FORMAT).")
    ] = "",
    redis: Annotated[
        str | None,
        typer.Option(
            help="Redis URL shared by the nodes of a cluster (THRONE_REDIS_URL); needs a shared PostgreSQL "
            "--database. Default: one process owns every game."
        ),
    ] = None,
    store: Annotated[
        str,
        typer.Option(
            help="Where the database calls run: process (a store process of their own, the default) or "
            "threads (threads of the server's process; THRONE_STORE)."
        ),
    ] = "",
) -> None:
    """Run the web app and game server (migrations run first)."""
    extras.require("server", "`throne serve`")
    from throne import logs
    from throne.server import run

    try:
        settings = run.make_settings(database, data_dir, abandon_timeout)
        logs.chosen_format(log_format or None)
        if log_level.lower() not in logs.LEVELS:
            raise ValueError(f"unknown log level {log_level!r}: {', '.join(logs.LEVELS)}")
    except ValueError as exc:
        _refuse("serve", str(exc))
    if redis:
        settings.redis_url = redis
    store = store or os.environ.get("THRONE_STORE") or "process"
    if store not in ("process", "threads"):
        _refuse("serve", f"--store is process or threads, not {store!r}")
    settings.store_process = store == "process"
    try:
        run.prepare_database(settings)
        run.check_services(settings)
    except run.StartupError as exc:
        _refuse("serve", str(exc), status=1)
    run.serve(host, port, settings, log_level=log_level, log_format=log_format or None)


def _refuse(command: str, message: str, status: int = 2) -> NoReturn:
    """Stops a command with one line: status 2 for a bad option or setting, 1 for a service that fails."""
    typer.echo(f"throne {command}: {message}", err=True)
    raise typer.Exit(status)


@app.command()
def cluster(
    nodes: Annotated[int, typer.Option(min=1, max=16, help="How many `throne serve` nodes.")] = 3,
    port: Annotated[
        int, typer.Option(min=1, max=65535, help="The port of HAProxy, the one address of the cluster.")
    ] = 8000,
    data_dir: Annotated[
        Path, typer.Option(help="Where PostgreSQL keeps its data and every process its log.")
    ] = Path("data/cluster"),
) -> None:
    """A local cluster on loopback: PostgreSQL, Redis, several nodes and HAProxy (docs/deploy.md)."""
    extras.require("server", "`throne cluster`")
    from throne.server.cluster import local

    try:
        local.run(data_dir, nodes, port)
    except local.ClusterError as exc:
        typer.echo(f"throne cluster: {exc}", err=True)
        raise typer.Exit(1) from None


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade(
    database: Annotated[str | None, typer.Option(help="Database URL (default: SQLite, --data-dir).")] = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default ./data).")] = None,
) -> None:
    """Apply every database migration."""
    extras.require("server", "`throne db upgrade`")
    from throne.server import run
    from throne.store.db import shown_url

    try:
        settings = run.make_settings(database, data_dir)
    except ValueError as exc:
        _refuse("db upgrade", str(exc))
    try:
        url = run.prepare_database(settings)
    except run.StartupError as exc:
        _refuse("db upgrade", str(exc), status=1)
    typer.echo(f"database at head: {shown_url(url)}")


def _backend_needs(backend: str, command: str) -> None:
    if backend == "ray":
        extras.require("ray", f"`throne {command} --backend ray`")


def main() -> None:
    """The `throne` command; a missing optional extra is one line on stderr and exit status 1."""
    try:
        app()
    except extras.MissingExtra as exc:
        print(exc, file=sys.stderr)
        sys.exit(1)
    except ModuleNotFoundError as exc:
        extra = extras.extra_of(exc.name)
        if extra is None:
            raise
        command = " ".join(["throne", *sys.argv[1:2]])
        print(extras.message(extra, f"`{command}`"), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
