"""Piece kinds: codes, names, kinds and one-line ability texts.

A piece on the board is an int ``pid = kind * 2 + side`` (side 0 = South, 1 = North).
"""

from __future__ import annotations

KINDS: tuple[tuple[str, str, str, str], ...] = (
    ("L", "Leader", "-", "basic move only (2 steps with an own Vizier)"),
    ("AC", "Acrobat", "active", "jump over an adjacent character onto the empty cell behind; may jump again"),
    ("RI", "Rider", "active", "move exactly 2 cells in a straight line over an empty cell"),
    ("BR", "Bruiser", "active", "move into an adjacent enemy's cell and push it to one of the 3 far cells"),
    ("RG", "Royal Guard", "active", "move next to the own Leader, then may take one more basic step"),
    ("IL", "Illusionist", "active", "swap places with a visible, non-adjacent character in a straight line"),
    (
        "CL",
        "Claw Launcher",
        "active",
        "move next to a visible character 2+ cells away in line, or pull it in",
    ),
    ("MA", "Manipulator", "active", "move a visible, non-adjacent enemy in line by one cell"),
    ("WA", "Wanderer", "active", "move to any empty cell not adjacent to an enemy character"),
    ("BM", "Brewmaster", "active", "move an adjacent ally one cell"),
    ("AR", "Archer", "passive", "helps capture the enemy Leader from exactly 2 cells away in line"),
    ("AS", "Assassin", "passive", "captures the enemy Leader alone when adjacent to it"),
    ("JA", "Jailer", "passive", "adjacent enemies cannot start an active ability"),
    ("PR", "Protector", "passive", "enemy abilities cannot move it or its adjacent allies"),
    ("VI", "Vizier", "passive", "the own Leader's basic move may take a second step"),
    ("HE", "Hermit", "special", "with the Cub: one activation moves each of them one step"),
    ("CU", "Cub", "special", "moves with the Hermit; never counts toward a capture"),
    ("NE", "Nemesis", "special", "after the enemy Leader moves, must move 2 cells (else 1)"),
)

CODES: tuple[str, ...] = tuple(k[0] for k in KINDS)
PIECE_NAMES: tuple[str, ...] = tuple(k[1] for k in KINDS)
KIND_TYPES: tuple[str, ...] = tuple(k[2] for k in KINDS)
ABILITIES: tuple[str, ...] = tuple(k[3] for k in KINDS)
KIND_OF: dict[str, int] = {c: i for i, c in enumerate(CODES)}
NUM_KINDS = len(KINDS)

(L, AC, RI, BR, RG, IL, CL, MA, WA, BM, AR, AS, JA, PR, VI, HE, CU, NE) = range(NUM_KINDS)
ACTIVE: frozenset[int] = frozenset(i for i, t in enumerate(KIND_TYPES) if t == "active")
#: The 16 champion cards of the shared deck (Hermit & Cub is one card, coded HE), in table order.
CARDS: tuple[int, ...] = tuple(k for k in range(1, NUM_KINDS) if k != CU)
SIDES = "SN"
SIDE_NAMES = ("South", "North")


def pid(kind: int, side: int) -> int:
    return kind * 2 + side
