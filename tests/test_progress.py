"""The progress display (plain lines, live bar, nothing) and the stop on SIGINT/SIGTERM."""

from __future__ import annotations

import io
import os
import signal

import pytest

from throne.progress import Progress, shielded, stop_on_signals


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_count_rate_eta_and_status(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THRONE_PROGRESS_EVERY", "0")
    out = io.StringIO()
    bar = Progress("arena", stream=out)
    assert bar.mode == "plain"  # not a terminal
    bar.start(5, done=2)
    bar.advance(status="x 1/3")
    bar.close(stopped=True)
    first, last = out.getvalue().splitlines()
    assert first.startswith("arena: 3/5 games (60%), ") and "games/s, ETA " in first
    assert first.endswith("; x 1/3")
    assert last.endswith("(stopped)")
    assert bar.rate() > 0 and bar.eta() is not None


def test_plain_lines_wait_for_their_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THRONE_PROGRESS_EVERY", "3600")
    out = io.StringIO()
    bar = Progress("selfplay", stream=out)
    bar.start(3)
    for _ in range(3):
        bar.advance()
    assert out.getvalue() == ""
    bar.close()
    assert out.getvalue().splitlines() == [out.getvalue().strip()]
    assert "3/3 games (100%)" in out.getvalue() and out.getvalue().strip().endswith("(done)")


def test_live_bar_on_a_terminal() -> None:
    out = Tty()
    bar = Progress("tournament", stream=out)
    assert bar.mode == "rich"
    bar.start(4)
    bar.advance(2, status="score so far")
    bar.close(stopped=True)
    text = out.getvalue()
    assert "2/4" in text and "games/s" in text and "ETA" in text and "score so far" in text
    assert "tournament: stopped after 2/4 games" in text


def test_quiet_writes_nothing() -> None:
    out = Tty()
    bar = Progress("arena", mode="off", stream=out)
    bar.start(2)
    bar.advance()
    bar.close()
    assert out.getvalue() == ""


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="progress mode"):
        Progress("arena", mode="loud")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_become_one_interrupt(signum: int) -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), stop_on_signals() as stop:
        os.kill(os.getpid(), signum)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # a point where Python runs the handler
    assert stop.signum == signum and stop.exit_code == 128 + signum
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_shielded_block_finishes_before_the_interrupt() -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt), stop_on_signals() as stop:
        with shielded():
            os.kill(os.getpid(), signal.SIGINT)
            signal.pthread_sigmask(signal.SIG_BLOCK, [])
            steps.append("recorded")
        steps.append("not reached")
    assert steps == ["recorded"] and stop.signum == signal.SIGINT
