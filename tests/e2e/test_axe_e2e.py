"""Accessibility checked by axe-core (the npm package, installed by `make test` into tests/e2e/.axe): the
lobby, the Leaders table (a piece selected: destinations and targets lit), the Hidden Leaders table (a
decision open) and both replays, light and dark, in English, Persian and Japanese, have no colour-contrast
violation, no control, link, image or region without an accessible name, and no scrolling list out of the
keyboard's reach."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.drivers import MY_TURN_OR_OVER, data, is_over
from tests.e2e.helpers import Contexts

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / ".axe/node_modules/axe-core/axe.min.js"
# Contrast, and every rule about labels and accessible names.
RULES = [
    "color-contrast",
    "label",
    "label-title-only",
    "select-name",
    "button-name",
    "input-button-name",
    "link-name",
    "image-alt",
    "input-image-alt",
    "svg-img-alt",
    "role-img-alt",
    "area-alt",
    "object-alt",
    "summary-name",
    "aria-command-name",
    "aria-input-field-name",
    "aria-toggle-field-name",
    "aria-meter-name",
    "aria-progressbar-name",
    "aria-tooltip-name",
    "aria-dialog-name",
    "document-title",
    "html-has-lang",
    "html-lang-valid",
    "valid-lang",
    "scrollable-region-focusable",  # the logs and move lists scroll: the keyboard reaches them
]


def axe_violations(page: Page) -> list[str]:
    """The violations of RULES on the page as it is now, one line per rule with the elements concerned."""
    assert AXE.exists(), f"{AXE} is missing: `make axe` installs axe-core"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))  # the context bypasses the CSP for this test-only script
    known = set(page.evaluate("axe.getRules().map(r => r.ruleId)"))
    assert set(RULES) <= known, f"rules unknown to axe-core: {sorted(set(RULES) - known)}"
    found = page.evaluate(
        """async (rules) => (await axe.run(document, { runOnly: { type: 'rule', values: rules } })).violations
             .map(v => `${v.id}: ` + v.nodes.map(n => `${n.target.join(' ')} (${(n.failureSummary || '')
             .replace(/\\s+/g, ' ').slice(0, 200)})`).join('; '))""",
        RULES,
    )
    return found


def start(page: Page, button: str) -> None:
    page.goto("/", wait_until="networkidle")  # the lobby script has its handlers
    page.click(button)
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator("#net-status")).to_have_attribute("data-state", "online")
    page.wait_for_function(MY_TURN_OR_OVER)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "fa", "ja"])
def test_no_contrast_or_name_violations(contexts: Contexts, lang: str, theme: str) -> None:
    page = contexts.page(lang=lang, color_scheme=theme, bypass_csp=True)
    page.goto(f"/lang/{lang}?next=/")
    expect(page.locator("#open-tables")).to_be_attached()
    problems = {"lobby": axe_violations(page)}

    start(page, "#play-bot-leaders")
    expect(page.locator("#board .cell")).to_have_count(37)
    if data(page, "myTurn") == "true" and data(page, "phase") == "action":
        page.click("#board .cell.clickable")
        expect(page.locator("#board .cell.dest, #board .cell.target").first).to_be_visible()
    problems["leaders"] = axe_violations(page)
    leaders_game = page.url.rsplit("/", 1)[1]

    start(page, "#play-bot-hidden-leaders")
    expect(page.locator("#power-track .space")).to_have_count(12)
    if not is_over(page):
        expect(page.locator("#decision")).to_be_visible()
    problems["hidden-leaders"] = axe_violations(page)
    hidden_game = page.url.rsplit("/", 1)[1]

    for name, game in (("leaders-replay", leaders_game), ("hidden-leaders-replay", hidden_game)):
        page.goto(f"/games/{game}/replay")
        expect(page.locator("#replay-step")).not_to_be_empty()
        problems[name] = axe_violations(page)

    assert {where: found for where, found in problems.items() if found} == {}
