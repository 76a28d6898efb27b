"""Terminal play and replay of Leaders (rich console; input through an injectable function for tests)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from throne import terminal
from throne.games import leaders
from throne.games.leaders.board import COORDS, NAMES
from throne.games.leaders.events import events as move_events
from throne.games.leaders.pieces import CODES, PIECE_NAMES, SIDE_NAMES
from throne.terminal.narrate import Narrator

InputFn = Callable[[str], str]

HELP = """Commands:
  <move>      a move string, e.g. d1-d2, c3-c5-e4, c3:d4>e4, c2:c5, a1-a2,b1-b2, +RI@a1, +HE@a1,b1, end,
              ban NE (Strategist mode: banish a card)
  moves       list the legal moves
  undo        take back your last decision (against a bot: back to your previous decision)
  save FILE   write the game record (JSON)
  help        this text
  quit        leave the game
Board: South pieces are [UPPER] in brackets, North pieces are (lower) in parentheses; '.' is an empty cell.
Move forms: FROM-TO (basic move, Rider, Wanderer, Claw move), FROM-TO-TO2 (Vizier Leader, Acrobat double jump,
Royal Guard, Nemesis), FROM:TARGET>DEST (Bruiser, Claw pull, Manipulator, Brewmaster), FROM:TARGET
(Illusionist swap), two paths joined by ',' (Hermit & Cub), +CODE@CELL (recruit)."""


def _bot_move(state: leaders.State, opponent: str, rng: random.Random) -> str:
    """The move string the computer opponent ``opponent`` plays in ``state`` (for ``state.to_play``).

    ``opponent`` is any bot or level of ``throne.ai`` (``throne bots leaders``).
    """
    if opponent == "random":
        return rng.choice(state.legal_moves())
    from throne import ai

    try:
        bot = ai.make_bot("leaders", opponent, seed=rng.randrange(2**31))
    except ai.UnknownBotError:
        names = ", ".join(ai.bot_names("leaders"))
        raise ValueError(f"unknown opponent {opponent!r} for Leaders: use 'human' or {names}") from None
    seat = state.to_play
    return bot.choose(ai.seat_state("leaders", state, seat), seat)  # blind to the unseen deck order


def _cell_label(state: leaders.State) -> dict[str, Text]:
    labels: dict[str, Text] = {}
    for side, code, cell in state.pieces():
        if side == 0:
            labels[cell] = Text(f"[{code:<2}]", style="bold cyan")
        else:
            labels[cell] = Text(f"({code.lower():<2})", style="bold magenta")
    return labels


def render_board(state: leaders.State) -> Text:
    """The board as text: columns a..g, row 1 at the bottom, each cell named next to its content."""
    labels = _cell_label(state)
    out = Text()
    for y in range(-6, 7):  # y = 2r + q, top (North) first
        line = Text()
        col = 0
        for i, (q, r) in sorted(enumerate(COORDS), key=lambda e: e[1][0]):
            if 2 * r + q != y:
                continue
            x = (q + 3) * 9
            line.append(" " * (x - col))
            name = NAMES[i]
            line.append(f"{name} ", style="dim")
            line.append(labels.get(name, Text(" .  ")))
            col = x + len(name) + 5
        out.append(line)
        out.append("\n")
    return out


def describe(state: leaders.State, humans: set[int]) -> Text:
    """Whose decision it is, the phase, acted pieces and the market."""
    t = Text()
    if state.is_over:
        if state.winner is None:
            t.append(f"Game over: draw by {state.termination}.\n", style="bold")
        else:
            t.append(f"Game over: {SIDE_NAMES[state.winner]} wins by {state.termination}.\n", style="bold")
        return t
    who = SIDE_NAMES[state.to_play]
    you = " (you)" if state.to_play in humans and len(humans) == 1 else ""
    # a full turn is one turn of each side (South, then North)
    turn = state.turns // 2 + 1
    t.append(f"Turn {turn}: {SIDE_NAMES[state.turn]}'s turn, {state.phase} phase. ", style="bold")
    t.append(f"{who}{you} to decide.\n")
    if state.phase == "reaction":
        t.append("The enemy Leader moved: the Nemesis must react (choose its path).\n")
    if state.phase == "ban":
        t.append(f"{who} banishes a card: ban CODE (it is out of the game).\n")
    acted = sorted(state.acted, key=CODES.index)
    t.append("Acted this turn: " + (", ".join(PIECE_NAMES[CODES.index(c)] for c in acted) or "none") + "\n")
    market = " ".join(c or "-" for c in state.market)
    left = f"recruitments left this turn: {state.recruits}"
    if state.mode == "strategist":
        banned = " ".join(CODES[k] for k in state.banned) or "none"
        t.append(f"Available: {market}   banished: {banned}   {left}\n")
    else:
        t.append(f"Market: {market}   deck: {state.deck_size}   {left}\n")
    if state.last_move:
        t.append(f"Last move: {state.last_move}\n", style="dim")
    return t


def _show(console: Console, state: leaders.State, humans: set[int]) -> None:
    console.print(render_board(state))
    console.print(describe(state, humans))


def _undo(state: leaders.State, humans: set[int]) -> bool:
    """Undo back to the previous human decision; False when there is nothing to undo."""
    if not state.record()["moves"]:
        return False
    state.undo()
    while len(humans) == 1 and state.to_play not in humans and state.record()["moves"]:
        state.undo()
    return True


def play(
    opponent: str = "random",
    side: str = "S",
    seed: int | None = None,
    *,
    mode: str = "discovery",
    console: Console | None = None,
    input_fn: InputFn = input,
) -> None:
    """Play Leaders in the terminal against ``opponent`` ('human' for hot seat, or 'random').

    ``mode``: ``discovery`` (the 3-card market) or ``strategist`` (banishments, every card available)."""
    console = console or Console()
    side = side.upper()
    if side not in ("S", "N"):
        raise ValueError(f"side must be S or N, not {side!r}")
    state = leaders.new_game(seed=seed, mode=mode)
    rng = terminal.bot_rng()
    humans = {0, 1} if opponent == "human" else {"SN".index(side)}
    if opponent != "human":
        _bot_move(state.clone(), opponent, random.Random(0))  # fail fast on an unknown opponent
    narrator = Narrator("leaders", next(iter(humans)) if len(humans) == 1 else None)

    def narrate(move: str, before: leaders.State) -> None:
        events = [{"seat": before.to_play, **ev} for ev in move_events(before, move, state)]
        for line in narrator.sentences(events):
            console.print(f"  {line}", markup=False)

    title = "Leaders (Strategist mode)" if mode == "strategist" else "Leaders"
    console.print(Text(f"{title} — type 'help' for commands.", style="bold"))
    shown = True
    _show(console, state, humans)
    while True:
        if not state.is_over and state.to_play not in humans:
            move = _bot_move(state, opponent, rng)
            before = state.clone()
            state.play(move)
            console.print(f"{SIDE_NAMES[1 - next(iter(humans))]} plays {move}", markup=False)
            narrate(move, before)
            shown = False
            continue
        if not shown:
            _show(console, state, humans)
            shown = True
        prompt = "> " if state.is_over else f"{SIDE_NAMES[state.to_play]}> "
        try:
            line = input_fn(prompt).strip()
        except EOFError:
            return
        if not line:
            continue
        word, _, arg = line.partition(" ")
        if word == "quit":
            return
        if word == "help":
            console.print(HELP, markup=False)
        elif word == "moves":
            console.print(" ".join(state.legal_moves()) or "(none: the game is over)", markup=False)
        elif word == "undo":
            if _undo(state, humans):
                shown = False
            else:
                console.print("Nothing to undo.")
        elif word == "save":
            if not arg:
                console.print("Usage: save FILE")
                continue
            try:
                Path(arg).write_text(json.dumps(state.record(), indent=2) + "\n", encoding="utf-8")
            except OSError as exc:
                console.print(f"Cannot save: {exc}", markup=False)
            else:
                console.print(f"Saved the record to {arg}.", markup=False)
        else:
            before = state.clone()
            try:
                state.play(line)
            except leaders.IllegalMoveError as exc:
                console.print(f"{exc}", markup=False, style="red")
                continue
            narrate(line, before)
            shown = False


def replay(record: dict[str, Any], *, console: Console | None = None, input_fn: InputFn = input) -> None:
    """Step through a record: Enter = next move, b = back, q = quit."""
    console = console or Console()
    try:
        final = leaders.record_to_state(record)
    except leaders.RecordError as exc:
        console.print(f"Cannot replay this record: {exc}", markup=False, style="red")
        return
    moves = final.record()["moves"]
    state = leaders.from_position(record["start"], draw_rule=final.draw_rule)
    index = 0
    while True:
        console.print(render_board(state))
        console.print(describe(state, set()))
        console.print(f"Move {index} of {len(moves)}" + (f": {moves[index - 1]}" if index else " (start)"))
        try:
            key = input_fn("[Enter] next, b back, q quit > ").strip().lower()
        except EOFError:
            return
        if key == "q":
            return
        if key == "b":
            if index:
                state.undo()
                index -= 1
        elif index < len(moves):
            state.play(moves[index])
            index += 1
        else:
            console.print("End of the record.")
