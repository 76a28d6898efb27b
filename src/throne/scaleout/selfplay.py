"""Self-play: bots play whole games and every decision is written as one row of a Parquet table.

Output (`DIR/trajectories.parquet`, zstd-compressed, plus `DIR/meta.json`), one row per decision:

| column | type | meaning |
|---|---|---|
| `game` | int32 | game number in this run (0..N-1) |
| `seed` | int64 | deal seed of the game (`seed + game`) |
| `step` | int32 | decision number within the game |
| `seat` | int8 | the deciding seat |
| `observation` | fixed_size_list<float32> | the deciding seat's observation, flattened (shape in meta.json) |
| `legal_actions` | list<int32> | ids of the legal actions: the mask is `zeros(num_actions)`, 1 there |
| `action` | int32 | the id chosen |
| `return` | float32 | the deciding seat's final return: +1 win, −1 loss, 0 when nobody won |

Observations and ids are those of the PettingZoo/Gymnasium/OpenSpiel adapters (docs/research-api.md). Game `i`
is fully determined by the game, the bot and `seed + i`, whichever backend plays it. Games are written in
order as they finish; a run stopped by Ctrl-C writes every game it finished (a closed, readable file) and
marks `meta.json` partial, with the numbers of the games it holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from throne.extras import require
from throne.games import registry as game_registry
from throne.progress import Progress, shielded
from throne.scaleout.backend import check_backend, imap_unordered

require("rl", "`throne.scaleout.selfplay`")

import numpy as np  # noqa: E402 - after the check of the extra

FORMAT = "throne-selfplay-1"


@dataclass(frozen=True)
class SelfplayJob:
    game: str
    bot: str
    seed: int
    index: int
    players: int = 4
    options: tuple[tuple[str, Any], ...] = ()


def _codec(job: SelfplayJob) -> Any:
    from throne.rl.codec import make_codec

    return make_codec(job.game, players=job.players, options=dict(job.options))


def play_selfplay(job: SelfplayJob) -> dict[str, np.ndarray]:
    """Play one game (every seat the same bot) and return its decisions as arrays."""
    from throne import ai

    codec = _codec(job)
    state = codec.new_state(job.seed)
    seats = codec.num_players
    bots = [ai.make_bot(job.game, job.bot, seed=job.seed * 101 + seat * 7 + 1) for seat in range(seats)]
    observations, legal, actions, who = [], [], [], []
    while not state.is_over:
        seat = state.to_play
        options = codec.legal_actions(state)
        ids = {move: a for a, move in options.items()}
        move = bots[seat].choose(state, seat)
        action = ids[move] if move in ids else codec.action_of(state, move)
        observations.append(codec.observe(state, seat).ravel())
        legal.append(np.fromiter(options, dtype=np.int32, count=len(options)))
        actions.append(action)
        who.append(seat)
        codec.apply(state, action, options[action])
    final = np.asarray(codec.returns(state), dtype=np.float32)
    seat_array = np.asarray(who, dtype=np.int8)
    return {
        "observation": np.stack(observations) if observations else np.zeros((0, codec_size(codec)), "f4"),
        "legal_actions": legal,
        "action": np.asarray(actions, dtype=np.int32),
        "seat": seat_array,
        "return": final[seat_array.astype(np.int64)] if len(seat_array) else np.zeros(0, np.float32),
        "index": np.int32(job.index),
        "seed": np.int64(job.seed),
    }


def codec_size(codec: Any) -> int:
    return int(np.prod(codec.obs_shape))


def _table(game: dict[str, Any], width: int) -> Any:
    import pyarrow as pa

    n = len(game["action"])
    flat = pa.array(game["observation"].reshape(-1), type=pa.float32())
    return pa.table(
        {
            "game": pa.array(np.full(n, game["index"], np.int32)),
            "seed": pa.array(np.full(n, game["seed"], np.int64)),
            "step": pa.array(np.arange(n, dtype=np.int32)),
            "seat": pa.array(game["seat"]),
            "observation": pa.FixedSizeListArray.from_arrays(flat, width),
            "legal_actions": pa.array([a.tolist() for a in game["legal_actions"]], type=pa.list_(pa.int32())),
            "action": pa.array(game["action"]),
            "return": pa.array(game["return"], type=pa.float32()),
        }
    )


def run_selfplay(
    game: str,
    games: int,
    out: Path,
    *,
    bot: str = "random",
    seed: int = 0,
    players: int | None = None,
    options: dict[str, Any] | None = None,
    backend: str = "pool",
    address: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play `games` self-play games on `backend` and write them to `out`; returns the metadata written.

    Ctrl-C ends the run early: the finished games are written and the metadata says `"partial": true`.
    """
    import pyarrow.parquet as pq

    from throne import ai

    ai.bot_entry(game, bot)  # an unknown game or bot fails before any work starts
    if games < 1:
        raise ValueError(f"self-play needs at least one game, got {games}")
    check_backend(backend, address, workers)
    spec = game_registry.get(game)
    players = spec.seats_default if players is None else players
    codec_options = spec.normalize_options(players, options)
    items = tuple(sorted(codec_options.items()))
    jobs = [SelfplayJob(game, bot, seed + i, i, players, items) for i in range(games)]
    codec = _codec(jobs[0])
    width = codec_size(codec)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "trajectories.parquet"
    rows = 0
    writer = None
    waiting: dict[int, dict[str, Any]] = {}  # finished games not yet written (one before them is running)
    written: list[int] = []

    def write(result: dict[str, Any]) -> None:
        nonlocal writer, rows
        table = _table(result, width)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
        writer.write_table(table)
        rows += table.num_rows
        written.append(int(result["index"]))

    bar = progress or Progress.off()
    bar.start(games)
    complete = False
    try:
        for position, result in imap_unordered(play_selfplay, jobs, backend, address, workers=workers):
            with shielded():
                waiting[position] = result
                while len(written) in waiting:
                    write(waiting.pop(len(written)))
            bar.advance()
        complete = True
    except KeyboardInterrupt:
        pass
    finally:
        bar.close(stopped=not complete)
        for position in sorted(waiting):
            write(waiting.pop(position))
        if writer is not None:
            writer.close()
    if not written:
        raise KeyboardInterrupt  # stopped before the first game ended: nothing to write
    meta = {
        "format": FORMAT,
        "game": game,
        "players": codec.num_players,
        "options": codec_options,
        "bot": bot,
        "games": len(written),
        "seed": seed,
        "rows": rows,
        "observation_shape": list(codec.obs_shape),
        "num_actions": codec.num_actions,
        "files": {"trajectories": path.name},
    }
    if len(written) < games:
        meta.update(partial=True, games_planned=games, game_numbers=written)
    (out / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def load_selfplay(out: Path) -> tuple[dict[str, Any], Any]:
    """`(meta, pyarrow.Table)` of a self-play directory."""
    import pyarrow.parquet as pq

    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    return meta, pq.read_table(out / meta["files"]["trajectories"])
