"""Play Hidden Leaders in a terminal against random bots, and replay records.

Everything shown to the human comes from ``state.view(seat)`` (or the spectator view in replays); the log of
what others did is derived from the ``last_move`` of successive views, never from the full state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from throne import ai, i18n, terminal
from throne.games import hidden_leaders as hl
from throne.games.hidden_leaders import moves as hl_moves
from throne.games.hidden_leaders.cards import GUARDIAN_CARDS
from throne.games.hidden_leaders.events import events as move_events
from throne.games.hidden_leaders.fate import FATE_TEXT
from throne.games.randomness import LEGACY_RNG
from throne.terminal.narrate import Narrator

OPPONENTS = tuple(ai.bot_names("hidden-leaders"))
InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


def _bot_move(state: hl.State, seat: int, opponent: str, rng: random.Random) -> str:
    """The move of a bot seat: any bot or level of ``throne.ai`` (``throne bots hidden-leaders``).

    The bot is handed only what ``seat`` knows (``ai.seat_state``), never the full state.
    """
    if opponent == "random":
        return rng.choice(state.legal_moves())
    if opponent not in OPPONENTS:
        raise ValueError(f"unknown opponent {opponent!r}: available opponents are {', '.join(OPPONENTS)}")
    bot = ai.make_bot("hidden-leaders", opponent, seed=rng.randrange(2**31))
    return bot.choose(ai.seat_state("hidden-leaders", state, seat), seat)


HELP = """Answer with the number of an option or the move itself; 'help' shows this, 'q' quits.
Goal: at the end, the faction shown by the power track wins, and among the players whose leader is allied
with it, the one with the most heroes of that faction in their party wins (ties: fewest heroes, then the
higher leader number). The game ends at once when a party has enough face-up heroes (the threshold).
The track (1-12, war zone 9-12) decides the faction, in this order:
  Guardians      (legends) the Guardian marker is ahead of both, and a Guardian leader is seated
  Undead         both markers in the war zone (9+)
  Water Folk     the markers at most 1 apart
  Imperial Army  red ahead by 2 or more
  Hill Tribes    green ahead by 2 or more
A turn: play a card face up (its marker effect, then its ability) or discard up to 3 cards; then draw from the
Tavern or the Harbor up to 4 cards and discard down to 3."""


def faction_name(faction: str | None) -> str:
    return i18n.t("en", f"hl.faction.{faction or 'neutral'}")


def _name(card: str | None) -> str:
    if card is None:
        return "[face down]"
    c = hl.CARDS[card]
    fac = faction_name(c.faction)
    if card in GUARDIAN_CARDS and c.faction != "guardians":
        fac += " + " + faction_name("guardians")
    return f"{c.name} ({fac})"


def card_text(card: str) -> str:
    """A card's name, factions, marker effect and ability, as the rule book gives them."""
    c = hl.CARDS[card]
    ability = c.ability if c.ability and c.ability != "—" else "no ability"
    return f"{_name(card)}: {c.markers}; {ability}"


def track(red: int, green: int, guardian: int | None = None) -> str:
    """The power track 1..12; the war spaces 9..12 are bracketed; ``*`` is the Guardian marker (legends)."""
    cells = []
    width = 2 if guardian is None else 3
    for i in range(1, 13):
        mark = ("R" if red == i else "") + ("G" if green == i else "") + ("*" if guardian == i else "")
        cells.append(f"{i:>2}{mark or '.':<{width}}")
    return " ".join(cells[:8]) + " [" + " ".join(cells[8:]) + "]  (war: 9-12)"


def _legends_lines(v: dict[str, Any]) -> list[str]:
    """The Guardian marker, the leader pool sizes, skipped turns, the live faction and a pending Fate."""
    pool, live = v["leader_pool"], v["live_faction"]
    lines = [f"Leader pool (secret): {pool['base']} base and {pool['guardians']} Guardian leaders"]
    now = live["faction"]
    if live["guardians_if_seated"]:
        now = f"the Guardians if a Guardian leader is in play, otherwise {now}"
    lines.append(f"If the game ended now: {now}")
    if v["skips"]:
        lines.append("Skips the next turn: " + ", ".join(f"seat {p}" for p in v["skips"]))
    fate = v.get("fate")
    if fate:
        cards = fate["cards"]
        if isinstance(cards, list):
            lines.append("Your Fate cards: " + ", ".join(FATE_TEXT[k] for k in cards))
        else:
            lines.append(f"Seat {fate['seat']} chooses 1 of {cards['count']} Fate cards "
                         f"({hl.CARDS[fate['card']].name} was buried)")
    return lines


def render(v: dict[str, Any]) -> str:
    """A text picture of a view dict."""
    seat = v["seat"]
    lines = [f"--- Hidden Leaders, {v['players']} players, {v['phase']} phase, turn of seat {v['turn']} ---"]
    red, green = v["markers"]["red"], v["markers"]["green"]
    guardian = v["markers"].get("guardian")
    if guardian is None:
        lines.append(f"Power track: red R={red}, green G={green}")
    else:
        lines.append(f"Power track: red R={red}, green G={green}, Guardian *={guardian}")
    lines.append("  " + track(red, green, guardian))
    if guardian is not None:
        lines += _legends_lines(v)
    if seat is not None and v["leaders"][seat]:
        lead = hl.LEADERS[v["leaders"][seat]]
        allies = " and ".join(faction_name(f) for f in lead.factions)
        lines.append(f"Your leader: {lead.name} (#{lead.number}), allied with {allies}")
    for p in range(v["players"]):
        hand = v["hands"][p]
        count = hand["count"] if isinstance(hand, dict) else len(hand)
        who = "you" if p == seat else f"seat {p}"
        lead = v["leaders"][p]
        tag = f" [{hl.LEADERS[lead].name}]" if lead and p != seat else ""
        party = v["parties"][p]
        ups = sum(1 for h in party if h["up"])
        heroes = ", ".join(
            _name(h["card"]) + ("" if h["up"] else " (down)") if h["card"] else "[face down]" for h in party
        ) or "-"
        lines.append(f"Seat {p} ({who}){tag}: {count} in hand, {ups}/{v['threshold']} face up: {heroes}")
        if isinstance(hand, list) and p != seat:  # revealed at the end of the game
            lines.append(f"  hand of seat {p}: " + (", ".join(_name(c) for c in hand) or "-"))
    if seat is not None and isinstance(v["hands"][seat], list):
        lines.append("Your hand:" + ("" if v["hands"][seat] else " -"))
        lines += [f"  {card_text(c)}" for c in v["hands"][seat]]
    lines.append("Tavern: " + ", ".join(_name(c) if c else "(empty)" for c in v["tavern"]))
    harbor, wild = v["harbor"], v["wilderness"]
    hc = harbor["count"] if isinstance(harbor, dict) else len(harbor)
    wc = wild["count"] if isinstance(wild, dict) else len(wild)
    grave = v["graveyard"]
    lines.append(f"Harbor: {hc} cards. Wilderness: {wc} cards. Graveyard ({len(grave)}): "
                 + (", ".join(hl.CARDS[c].name for c in grave[:5]) + (" ..." if len(grave) > 5 else "")))
    if v["known"]:
        lines.append("You know: " + "; ".join(f"{_name(k['card'])} in {k['where']}" for k in v["known"]))
    pend = v.get("pending_cards")
    if isinstance(pend, list) and pend:
        lines.append("Cards in play for the decision: " + ", ".join(_name(c) for c in pend))
    return "\n".join(lines)


def render_scores(v: dict[str, Any]) -> str:
    gm = v["markers"].get("guardian")
    faction = faction_name(v["winning_faction"])
    lines = [f"Game over. Winning faction: {faction}. Final markers R={v['markers']['red']} "
             f"G={v['markers']['green']}" + ("." if gm is None else f", Guardian {gm}.")]
    for r in v["scores"]:
        lead = hl.LEADERS[r["leader"]]
        flag = "  <== WINNER" if r["winner"] else ""
        lines.append(
            f"  seat {r['seat']}: {lead.name} ({'/'.join(lead.factions)}), aligned={r['aligned']}, "
            f"faction heroes={r['faction_heroes']} (bonus {r['bonus']}), total heroes={r['total_heroes']}"
            f"{', decided by ' + r['tiebreak'] if r['winner'] and r['tiebreak'] else ''}{flag}"
        )
    if v["winner"] is None:
        lines.append("  Nobody is allied with the winning faction: nobody wins.")
    return "\n".join(lines)


def prompt(decision: dict[str, Any]) -> str:
    """What the decision is for, naming the card being resolved (the web table's catalogue text)."""
    purpose = decision.get("purpose") or decision["kind"]
    try:
        text = i18n.t("en", f"hl.purpose.{purpose}")
    except i18n.UnknownMessageError:
        text = decision["prompt"]
    if decision.get("card"):
        return i18n.t("en", "ui.hl.prompt_card", card=hl.CARDS[decision["card"]].name, text=text)
    return text[:1].upper() + text[1:]


def option_label(move: str, v: dict[str, Any]) -> str:
    """A move string with what it does in words (card texts, marker results, face-down places)."""
    d = v["decision"]
    parsed = hl_moves.parse(move)
    if parsed.form == "marker" and move in d.get("results", {}):
        r = d["results"][move]
        return f"{move}  -> red {r['red']}, green {r['green']}"
    if move.startswith("fate "):
        return f"{move}  ({FATE_TEXT[move[5:]]})"
    if parsed.form == "card" and parsed.cards[0] in hl.CARDS:
        if parsed.verb == "play":
            return f"{move}  - {card_text(parsed.cards[0])}"
        return f"{move}  ({hl.CARDS[parsed.cards[0]].name})"
    if parsed.form == "hero-down":
        return f"{move}  (face-down hero {(parsed.index or 0) + 1} of seat {parsed.seat})"
    if parsed.form == "hero-up" and parsed.cards[0] in hl.CARDS:
        return f"{move}  ({hl.CARDS[parsed.cards[0]].name} in the party of seat {parsed.seat})"
    return move


def _read(input_fn: InputFn, out: OutputFn, question: str) -> str:
    while True:
        text = input_fn(question).strip()
        if text in ("q", "quit"):
            raise KeyboardInterrupt
        if text in ("help", "h", "?"):
            out(HELP)
            continue
        return text


def _pick_card(cards: list[str], input_fn: InputFn, out: OutputFn, question: str) -> str:
    """One card of a numbered list, by number or id."""
    for i, c in enumerate(cards, 1):
        out(f"  {i:>2}. {_name(c)}")
    while True:
        text = _read(input_fn, out, question)
        if text.isdigit() and 1 <= int(text) <= len(cards):
            return cards[int(text) - 1]
        if text in cards:
            return text
        out(f"'{text}' is not one of the cards; type a number from 1 to {len(cards)}.")


def _ask_setup(v: dict[str, Any], input_fn: InputFn, out: OutputFn) -> str:
    """Setup as two choices among the hand (not every pair listed): the card kept, then the card discarded."""
    moves = v["legal_moves"]
    hand = list(v["hands"][v["seat"]])
    while True:
        keep = _pick_card(hand, input_fn, out, "Card to keep face down (number, 'help', 'q' to quit): ")
        rest = [c for c in hand if c != keep]
        drop = _pick_card(rest, input_fn, out, "Card to discard (number): ")
        move = hl_moves.keep(keep, drop)
        if move in moves:
            return move
        out(f"'{move}' is not a legal setup.")  # pragma: no cover - every pair of distinct cards is legal


def _ask_action(v: dict[str, Any], input_fn: InputFn, out: OutputFn) -> str:
    """The main action: a numbered hand (play one by its number) and a multi-select discard ('d 1 3')."""
    moves = v["legal_moves"]
    hand = list(v["hands"][v["seat"]])
    plays = [hl_moves.card("play", c) for c in hand]
    for i, c in enumerate(hand, 1):
        out(f"  {i:>2}. play {_name(c)}")
    passing = len(hand) + 1
    out(f"  {passing:>2}. pass")
    out("  or discard up to 3 hand cards: 'd' and their numbers, e.g. 'd 1 3'")
    while True:
        text = _read(input_fn, out, "Your choice (number, 'd' and numbers, a move, 'help', 'q' to quit): ")
        words = text.split()
        if text.isdigit() and 1 <= int(text) <= len(hand) and plays[int(text) - 1] in moves:
            return plays[int(text) - 1]
        if text.isdigit() and int(text) == passing and hl_moves.PASS in moves:
            return hl_moves.PASS
        if words and words[0] in ("d", "discard") and len(words) > 1:
            picked = [hand[int(w) - 1] if w.isdigit() and 1 <= int(w) <= len(hand) else w for w in words[1:]]
            move = next((m for m in moves
                         if m.startswith("discard ") and sorted(m.split()[1:]) == sorted(picked)), None)
            if move and len(set(picked)) == len(picked):
                return move
            out(f"'{text}' is not a discard of 1 to 3 different hand cards; e.g. 'd 1 3'.")
            continue
        if text in moves:
            return text
        out(f"'{text}' is not one of the options; type a number from 1 to {passing}, or 'd' and numbers.")


def _ask(v: dict[str, Any], input_fn: InputFn, out: OutputFn) -> str:
    moves = v["legal_moves"]
    d = v["decision"]
    out(f"\n>> {prompt(d)}")
    if d.get("card"):
        out(f"   (resolving {card_text(d['card'])})")
    if d["kind"] == "setup":
        return _ask_setup(v, input_fn, out)
    if d["kind"] == "action":
        return _ask_action(v, input_fn, out)
    for i, m in enumerate(moves, 1):
        out(f"  {i:>2}. {option_label(m, v)}")
    while True:
        text = _read(input_fn, out, "Your choice (number or move, 'help', 'q' to quit): ")
        if text.isdigit() and 1 <= int(text) <= len(moves):
            return moves[int(text) - 1]
        if text in moves:
            return text
        out(f"'{text}' is not one of the options; type a number from 1 to {len(moves)} or a move.")


def play(players: int = 4, seat: int = 0, opponent: str = "random", modules: tuple[str, ...] = ("core",),
         variant: str = "full", seed: int | None = None, *, input_fn: InputFn = input,
         out: OutputFn = print) -> None:
    """One human (``seat``) against bots in the terminal."""
    if opponent not in OPPONENTS:
        raise SystemExit(f"error: unknown opponent {opponent!r} for Hidden Leaders; available: "
                         f"{', '.join(OPPONENTS)}")
    if not (isinstance(players, int) and 2 <= players <= 6) or not 0 <= seat < players:
        raise SystemExit(f"error: need 2-6 players and a seat in 0..{players - 1}")
    try:
        state = hl.new_game(players=players, seed=seed, variant=variant, modules=modules)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
    rng = terminal.bot_rng()
    out(f"Hidden Leaders, {players} players. You are seat {seat}; seat {state.first} starts. Type 'help' for "
        "the goal and the commands.")
    narrator = Narrator("hidden-leaders", seat, lambda p: f"Seat {p}")
    try:
        while not state.is_over:
            v = state.view(seat)
            if v["to_play"] == seat:
                out("\n" + render(v))
                move = _ask(v, input_fn, out)
            else:
                move = _bot_move(state, v["to_play"], opponent, rng)
            before, mover = state.clone(), state.to_play
            state.play(move)
            last = state.view(seat)["last_move"]
            if last and last["seat"] != seat:
                out(f"seat {last['seat']}: {last['move']}")
            events = [{"seat": mover, **ev} for ev in move_events(before, move, state, seat)]
            for line in narrator.sentences(events):
                out(f"  {line}")
    except (KeyboardInterrupt, EOFError):
        out("\nGame abandoned.")
        return
    v = state.view(seat)
    out("\n" + render(v))
    out(render_scores(v))
    out(f"Seed of this game (replays it with its moves): {state.seed}")


def replay(record: dict, *, input_fn: InputFn = input, out: OutputFn = print) -> None:
    """Step through a record with the spectator's view; the end reveals everything."""
    try:
        hl.record_to_state(record)
    except hl.RecordError as exc:
        raise SystemExit(f"error: {exc}") from exc
    state = hl.new_game(players=record["players"], seed=record["seed"], variant=record.get("variant", "full"),
                        modules=tuple(record.get("modules", ("core",))), rng=record.get("rng", LEGACY_RNG))
    moves = record["moves"]
    out(render(state.view(None)))
    for n, (_, move) in enumerate(moves, 1):
        state.play(move)
        v = state.view(None)
        out(f"\n#{n} seat {v['last_move']['seat']}: {v['last_move']['move']}")
        if v["phase"] in ("action", "over") or n == len(moves):
            out(render(v))
            try:
                text = input_fn("Enter: next, q: quit > ").strip()
            except EOFError:
                text = "q"
            if text == "q":
                return
    if state.is_over:
        out(render_scores(state.view(None)))
