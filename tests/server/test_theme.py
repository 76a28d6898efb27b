"""The colour themes: every colour of the stylesheets is a token of static/css/theme.css, written once for
both themes as light-dark(LIGHT, DARK), the text pairs the pages use keep ≥ 4.5:1 in both, and the edges that
outline a shape too close to its background keep ≥ 3:1 (WCAG 1.4.11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "src/throne/server/static/css"
THEME = CSS / "theme.css"
# A colour literal: #rgb[a] / #rrggbb[aa], rgb()/hsl()/… functions, or a CSS named colour used as a value.
LITERAL = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(|"
    r":\s*(?:white|black|red|green|blue|gray|grey|yellow|orange|purple|silver|maroon|navy)\b"
)
TOKEN = re.compile(r"^\s*--([a-z0-9-]+):\s*([^;]+);", re.M)
PAIR = re.compile(r"light-dark\(\s*(#[0-9a-f]{6}(?:[0-9a-f]{2})?)\s*,\s*(#[0-9a-f]{6}(?:[0-9a-f]{2})?)\s*\)")
# (text, background) token pairs that carry text on the pages.
TEXT_PAIRS = [
    ("ink", "bg"), ("ink", "panel"), ("ink", "surface"), ("muted", "bg"), ("muted", "panel"),
    ("muted", "surface"), ("accent", "bg"), ("accent", "panel"), ("accent", "surface"),
    ("accent-ink", "accent"), ("focus-ink", "focus"), ("header-ink", "header-bg"),
    ("header-muted", "header-bg"), ("ok", "panel"), ("warn", "panel"), ("bad", "panel"),
    ("badge-ink", "ok-bg"), ("badge-ink", "warn-bg"), ("badge-ink", "idle-bg"), ("error-ink", "error-bg"),
    ("info-ink", "info-bg"), ("note-ink", "note-bg"), ("ink", "gold-bg"), ("ink", "fresh-bg"),
    ("ink", "accent-soft"), ("ink", "focus-soft"), ("ink", "down-own-bg"), ("clock-low", "panel"),
    ("cell-label", "hex"), ("cell-label", "hex-south"), ("cell-label", "hex-north"), ("mark-ink", "mark"),
    ("piece-ink", "south"), ("piece-ink", "north"), ("badge-ink", "war"), ("badge-ink", "guardians"),
    ("badge-ink", "hill-tribes"), ("badge-ink", "imperial-army"), ("badge-ink", "water-folk"),
    ("badge-ink", "undead"), ("badge-ink", "back-1"),
]


def luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def themes() -> dict[str, tuple[str, str]]:
    """Each token as (light, dark) colours."""
    out = {}
    for name, value in TOKEN.findall(THEME.read_text()):
        value = value.strip().lower()
        if pair := PAIR.fullmatch(value):
            out[name] = (pair.group(1), pair.group(2))
        elif re.fullmatch(r"#[0-9a-f]{6}(?:[0-9a-f]{2})?", value):
            out[name] = (value, value)
    return out


@pytest.mark.parametrize("sheet", sorted(p.name for p in CSS.glob("*.css") if p != THEME))
def test_stylesheets_use_tokens_only(sheet: str) -> None:
    text = re.sub(r"/\*.*?\*/", "", (CSS / sheet).read_text(), flags=re.S)
    found = [m.group(0) for m in LITERAL.finditer(text)]
    assert not found, f"{sheet}: colours outside theme.css {found} (add a token to theme.css)"


def test_every_token_used_is_defined() -> None:
    defined = set(themes()) | {"radius", "gap"}
    for sheet in CSS.glob("*.css"):
        used = set(re.findall(r"var\(--([a-z0-9-]+)", sheet.read_text()))
        assert used <= defined, f"{sheet.name}: undefined tokens {sorted(used - defined)}"


@pytest.mark.parametrize("theme", [0, 1], ids=["light", "dark"])
@pytest.mark.parametrize(("text", "background"), TEXT_PAIRS)
def test_text_contrast(text: str, background: str, theme: int) -> None:
    colours = themes()
    ratio = contrast(colours[text][theme], colours[background][theme])
    assert ratio >= 4.5, f"--{text} on --{background}: {ratio:.2f}:1"


# (edge, background) token pairs: an outline that shows a shape whose fill is close to the background.
EDGE_PAIRS = [("undead-line", "panel"), ("undead-line", "surface"), ("undead-line", "bg")]


@pytest.mark.parametrize("theme", [0, 1], ids=["light", "dark"])
@pytest.mark.parametrize(("edge", "background"), EDGE_PAIRS)
def test_edge_contrast(edge: str, background: str, theme: int) -> None:
    colours = themes()
    ratio = contrast(colours[edge][theme], colours[background][theme])
    assert ratio >= 3, f"--{edge} on --{background}: {ratio:.2f}:1"


UNDEAD_CHIPS = [("throne.css", ".faction-chip.undead"), ("help.css", ".swatch.undead")]


@pytest.mark.parametrize(("sheet", "selector"), UNDEAD_CHIPS)
def test_the_near_black_undead_chip_is_outlined(sheet: str, selector: str) -> None:
    """--undead is about as dark as the dark panels (1.3:1), so its chip needs a ring of --undead-line."""
    colours = themes()
    assert contrast(colours["undead"][1], colours["panel"][1]) < 3  # why the ring is needed
    rule = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", (CSS / sheet).read_text())
    assert rule is not None
    assert re.search(r"(box-shadow|outline|border)[^;]*var\(--undead-line\)", rule.group(1)), rule.group(0)
