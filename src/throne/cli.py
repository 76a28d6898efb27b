"""The `throne` command line: thin wrappers that import the part they need only when it runs."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="throne",
    help="Play and study Leaders and Hidden Leaders.",
    no_args_is_help=True,
    add_completion=False,
)


class Game(StrEnum):
    leaders = "leaders"
    hidden_leaders = "hidden-leaders"


@app.command()
def play(
    game: Annotated[Game, typer.Argument(help="Which game to play.")],
    opponent: Annotated[
        str, typer.Option(help="'human' (hot seat), 'random', or a bot name or level (see `throne bots`).")
    ] = "random",
    side: Annotated[str, typer.Option(help="Leaders: your side, S or N.")] = "S",
    players: Annotated[int, typer.Option(help="Hidden Leaders: number of players (2-6).")] = 4,
    seat: Annotated[int, typer.Option(help="Hidden Leaders: your seat (0 moves first).")] = 0,
    modules: Annotated[str, typer.Option(help="Hidden Leaders: comma-separated card modules.")] = "core",
    variant: Annotated[str, typer.Option(help="Hidden Leaders: 'full' or 'basic'.")] = "full",
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (random if omitted).")] = None,
) -> None:
    """Play a game in the terminal."""
    if game is Game.leaders:
        from throne.terminal import leaders as term

        term.play(opponent=opponent, side=side, seed=seed)
    else:
        from throne.terminal import hidden_leaders as term

        term.play(
            players=players,
            seat=seat,
            opponent=opponent,
            modules=tuple(m.strip() for m in modules.split(",") if m.strip()),
            variant=variant,
            seed=seed,
        )


@app.command()
def replay(file: Annotated[Path, typer.Argument(help="A game record (JSON) saved by Throne.")]) -> None:
    """Step through a saved game record."""
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise typer.BadParameter(f"cannot read a game record from {file}: {exc}") from exc
    kind = record.get("game") if isinstance(record, dict) else None
    if kind == "leaders":
        from throne.terminal import leaders as term
    elif kind == "hidden-leaders":
        from throne.terminal import hidden_leaders as term
    else:
        raise typer.BadParameter(f"{file} is not a Throne game record (its 'game' field is {kind!r})")
    term.replay(record)


@app.command()
def bench(
    game: Annotated[Game, typer.Argument(help="Which engine to measure.")],
    runs: Annotated[int, typer.Option(help="Repetitions; the median is reported.")] = 5,
    seconds: Annotated[float, typer.Option(help="Length of each timed run.")] = 2.0,
) -> None:
    """Measure engine speed (random playouts, apply/undo); prints medians of several runs."""
    if game is Game.leaders:
        from throne.bench import leaders as mod
    else:
        from throne.bench import hidden_leaders as mod
    mod.run(runs=runs, seconds=seconds)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
