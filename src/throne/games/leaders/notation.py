"""Move strings and position strings of §5: parsing and formatting."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .actions import BAN, HC2, ID_OF, PATH2, PATH3, REC, RECHC, SWAP, TARGET
from .board import CELL_OF, NAMES, NUM_CELLS
from .errors import IllegalMoveError, PositionError
from .pieces import CARDS, CODES, CU, HE, KIND_OF, NE, NUM_KINDS, SIDES

if TYPE_CHECKING:
    from .state import State

N = NUM_CELLS
_CELL = r"([a-z]\d+)"
_PATH = re.compile(rf"{_CELL}(?:-{_CELL})(?:-{_CELL})?")
_TARGET = re.compile(rf"{_CELL}:{_CELL}(?:>{_CELL})?")
_HC2 = re.compile(rf"{_CELL}-{_CELL},{_CELL}-{_CELL}")
_REC = re.compile(r"\+([a-z]{2})@([a-z]\d+)(?:,([a-z]\d+))?")
_BAN = re.compile(r"ban\s+([a-z]{1,2})")
_FORMS = (
    "expected 'end', FROM-TO[-TO2], FROM:TARGET[>DEST], FROM-TO,FROM-TO, +CODE@CELL, +HE@CELL,CELL"
    " or ban CODE"
)


def cell(name: str) -> int:
    c = CELL_OF.get(name.lower())
    if c is None:
        raise IllegalMoveError(f"unknown cell '{name}' (columns a-g, rows from 1 at the bottom)")
    return c


def _card_code(code: str) -> int:
    kind = KIND_OF.get(code.upper())
    if kind is None or kind == 0:
        names = ", ".join(CODES[k] for k in CARDS)
        raise IllegalMoveError(f"unknown card code '{code.upper()}' (cards: {names})")
    if kind == CU:
        raise IllegalMoveError("the Cub is one card with the Hermit: use HE")
    return kind


def parse_move(text: str) -> int:
    """The action id of a move string; raises IllegalMoveError if malformed or impossible on this board."""
    if not isinstance(text, str):
        raise IllegalMoveError(f"malformed move {text!r}: not a string")
    s = text.strip().lower()
    hit = ID_OF.get(s)
    if hit is not None:
        return hit
    if s == "end":
        return ID_OF["end"]
    m = _BAN.fullmatch(s)
    if m:
        return BAN[_card_code(m.group(1))]
    m = _REC.fullmatch(s)
    if m:
        code = m.group(1).upper()
        kind = KIND_OF.get(code)
        if kind is None or kind == 0:
            raise IllegalMoveError(
                f"unknown card code '{code}' (cards: {', '.join(CODES[k] for k in CARDS)})"
            )
        if kind == CU:
            raise IllegalMoveError("the Cub is recruited with the Hermit: +HE@CELL,CELL")
        c1 = cell(m.group(2))
        if kind == HE:
            if m.group(3) is None:
                raise IllegalMoveError("Hermit & Cub need two cells: +HE@HERMIT_CELL,CUB_CELL")
            c2 = cell(m.group(3))
            if c1 == c2:
                raise IllegalMoveError("Hermit & Cub need two different cells")
            a = RECHC[c1][c2]
            if a < 0:
                raise IllegalMoveError(f"{NAMES[c1]} and {NAMES[c2]} are not recruitment cells of one side")
            return a
        if m.group(3) is not None:
            raise IllegalMoveError("only Hermit & Cub are recruited onto two cells")
        a = REC[kind][c1]
        if a < 0:
            raise IllegalMoveError(f"{NAMES[c1]} is not a recruitment cell")
        return a
    m = _HC2.fullmatch(s)
    if m:
        f1, t1, f2, t2 = (cell(g) for g in m.groups())
        a = HC2.get((f1, t1, f2, t2), -1)
        if a < 0:
            raise IllegalMoveError("a Hermit & Cub activation is two one-step paths of two different pieces")
        return a
    m = _PATH.fullmatch(s)
    if m:
        cells = [cell(g) for g in m.groups() if g is not None]
        if len(set(cells)) != len(cells):
            raise IllegalMoveError("a path may not revisit a cell or end where it started")
        if len(cells) == 2:
            return PATH2[cells[0]][cells[1]]
        a = PATH3[(cells[0] * N + cells[1]) * N + cells[2]]
        if a < 0:
            raise IllegalMoveError("no piece can take this three-cell path")
        return a
    m = _TARGET.fullmatch(s)
    if m:
        f, t = cell(m.group(1)), cell(m.group(2))
        if m.group(3) is None:
            a = SWAP[f][t]
            if a < 0:
                raise IllegalMoveError("a swap needs a target at least 2 cells away in a straight line")
            return a
        d = cell(m.group(3))
        a = TARGET[(f * N + t) * N + d]
        if a < 0:
            raise IllegalMoveError(
                "no ability moves a piece this way (target in line, destination next to it)"
            )
        return a
    raise IllegalMoveError(f"malformed move '{text.strip()}': {_FORMS}")


# ----------------------------------------------------------------------------------------- positions
KEYS = ("S", "N", "turn", "phase", "acted", "market", "deck", "recruits", "turns")
#: optional keys, written only in Strategist mode
EXTRA_KEYS = ("mode", "banned")


def _codes(mask_or_list: list[int]) -> str:
    return ",".join(CODES[k] if k >= 0 else "-" for k in mask_or_list) or "-"


def format_position(st: State) -> str:
    sides = []
    for side in (0, 1):
        items = [
            f"{CODES[k]}{NAMES[st.loc[k * 2 + side]]}" for k in range(NUM_KINDS) if st.loc[k * 2 + side] >= 0
        ]
        sides.append(f"{SIDES[side]}=" + ",".join(items))
    acted = [k for k in range(NUM_KINDS) if (st.acted_mask >> k) & 1]
    market = "-" if st.strategist else ",".join(CODES[k] if k >= 0 else "-" for k in st.market_cards)
    deck = st.deck[st.deck_pos :]
    text = (
        f"{sides[0]} {sides[1]} turn={SIDES[st.turn]} phase={st.phase} acted={_codes(acted)} "
        f"market={market} deck={_codes(deck)} recruits={st.recruits} turns={st.turns}"
    )
    if st.strategist:
        text += f" mode=strategist banned={_codes(list(st.banned))}"
    return text


def _card_list(value: str, what: str, allow_gaps: bool) -> list[int]:
    if value == "-":
        return []
    out = []
    for code in value.split(","):
        if code == "-" and allow_gaps:
            out.append(-1)
            continue
        kind = KIND_OF.get(code)
        if kind is None or kind not in CARDS:
            raise PositionError(f"{what}: '{code}' is not a card code")
        out.append(kind)
    return out


def _int(value: str, key: str) -> int:
    if not value.isdigit():
        raise PositionError(f"{key}= needs a non-negative integer, got '{value}'")
    return int(value)


def parse_position(text: str, draw_rule: bool = True) -> State:
    from .rules import ACTION, BANISH, CAPTURE, PHASES, REACTION, lost
    from .state import MODES, TURN_LIMIT, State

    if not isinstance(text, str):
        raise PositionError("a position must be a string")
    fields: dict[str, str] = {}
    for token in text.split():
        key, eq, value = token.partition("=")
        if not eq or key not in KEYS + EXTRA_KEYS:
            raise PositionError(f"unknown token '{token}' (keys: {' '.join(KEYS + EXTRA_KEYS)})")
        if key in fields:
            raise PositionError(f"key '{key}' given twice")
        fields[key] = value
    missing = [k for k in KEYS if k not in fields]
    if missing:
        raise PositionError(f"missing keys: {', '.join(missing)}")
    board = [-1] * N
    seen_kinds: set[int] = set()
    for side, key in enumerate("SN"):
        if not fields[key]:
            raise PositionError(f"{key}= lists no pieces (a Leader is required)")
        for item in fields[key].split(","):
            m = re.fullmatch(r"([A-Z]{1,2})([a-z]\d+)", item)
            if not m or m.group(1) not in KIND_OF:
                raise PositionError(f"bad piece '{item}' (CODE + cell, e.g. BRc2)")
            kind = KIND_OF[m.group(1)]
            c = CELL_OF.get(m.group(2))
            if c is None:
                raise PositionError(f"unknown cell '{m.group(2)}' in '{item}'")
            if board[c] >= 0:
                raise PositionError(f"two pieces on {m.group(2)}")
            ident = (kind, side) if kind == 0 else kind
            if ident in seen_kinds:
                raise PositionError(f"piece '{m.group(1)}' appears twice (champions are unique)")
            seen_kinds.add(ident)  # type: ignore[arg-type]
            board[c] = kind * 2 + side
        if (0, side) not in seen_kinds:
            raise PositionError(f"{key}= has no Leader")
    for side in (0, 1):
        if (board.count(HE * 2 + side) + board.count(CU * 2 + side)) == 1:
            raise PositionError("the Hermit and the Cub are on the board together or not at all")
    if fields["turn"] not in ("S", "N"):
        raise PositionError("turn= must be S or N")
    turn = "SN".index(fields["turn"])
    if fields["phase"] not in PHASES:
        raise PositionError("phase= must be action, recruit, reaction or ban")
    phase = PHASES.index(fields["phase"])
    mode = fields.get("mode", "discovery")
    if mode not in MODES:
        raise PositionError(f"mode= must be one of {', '.join(MODES)}")
    strategist = mode == "strategist"
    if "banned" in fields and not strategist:
        raise PositionError("banned= is only used with mode=strategist")
    banned = tuple(_card_list(fields.get("banned", "-"), "banned", False))
    if len(banned) > 4:
        raise PositionError("at most 4 cards are banished (two rounds of one per side)")
    if phase == BANISH and not strategist:
        raise PositionError("phase=ban exists only with mode=strategist")
    acted = 0
    for code in fields["acted"].split(",") if fields["acted"] != "-" else []:
        if code not in KIND_OF:
            raise PositionError(f"acted: '{code}' is not a piece code")
        acted |= 1 << KIND_OF[code]
    for k in range(NUM_KINDS):
        if (acted >> k) & 1 and (k * 2 + turn) not in board:
            raise PositionError(f"acted= names {CODES[k]}, which the turn player does not have")
    market = _card_list(fields["market"], "market", True)
    if len(market) > 3:
        raise PositionError("the market holds at most 3 cards")
    while len(market) < 3:
        market.append(-1)
    deck = _card_list(fields["deck"], "deck", False)
    if strategist and (deck or any(k >= 0 for k in market)):
        raise PositionError("mode=strategist has no market and no deck (market=- deck=-)")
    on_board = {k for k in seen_kinds if isinstance(k, int) and k != CU}
    cards = [k for k in market if k >= 0] + deck + sorted(on_board) + list(banned)
    if len(cards) != len(set(cards)):
        raise PositionError(
            "a card appears twice among the pieces, the banished cards, the market and the deck"
        )
    if phase == BANISH:
        if len(banned) == 4:
            raise PositionError("phase=ban but both rounds of banishments are done")
        if turn != (1 if len(banned) % 2 == 0 else 0):
            raise PositionError("in phase=ban North banishes first, then South: turn= does not match banned=")
    if strategist:
        _check_banishments(board, phase == BANISH, len(banned))
    if phase == REACTION and NE * 2 not in board and NE * 2 + 1 not in board:
        raise PositionError("phase=reaction needs a Nemesis on the board")
    recruits = _int(fields["recruits"], "recruits")
    turns = _int(fields["turns"], "turns")
    st = State(board, turn, phase, acted, market, deck, recruits, turns, draw_rule, strategist, banned)
    lost_how = [lost(board, st.loc[side], side) for side in (0, 1)]
    if all(lost_how):
        raise PositionError("both Leaders are lost; no legal game reaches this position")
    for side in (0, 1):
        if lost_how[side]:  # a finished game: the other side has won
            st.winner = side ^ 1
            st.termination = "capture" if lost_how[side] == CAPTURE else "surround"
    if st.termination is None and draw_rule and turns >= TURN_LIMIT:  # §4: drawn after 200 turns
        st.termination = "turn-limit"
    if st.termination is None and phase != ACTION and not st.legal_actions():
        raise PositionError(f"phase={fields['phase']} but there is no legal {fields['phase']} move")
    return st


def _check_banishments(board: list[int], ban_phase: bool, n: int) -> None:
    """Strategist: the banishments a legal game has made by now (one each before the first recruitment,
    one more each once both sides hold two champions; champions never leave the board)."""
    held = [sum(1 for k in CARDS if k * 2 + side in board) for side in (0, 1)]
    if ban_phase:
        if n < 2 and any(held):
            raise PositionError("the first banishments come before the first recruitment: no champion may be "
                                "on the board in phase=ban with fewer than 2 cards banished")
        if n >= 2 and min(held) < 2:
            raise PositionError("the second round of banishments needs two champions on each side")
    elif n not in (2, 4):
        raise PositionError(f"banned= lists {n} cards outside phase=ban: each round banishes one card per "
                            "side (2 after the first round, 4 after the second)")
    elif n == 4 and min(held) < 2:
        raise PositionError("4 cards banished, but the second round needs two champions on each side")
