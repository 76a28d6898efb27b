"""Players that act only through clicks on the page, reading what the page shows (highlighted cells, buttons).

The Leaders player walks its pieces toward the enemy Leader (board geometry only, no rules): the game ends
quickly by a capture or a surround, whichever side makes it. The Hidden Leaders player prefers playing cards
(the game ends once enough heroes are face up) and otherwise takes the first option the page offers.
"""

from __future__ import annotations

from playwright.sync_api import Page

ROOT = "#table-root"
MY_TURN_OR_OVER = (
    "() => { const r = document.querySelector('#table-root');"
    " return r.dataset.myTurn === 'true' || r.dataset.over === 'true'; }"
)


def axial(cell: str) -> tuple[int, int]:
    q = "abcdefg".index(cell[0]) - 3
    return q, min(3, 3 - q) - int(cell[1:]) + 1


def distance(a: str, b: str) -> int:
    (q1, r1), (q2, r2) = axial(a), axial(b)
    return (abs(q1 - q2) + abs(r1 - r2) + abs(q1 + r1 - q2 - r2)) // 2


def data(page: Page, name: str) -> str | None:
    return page.eval_on_selector(ROOT, f"r => r.dataset.{name} ?? null")


def ply(page: Page) -> int:
    return int(data(page, "ply") or -1)


def wait_ply_after(page: Page, before: int) -> None:
    page.wait_for_function(
        "(before) => Number(document.querySelector('#table-root').dataset.ply) > before", arg=before
    )


def is_over(page: Page) -> bool:
    return data(page, "over") == "true"


class LeadersClicker:
    """Plays one side of a Leaders game in the page by clicking."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.confirmed = 0  # how many times 'End actions' asked first

    def seat(self) -> int:
        return int(data(self.page, "seat"))

    def enemy_leader(self) -> str:
        side = 1 - self.seat()
        return self.page.eval_on_selector(
            f'.cell:has(.piece[data-piece="L"][data-side="{side}"])', "g => g.dataset.cell"
        )

    def cells(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(selector, "gs => gs.map(g => g.dataset.cell)")

    def click_cell(self, cell: str) -> None:
        self.page.click(f'#board .cell[data-cell="{cell}"]')

    def finish(self, before: int) -> None:
        """Complete the move under way: 'finish here' when offered, else the step nearest the enemy Leader."""
        for _ in range(6):
            if ply(self.page) > before:
                return
            if self.page.is_visible("#finish-step"):
                self.page.click("#finish-step")
                break
            options = self.cells("#board .cell.dest, #board .cell.target")
            if not options:
                break
            goal = self.enemy_leader()
            self.click_cell(min(options, key=lambda c: distance(c, goal)))
        wait_ply_after(self.page, before)

    def take_turn(self) -> bool:
        """Play until the turn passes; False once the game is over."""
        page = self.page
        page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
        tried: set[str] = set()
        while not is_over(page) and data(page, "myTurn") == "true":
            before = ply(page)
            phase = data(page, "phase")
            if phase == "recruit":
                page.click("#market .market-card.clickable")
                self.finish(before)
                continue
            if phase == "reaction":
                self.click_cell(self.cells("#board .cell.clickable")[0])
                self.finish(before)
                continue
            if not self.act_once(tried, before):
                self.end_actions(before)
        return not is_over(page)

    def end_actions(self, before: int) -> None:
        """'End actions', confirmed when the table asks (a piece could still act)."""
        self.page.click("#end-actions")
        self.page.wait_for_function(
            "(before) => Number(document.querySelector('#table-root').dataset.ply) > before"
            " || !document.querySelector('#end-confirm').hidden",
            arg=before,
        )
        if self.page.is_visible("#end-confirm"):
            self.confirmed += 1
            self.page.click("#end-confirm-yes")
        wait_ply_after(self.page, before)

    def act_once(self, tried: set[str], before: int) -> bool:
        """Move one piece closer to the enemy Leader if some piece can; False when none can."""
        goal = self.enemy_leader()
        for cell in self.cells("#board .cell.clickable"):
            if cell in tried:
                continue
            tried.add(cell)
            self.click_cell(cell)
            options = self.cells("#board .cell.dest, #board .cell.target")
            best = min(options, key=lambda c: distance(c, goal), default=None)
            if best is not None and distance(best, goal) < distance(cell, goal):
                self.click_cell(best)
                self.finish(before)
                return True
            self.page.click("#cancel-move")
        return False


class HiddenClicker:
    """Makes every decision of one seat of a Hidden Leaders game by clicking what the page offers."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def decide(self) -> bool:
        page = self.page
        page.wait_for_function(MY_TURN_OR_OVER, timeout=60_000)
        if is_over(page):
            return False
        before = ply(page)
        if page.is_visible("#setup-confirm"):
            page.click("#setup-confirm")
        elif page.locator("#my-hand .play-card").count():
            page.locator("#my-hand .play-card").first.click()
        else:
            page.locator("#decision-options button").first.click()
        wait_ply_after(page, before)
        return True
