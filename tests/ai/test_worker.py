"""The worker-process move service: legal moves, deadlines, crashes and cancellation."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading

import pytest

from tests import asyncrun
from throne import ai
from throne.ai import worker

from .toy import Nim, TicTacToe


def test_choose_move_returns_a_legal_move_in_a_worker() -> None:
    state = TicTacToe()
    state.play("b2")
    move = ai.choose_move("tictactoe", state, 1, "random", seed=3, timeout=30)
    assert move in state.legal_moves()


def test_same_seed_same_move() -> None:
    state = Nim([5, 6, 7], players=3)
    moves = {ai.choose_move("nim", state, 0, "random", seed=11, timeout=30) for _ in range(3)}
    assert len(moves) == 1


@pytest.mark.parametrize(
    ("bot", "timeout", "reason"),
    [
        ("crash", 30.0, "error: RuntimeError"),
        ("illegal", 30.0, "illegal move"),
        ("exit", 30.0, "crash"),
        ("sleep", 0.5, "timeout"),
    ],
)
def test_failing_bot_is_replaced_by_a_legal_fallback(
    bot: str, timeout: float, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    state = TicTacToe()
    with caplog.at_level(logging.WARNING, logger="throne.ai"):
        move = ai.choose_move("tictactoe", state, 0, bot, seed=5, timeout=timeout)
    assert move in state.legal_moves()
    assert any(reason in r.getMessage() for r in caplog.records)
    # the pool survives: a healthy bot still answers
    assert ai.choose_move("tictactoe", state, 0, "random", seed=5, timeout=30) in state.legal_moves()


@pytest.mark.parametrize(
    ("game", "bot", "seat", "error"),
    [
        ("chess", "random", 0, ai.UnknownGameError),
        ("tictactoe", "deep-blue", 0, ai.UnknownBotError),
        ("tictactoe", "random", 1, ai.NotToPlayError),
    ],
)
def test_bad_requests_raise_value_errors(game: str, bot: str, seat: int, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        ai.choose_move(game, TicTacToe(), seat, bot, seed=0, timeout=5)
    assert isinstance(info.value, ValueError)


def test_finished_game_has_no_move() -> None:
    state = TicTacToe()
    for move in ["a1", "a2", "b1", "b2", "c1"]:
        state.play(move)
    with pytest.raises(ai.NotToPlayError):
        ai.choose_move("tictactoe", state, 1, "random", seed=0, timeout=5)


def test_async_choose_move_does_not_block_the_loop() -> None:
    async def main() -> tuple[str, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick_task = asyncio.create_task(ticker())
        move = await ai.choose_move_async("tictactoe", TicTacToe(), 0, "sleep", seed=1, timeout=0.6)
        tick_task.cancel()
        return move, ticks

    move, ticks = asyncrun.run(main())
    assert move in TicTacToe().legal_moves()
    assert ticks > 5


def test_cancelled_async_request_kills_its_search() -> None:
    async def main() -> None:
        task = asyncio.create_task(
            ai.choose_move_async("tictactoe", TicTacToe(), 0, "sleep", seed=1, timeout=120)
        )
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncrun.run(main())
    # the sleeping worker is killed, every other one is idle, and the pool answers
    idle = {w.process.pid for pool in worker._pools.values() for w in pool._idle}
    assert {p.pid for p in multiprocessing.active_children() if p.name == "throne-ai"} == idle
    move = asyncrun.run(ai.choose_move_async("tictactoe", TicTacToe(), 0, "random", seed=2, timeout=30))
    assert move in TicTacToe().legal_moves()


def test_concurrent_async_requests() -> None:
    async def main() -> list[str]:
        states = [Nim([3, 4, 5], players=2) for _ in range(6)]
        return await asyncio.gather(
            *(ai.choose_move_async("nim", s, 0, "random", seed=i, timeout=30) for i, s in enumerate(states))
        )

    moves = asyncrun.run(main())
    assert all(m in Nim([3, 4, 5]).legal_moves() for m in moves)


def test_run_job_in_process_matches_the_worker() -> None:
    state = Nim([2, 7, 1], players=4)
    job, _legal = worker._prepare("nim", state, 0, "random", seed=9, timeout=10)
    assert worker.run_job(job) == ai.choose_move("nim", state, 0, "random", seed=9, timeout=30)


@pytest.mark.parametrize(
    ("bot", "timeout", "status"),
    [("crash", 30.0, "error"), ("exit", 30.0, "crash"), ("sleep", 0.5, "timeout"), ("random", 30.0, "ok")],
)
def test_the_async_pool_reports_what_became_of_a_job_and_replaces_a_lost_worker(
    bot: str, timeout: float, status: str
) -> None:
    pool = worker.AsyncWorkerPool(1)

    async def main() -> tuple[worker.Outcome, worker.Outcome]:
        job, _legal = worker._prepare("tictactoe", TicTacToe(), 0, bot, seed=5, timeout=timeout)
        outcome = await pool.run(job, timeout)
        healthy, _legal = worker._prepare("tictactoe", TicTacToe(), 0, "random", seed=5, timeout=30)
        return outcome, await pool.run(healthy, 30)

    try:
        outcome, after = asyncrun.run(main())
    finally:
        pool.shutdown()
    assert outcome.status == status, outcome
    assert after.status == "ok" and after.move in TicTacToe().legal_moves()


def test_the_async_pool_hands_turns_on_past_cancelled_calls() -> None:
    """One worker, three calls: the first (a bot that sleeps) is cancelled while it runs, and the second,
    which waits for its turn, at once, before the turn handed to it arrives; the third still gets the
    worker, and no turn is left taken."""
    pool = worker.AsyncWorkerPool(1)
    sleeping, _ = worker._prepare("tictactoe", TicTacToe(), 0, "sleep", seed=1, timeout=120)
    quick, _ = worker._prepare("tictactoe", TicTacToe(), 0, "random", seed=1, timeout=30)

    async def main() -> worker.Outcome:
        running = asyncio.create_task(pool.run(sleeping, 120))
        await asyncio.sleep(0.3)
        waiting = asyncio.create_task(pool.run(quick, 30))
        last = asyncio.create_task(pool.run(quick, 30))
        await asyncio.sleep(0.1)
        assert len(pool._waiters) == 2
        running.cancel()
        waiting.cancel()
        for task in (running, waiting):
            with pytest.raises(asyncio.CancelledError):
                await task
        return await asyncio.wait_for(last, 30)  # a turn left taken would keep it waiting

    try:
        outcome = asyncrun.run(main())
        assert outcome.status == "ok" and pool._busy == 0 and not pool._waiters
    finally:
        pool.shutdown()


def test_event_loops_on_two_threads_share_the_async_pool() -> None:
    pool = worker.AsyncWorkerPool(1)
    job, legal = worker._prepare("nim", Nim([3, 4, 5], players=2), 0, "random", seed=3, timeout=30)
    answers: list[list[worker.Outcome]] = []

    async def three() -> list[worker.Outcome]:
        return list(await asyncio.gather(*(pool.run(job, 30) for _ in range(3))))

    threads = [threading.Thread(target=lambda: answers.append(asyncio.run(three()))) for _ in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        pool.shutdown()
    assert len(answers) == 2 and all(o.status == "ok" and o.move in legal for row in answers for o in row)
    assert pool._busy == 0
