"""Terminal play and replay of Leaders, driven by scripted input."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from throne.games import leaders
from throne.terminal import leaders as term


def scripted(lines: list[str]) -> tuple[Console, io.StringIO, object]:
    buf = io.StringIO()
    console = Console(file=buf, width=120, color_system=None)
    it: Iterator[str] = iter(lines)

    def fake_input(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return console, buf, fake_input


def test_hot_seat_moves_errors_undo_save(tmp_path: Path) -> None:
    out_file = tmp_path / "game.json"
    script = ["help", "moves", "d1-d2", "d9-a1", "d2-d3", "end", "+QQ@a1", "undo", "end"]
    console, buf, fake = scripted([*script, f"save {out_file}", "quit"])
    term.play(opponent="human", seed=7, console=console, input_fn=fake)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "d1-c1 d1-d2 d1-e1 end" in text
    assert "unknown cell 'd9'" in text
    assert "the Leader on d2 has already acted" in text
    assert "unknown card code 'QQ'" in text
    assert "[L ]" in text and "(l )" in text
    record = json.loads(out_file.read_text(encoding="utf-8"))
    assert record["moves"] == ["d1-d2", "end"]
    assert leaders.record_to_state(record).phase == "recruit"


def test_against_random_undo_goes_back_to_own_decision() -> None:
    console, buf, fake = scripted(["d1-d2", "end", "+RG@a1", "undo", "undo", "quit"])
    term.play(opponent="random", side="S", seed=7, console=console, input_fn=fake)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "North plays" in text
    assert text.count("Turn 1: South's turn, recruit phase") >= 2


def test_human_as_north_bot_moves_first() -> None:
    console, buf, fake = scripted(["quit"])
    term.play(opponent="random", side="N", seed=1, console=console, input_fn=fake)  # type: ignore[arg-type]
    assert "South plays" in buf.getvalue()


def test_unknown_opponent_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown opponent 'grandmaster'"):
        term.play(opponent="grandmaster", console=Console(file=io.StringIO()), input_fn=lambda p: "quit")


def test_bot_move_is_legal() -> None:
    import random

    st = leaders.new_game(seed=5)
    assert term._bot_move(st, "random", random.Random(0)) in st.legal_moves()


def test_replay_steps_forward_and_back() -> None:
    st = leaders.new_game(seed=2)
    for m in ["d1-d2", "end"]:
        st.play(m)
    st.play(st.legal_moves()[0])
    console, buf, fake = scripted(["", "", "b", "", "", "", "q"])
    term.replay(st.record(), console=console, input_fn=fake)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "Move 0 of 3 (start)" in text
    assert "Move 2 of 3: end" in text
    assert text.count("Move 1 of 3: d1-d2") == 2
    assert "End of the record." in text


def test_replay_rejects_corrupt_record() -> None:
    console, buf, fake = scripted(["q"])
    rec = leaders.new_game(seed=2).record()
    rec["moves"] = ["d1-d5"]
    term.replay(rec, console=console, input_fn=fake)  # type: ignore[arg-type]
    assert "Cannot replay" in buf.getvalue() and "move 1" in buf.getvalue()


def test_strategist_mode_banishes_then_recruits_from_every_card(tmp_path: Path) -> None:
    out_file = tmp_path / "game.json"
    script = ["ban NE", "ban NE", "ban AS", "end", "+VI@a1", f"save {out_file}", "quit"]
    console, buf, fake = scripted(script)
    term.play(opponent="human", mode="strategist", console=console, input_fn=fake)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "Leaders (Strategist mode)" in text
    assert "North banishes a card" in text and "South banishes a card" in text
    assert "NE cannot be banished: it is already banished" in text
    assert "banished: NE AS" in text
    record = json.loads(out_file.read_text(encoding="utf-8"))
    assert record["moves"] == ["ban NE", "ban AS", "end", "+VI@a1"]
    assert "mode=strategist" in record["start"]


def test_cli_offers_the_strategist_mode() -> None:
    from typer.testing import CliRunner

    from throne.cli import app

    result = CliRunner().invoke(
        app, ["play", "leaders", "--mode", "strategist", "--opponent", "human"], input="moves\nquit\n"
    )
    assert result.exit_code == 0, result.output
    assert "ban AC" in result.output
    bad = CliRunner().invoke(app, ["play", "leaders", "--mode", "expert"])
    assert bad.exit_code != 0 and "unknown Leaders mode" in bad.output


def test_moves_are_narrated_and_turns_count_both_sides() -> None:
    console, buf, fake = scripted(["d1-d2", "end", "+RG@a1", "quit"])
    term.play(opponent="random", side="S", seed=7, console=console, input_fn=fake)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "  Your Leader moved d1 → d2" in text
    assert "  You recruited the Royal Guard at a1" in text and "  You ended turn 1" in text
    assert re.search(r"  North's \w+.* moved ", text) or "  North recruited" in text  # the bot's turn
    assert "Turn 2: South's turn" in text and "Turn 3" not in text  # South and North share turn 1
