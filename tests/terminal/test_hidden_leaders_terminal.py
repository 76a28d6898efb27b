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


def test_accepts_numbers_and_rejects_nonsense() -> None:
    answers = iter(["nonsense", "99", "2", "1", "nonsense", "q"])
    out: list[str] = []
    term.play(players=3, seat=0, seed=4, input_fn=lambda _p: next(answers), out=out.append)
    text = "\n".join(out)
    assert "'nonsense' is not one of the cards" in text and "'99' is not one of the cards" in text
    assert "'nonsense' is not one of the options" in text
    assert "Game abandoned." in text


def _play_scripted(answers: list[str], seed: int = 4) -> tuple[list[str], list[str]]:
    """Seat 0 of a 3-player game answering ``answers`` then quitting; the output and the questions asked."""
    it = iter(answers)
    out: list[str] = []
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return next(it, "q")

    term.play(players=3, seat=0, seed=seed, input_fn=answer, out=out.append)
    return out, asked


def test_setup_is_two_choices_among_the_hand_not_every_pair() -> None:
    out, asked = _play_scripted(["2", "1"])
    text = "\n".join(out)
    assert not re.search(r"keep \S+ discard", text)  # no line per (keep, discard) pair
    assert asked[:2] == ["Card to keep face down (number, 'help', 'q' to quit): ",
                         "Card to discard (number): "]
    # seed 4: the hand is Amazon, Oracle, Northman, Frogmage, Monsterslayer; keep #2, discard #1 of the rest
    assert "You put Tentacle Oracle face down into your party" in text
    assert "You discarded Overworked Amazon" in text
    setup = text.split(">> ", 1)[1].split("You kept", 1)[0]
    assert len(re.findall(r"^\s+\d+\. ", setup, re.M)) <= 5 + 4


def test_the_main_action_discards_several_cards_by_multi_select() -> None:
    out, _asked = _play_scripted(["2", "1", "d 1 9", "d 1 1", "d 1 3"])
    text = "\n".join(out)
    action = text.split(">> Play a card, or discard", 1)[1].split("You discarded", 1)[0]
    assert "discard " not in action.split("or discard up to 3", 1)[0]  # no combination lines
    assert len(re.findall(r"^\s+\d+\. ", action, re.M)) == 4  # 3 hand cards to play, then pass
    assert "'d 1 9' is not a discard" in text and "'d 1 1' is not a discard" in text
    assert "You discarded Modest Monsterslayer and Nightmarish Northman" in text


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        ({"kind": "pick-hero", "card": "shaky-sharpshooter", "purpose": "bury", "prompt": "x"},
         "Shaky Sharpshooter: choose a hero to bury."),
        ({"kind": "pick-hero", "card": "curious-troll", "purpose": "look", "prompt": "x"},
         "Curious Troll: you may choose a face-down hero to look at secretly."),
        ({"kind": "marker", "card": "pigmented-war-pig", "purpose": "marker", "prompt": "x"},
         "Pigmented War Pig: choose how the markers move."),
        ({"kind": "discard", "card": None, "purpose": "discard", "prompt": "x"},
         "Discard 1 card to hold 3."),
    ],
)
def test_prompts_name_the_card_and_the_purpose(decision: dict, expected: str) -> None:
    assert term.prompt(decision) == expected


def test_marker_options_show_the_track_result() -> None:
    st = hl.new_game(players=3, seed=4)
    v = {"decision": {"kind": "marker", "results": {"R+1": {"red": 5, "green": 4}}}}
    assert term.option_label("R+1", v) == "R+1  -> red 5, green 4"
    assert "face-down hero 2 of seat 1" in term.option_label("1:down1", v)
    assert st.view(0)["decision"]["purpose"] == "setup"


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
