"""Terminal play and replay of Hidden Leaders, driven by an injected input function."""

from __future__ import annotations

import re

import pytest

from throne.games import hidden_leaders as hl
from throne.terminal import hidden_leaders as term


def run_game(seed: int, answers: str = "1") -> list[str]:
    out: list[str] = []
    term.play(players=3, seat=1, seed=seed, input_fn=lambda _prompt: answers, out=out.append)
    return out


def test_plays_a_whole_game_by_numbers() -> None:
    out = run_game(seed=4)
    text = "\n".join(out)
    assert "Game over. Winning faction:" in text
    assert "Your leader:" in text and "Power track" in text and ">>" in text
    assert re.search(r"\s1\. ", text)  # numbered options


def test_log_never_shows_other_seats_secret_moves() -> None:
    out = run_game(seed=9)
    log = [line for line in out if re.match(r"seat \d: ", line)]
    assert log
    for line in log:
        move = line.split(": ", 1)[1]
        assert not move.startswith("keep"), line
        assert not re.match(r"discard [a-z]", move), line
    assert any(line.endswith(": setup") for line in log)


def test_accepts_move_strings_and_rejects_nonsense() -> None:
    st = hl.new_game(players=3, seed=4)
    first = st.legal_moves()[0]
    answers = iter(["nonsense", "99", first, "q"])
    out: list[str] = []
    term.play(players=3, seat=0, seed=4, input_fn=lambda _p: next(answers), out=out.append)
    text = "\n".join(out)
    assert "'nonsense' is not one of the options" in text and "'99' is not one of the options" in text
    assert "Game abandoned." in text


def test_unknown_opponent_is_a_clear_error() -> None:
    with pytest.raises(SystemExit, match="unknown opponent 'mcts'"):
        term.play(opponent="mcts", input_fn=lambda _p: "1", out=lambda _s: None)
    with pytest.raises(ValueError, match="unknown opponent"):
        term._bot_move(hl.new_game(seed=1), 0, "grandmaster", __import__("random").Random(1))


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(SystemExit, match="seat"):
        term.play(players=3, seat=5, input_fn=lambda _p: "1", out=lambda _s: None)
    with pytest.raises(SystemExit, match="module"):
        term.play(modules=("core", "nope"), input_fn=lambda _p: "1", out=lambda _s: None)


def test_replay_steps_through_a_record() -> None:
    import random

    st = hl.new_game(players=3, seed=8)
    rng = random.Random(8)
    while not st.is_over:
        st.play(rng.choice(st.legal_moves()))
    out: list[str] = []
    term.replay(st.record(), input_fn=lambda _p: "", out=out.append)
    text = "\n".join(out)
    assert "Game over." in text and f"#{len(st.history)} seat" in text
    assert "hand of seat 0:" in text  # the end reveals every hand
    early = "\n".join(out[:40])
    assert "keep " not in early  # setup choices are shown in their public form
    out.clear()
    term.replay(st.record(), input_fn=lambda _p: "q", out=out.append)
    assert "Game over." not in "\n".join(out)


def test_replay_rejects_a_bad_record() -> None:
    with pytest.raises(SystemExit, match="move 0"):
        term.replay({"game": "hidden-leaders", "players": 3, "seed": 1, "moves": [[0, "pass"]]},
                    input_fn=lambda _p: "", out=lambda _s: None)


def test_track_marks_both_markers_and_the_war_zone() -> None:
    line = term.track(9, 9)
    assert " 9RG" in line and "[" in line and "war" in line


def test_track_marks_the_guardian_marker() -> None:
    line = term.track(4, 6, 6)
    assert " 4R " in line and " 6G*" in line
    assert "*" not in term.track(4, 6)


def test_plays_a_legends_game() -> None:
    """`throne play hidden-leaders --modules core,legends`: the third marker, the pool sizes, the Fate."""
    out: list[str] = []
    term.play(players=3, seat=0, seed=11, modules=("core", "legends"), input_fn=lambda _p: "1",
              out=out.append)
    text = "\n".join(out)
    assert "Guardian *=" in text and "Leader pool (secret): 3 base and 1 Guardian leaders" in text
    assert "If the game ended now:" in text and "Game over. Winning faction:" in text
    assert re.search(r"Final markers R=\d+ G=\d+, Guardian \d+\.", text)


def test_render_shows_a_pending_fate_to_its_chooser_only() -> None:
    from tests.games.hidden_leaders.helpers import run_card

    st = run_card("baneful-beacon", {"modules": ("core", "legends"), "parties": {1: "huggable-hulk"}},
                  ["R-1", "1:huggable-hulk"])
    mine, theirs = term.render(st.view(0)), term.render(st.view(1))
    assert "Your Fate cards:" in mine and "Your Fate cards:" not in theirs
    assert "Seat 0 chooses 1 of 2 Fate cards (Huggable Hulk was buried)" in theirs


def test_help_card_texts_faction_names_and_a_narrated_log() -> None:
    answers = iter(["help", "1", *["1"] * 400])
    out: list[str] = []
    term.play(players=3, seat=1, seed=4, input_fn=lambda _p: next(answers), out=out.append)
    text = "\n".join(out)
    assert "Goal: at the end" in text and "Water Folk     the markers at most 1 apart" in text
    assert "allied with Undead and Hill Tribes" in text  # faction names, not ids
    assert re.search(r"^  Curious Troll \(Hill Tribes\): R\+1 OR G\+1; You may secretly look", text, re.M)
    assert re.search(r"^  Seat \d played [A-Z]", text, re.M)  # others' card plays, in words
    assert re.search(r"^  Seat \d drew a hidden card from the Harbor", text, re.M)
    assert re.search(r"^  \w[\w ]+ win: ", text, re.M)  # why the game ended
