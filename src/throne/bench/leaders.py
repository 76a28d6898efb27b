"""`throne bench leaders`: random-playout and apply/undo speed of the Leaders engine (one core).

Rates are per CPU second of this process (``time.process_time``), so that a busy shared machine does not
distort them; on an idle machine they match wall-clock rates of this single-threaded loop.
"""

from __future__ import annotations

import random
import statistics
import time

from throne.games import leaders
from throne.progress import Progress


def playout(seed: int) -> int:
    """One random game through the fast path (legal_actions + apply); returns the number of actions."""
    rng = random.Random(seed)
    st = leaders.new_game(seed=seed)
    n = 0
    while not st.is_over:
        st.apply(rng.choice(st.legal_actions()))
        n += 1
    return n


def measure_playouts(seconds: float, seed0: int = 0) -> tuple[float, float]:
    """(games/s, actions/s) of random playouts during about ``seconds``."""
    games = actions = 0
    start = time.process_time()
    while True:
        actions += playout(seed0 + games)
        games += 1
        now = time.process_time()
        if now - start >= seconds:
            break
    elapsed = now - start
    return games / elapsed, actions / elapsed


def sample_states(count: int, seed: int = 0) -> list[leaders.State]:
    """Positions met in random games (not finished), for the apply/undo loop."""
    rng = random.Random(seed)
    out: list[leaders.State] = []
    while len(out) < count:
        st = leaders.new_game(seed=rng.randrange(1 << 30))
        for _ in range(rng.randrange(5, 120)):
            if st.is_over:
                break
            st.apply(rng.choice(st.legal_actions()))
        if not st.is_over:
            out.append(st)
    return out


def measure_apply_undo(seconds: float, states: list[leaders.State]) -> float:
    """apply+undo pairs per second over every legal action of the sampled positions."""
    work = [(st, st.legal_actions()) for st in states]
    pairs = 0
    start = time.process_time()
    while True:
        for st, acts in work:
            apply, undo = st.apply, st.undo
            for a in acts:
                apply(a)
                undo()
            pairs += len(acts)
        now = time.process_time()
        if now - start >= seconds:
            break
    return pairs / (now - start)


def measure_strings(seconds: float, seed0: int = 0) -> float:
    """Moves/s of random games through the string API (legal_moves + play, with validation)."""
    moves = 0
    start = time.process_time()
    g = 0
    while True:
        rng = random.Random(seed0 + g)
        st = leaders.new_game(seed=seed0 + g)
        while not st.is_over:
            st.play(rng.choice(st.legal_moves()))
            moves += 1
        g += 1
        now = time.process_time()
        if now - start >= seconds:
            break
    return moves / (now - start)


def run(runs: int = 5, seconds: float = 2.0, progress: Progress | None = None) -> bool:
    """Print medians of ``runs`` timed runs of each measurement; False when Ctrl-C cut the runs short."""
    bar = progress or Progress.off()
    bar.start(runs * 3)  # three timed measurements per run
    states = sample_states(200)
    rows = []
    complete = False
    try:
        for r in range(runs):
            g, a = measure_playouts(seconds, seed0=1000 * r)
            bar.advance()
            undo = measure_apply_undo(seconds, states)
            bar.advance()
            rows.append((g, a, undo, measure_strings(seconds, seed0=1000 * r)))
            bar.advance()
        complete = True
    except KeyboardInterrupt:
        if not rows:
            raise
    finally:
        bar.close(stopped=not complete)
    med = [statistics.median(row[i] for row in rows) for i in range(4)]
    print(
        f"Leaders engine, one core, median of {len(rows)} runs of {seconds:g} s "
        f"of CPU time (NUM_ACTIONS={leaders.NUM_ACTIONS})"
    )
    print(f"{'measure':<34} {'median':>12}")
    print(f"{'random playouts: games/s':<34} {med[0]:>12.1f}")
    print(f"{'random playouts: actions/s':<34} {med[1]:>12.0f}")
    print(f"{'apply+undo pairs/s':<34} {med[2]:>12.0f}")
    print(f"{'string API (legal_moves+play)/s':<34} {med[3]:>12.0f}")
    print(f"{'actions per game':<34} {med[1] / med[0]:>12.1f}")
    if not complete:
        print(f"PARTIAL: {len(rows)} of {runs} runs (the benchmark was stopped)")
    return complete
