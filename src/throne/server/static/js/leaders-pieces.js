// The Leaders piece symbols: one original geometric design per piece (leaders.md §2: the Leader and the 17
// champion pieces, the Cub included), drawn in one colour (currentColor) on a 24-unit square centred on 0, so
// each stays recognisable at 40 px and in greyscale. They live once per page in an inline sprite of <symbol>s
// (`ensureSprite`); the board, the market and the help draw them with <use href="#lp-CODE">.

const SVG = "http://www.w3.org/2000/svg";
const SPRITE_ID = "leaders-piece-sprite";

// Shapes: [tag, attributes]. "F" fills with the ink, "S" strokes with it (width 2.2 unless given).
const F = { fill: "currentColor" };
const S = { fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linecap": "round", "stroke-linejoin": "round" };

/** Every piece code → its shapes. */
export const GLYPHS = {
  // Leader: a crown with three jewels
  L: [
    ["path", { ...F, d: "M-9 7 L-9.5 -4 L-4.5 1 L0 -7 L4.5 1 L9.5 -4 L9 7 Z" }],
    ["circle", { ...F, cx: -9.5, cy: -6.5, r: 2 }],
    ["circle", { ...F, cx: 0, cy: -9.5, r: 2 }],
    ["circle", { ...F, cx: 9.5, cy: -6.5, r: 2 }],
  ],
  // Acrobat: a leap arching over a ball
  AC: [
    ["path", { ...S, "stroke-width": 2.6, d: "M-9 8 Q-6 -11 6 1" }],
    ["path", { ...F, d: "M9.5 4.5 L2.6 3.2 L7.4 -2 Z" }],
    ["circle", { ...F, cx: 0, cy: 7, r: 3.2 }],
  ],
  // Rider: a horseshoe
  RI: [
    ["path", { ...S, "stroke-width": 4.2, "stroke-linecap": "butt", d: "M-6.5 -9 L-6.5 1 A6.5 6.5 0 0 0 6.5 1 L6.5 -9" }],
    ["rect", { ...F, x: -10, y: -11, width: 7, height: 3 }],
    ["rect", { ...F, x: 3, y: -11, width: 7, height: 3 }],
  ],
  // Bruiser: a fat arrow shoving into a wall
  BR: [
    ["path", { ...F, d: "M-11 -3.5 L0 -3.5 L0 -9 L8 0 L0 9 L0 3.5 L-11 3.5 Z" }],
    ["rect", { ...F, x: 9, y: -10, width: 2.5, height: 20 }],
  ],
  // Royal Guard: a halberd
  RG: [
    ["path", { ...S, d: "M0 -8 L0 11" }],
    ["path", { ...F, d: "M0 -12 L2.4 -7 L-2.4 -7 Z" }],
    ["path", { ...F, d: "M1 -6 Q9.5 -7 9 -1 Q8.5 3.5 1 1.5 Z" }],
    ["path", { ...F, d: "M-1 -5 L-5.5 -3 L-1 -1 Z" }],
  ],
  // Illusionist: two arrows swapping places
  IL: [
    ["path", { ...S, d: "M-9 -4 L5 -4" }],
    ["path", { ...F, d: "M10 -4 L4 -9 L4 1 Z" }],
    ["path", { ...S, d: "M9 4 L-5 4" }],
    ["path", { ...F, d: "M-10 4 L-4 -1 L-4 9 Z" }],
  ],
  // Claw Launcher: a grappling hook on its line
  CL: [
    ["circle", { ...S, cx: 0, cy: -8.5, r: 2.4 }],
    ["path", { ...S, d: "M0 -6 L0 8" }],
    ["path", { ...S, d: "M-8 -1 Q-8 8 0 8 Q8 8 8 -1" }],
    ["path", { ...F, d: "M-8 -4 L-10.8 0.5 L-5.2 0.5 Z" }],
    ["path", { ...F, d: "M8 -4 L10.8 0.5 L5.2 0.5 Z" }],
  ],
  // Manipulator: a puppeteer's cross with strings
  MA: [
    ["path", { ...S, d: "M-9 -6 L9 -6 M0 -11 L0 -1" }],
    ["path", { ...S, "stroke-width": 1.3, d: "M-8 -6 L-8 5 M8 -6 L8 5 M0 -1 L0 7" }],
    ["circle", { ...F, cx: -8, cy: 7, r: 2.4 }],
    ["circle", { ...F, cx: 8, cy: 7, r: 2.4 }],
    ["circle", { ...F, cx: 0, cy: 9, r: 2.4 }],
  ],
  // Wanderer: a compass rose (a four-pointed star in its ring)
  WA: [
    ["circle", { ...S, "stroke-width": 1.8, cx: 0, cy: 0, r: 7 }],
    ["path", { ...F, d: "M0 -11.5 L2.6 -2.6 L11.5 0 L2.6 2.6 L0 11.5 L-2.6 2.6 L-11.5 0 L-2.6 -2.6 Z" }],
  ],
  // Brewmaster: a foaming tankard
  BM: [
    ["rect", { ...F, x: -7.5, y: -4, width: 11, height: 14, rx: 1.5 }],
    ["path", { ...S, d: "M3.5 -1 L8 -1 L8 6 L3.5 6" }],
    ["circle", { ...F, cx: -5, cy: -5.5, r: 3 }],
    ["circle", { ...F, cx: -1, cy: -7.5, r: 3.2 }],
    ["circle", { ...F, cx: 3, cy: -5.5, r: 2.7 }],
  ],
  // Archer: a drawn bow with its arrow
  AR: [
    ["path", { ...S, d: "M-4 -10 Q10 0 -4 10" }],
    ["path", { ...S, "stroke-width": 1.2, d: "M-4 -10 L-4 10" }],
    ["path", { ...S, "stroke-width": 1.8, d: "M-10 0 L7 0" }],
    ["path", { ...F, d: "M11 0 L6 -3.5 L6 3.5 Z" }],
    ["path", { ...S, "stroke-width": 1.4, d: "M-10 0 L-12 -3 M-10 0 L-12 3" }],
  ],
  // Assassin: a dagger pointing up
  AS: [
    ["path", { ...F, d: "M0 -12 L3.8 -2 L-3.8 -2 Z" }],
    ["rect", { ...F, x: -7, y: -2.2, width: 14, height: 3, rx: 1 }],
    ["rect", { ...F, x: -1.5, y: 0.6, width: 3, height: 7 }],
    ["circle", { ...F, cx: 0, cy: 9.5, r: 2.3 }],
  ],
  // Jailer: a barred window
  JA: [
    ["rect", { ...S, x: -8.5, y: -8.5, width: 17, height: 17, rx: 1.5 }],
    ["path", { ...S, d: "M-3 -8.5 L-3 8.5 M3 -8.5 L3 8.5 M-8.5 0 L8.5 0" }],
  ],
  // Protector: a shield
  PR: [
    ["path", { ...F, d: "M0 -11 L9 -7.5 L9 0 Q9 7.5 0 11.5 Q-9 7.5 -9 0 L-9 -7.5 Z" }],
  ],
  // Vizier: a crescent and a star
  VI: [
    ["path", { ...F, d: "M5.7 -8.2 A10 10 0 1 0 5.7 8.2 A8.5 8.5 0 0 1 5.7 -8.2 Z" }],
    ["path", { ...F, d: "M6 -4.5 L7.3 -1.3 L10.6 -1.2 L8 0.9 L8.9 4.1 L6 2.2 L3.1 4.1 L4 0.9 L1.4 -1.2 L4.7 -1.3 Z" }],
  ],
  // Hermit: a lantern with its flame
  HE: [
    ["circle", { ...S, "stroke-width": 1.6, cx: 0, cy: -10, r: 1.8 }],
    ["path", { ...F, d: "M-4 -8 L4 -8 L6.5 -5 L-6.5 -5 Z" }],
    ["rect", { ...S, "stroke-width": 2, x: -5.5, y: -5, width: 11, height: 12 }],
    ["path", { ...F, d: "M0 -3 Q3.5 1.5 0 5 Q-3.5 1.5 0 -3 Z" }],
    ["rect", { ...F, x: -7, y: 7, width: 14, height: 3, rx: 1 }],
  ],
  // Cub: a paw print
  CU: [
    ["ellipse", { ...F, cx: 0, cy: 4, rx: 5.5, ry: 4.8 }],
    ["circle", { ...F, cx: -7, cy: -2.5, r: 2.5 }],
    ["circle", { ...F, cx: -2.6, cy: -7.5, r: 2.6 }],
    ["circle", { ...F, cx: 2.6, cy: -7.5, r: 2.6 }],
    ["circle", { ...F, cx: 7, cy: -2.5, r: 2.5 }],
  ],
  // Nemesis: a lightning bolt (it strikes back when the enemy Leader moves)
  NE: [
    ["path", { ...F, d: "M3.5 -12 L-7 1.5 L-0.5 1.5 L-4 12 L7.5 -2.5 L1 -2.5 L5.5 -12 Z" }],
  ],
};

/** Every piece code with a symbol (the Leader first, then the engine's table order). */
export const CODES = Object.keys(GLYPHS);

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** Put the sprite of every piece symbol into the page once (a hidden <svg> at the end of <body>). */
export function ensureSprite(doc = document) {
  if (doc.getElementById(SPRITE_ID)) return;
  const sprite = el("svg", { id: SPRITE_ID, "aria-hidden": "true", focusable: "false", width: 0, height: 0, class: "sprite" });
  const defs = el("defs", {}, sprite);
  for (const [code, shapes] of Object.entries(GLYPHS)) {
    const symbol = el("symbol", { id: `lp-${code}`, viewBox: "-12 -12 24 24" }, defs);
    for (const [tag, attrs] of shapes) el(tag, attrs, symbol);
  }
  doc.body.appendChild(sprite);
}

/** A <use> of the symbol of `code`, `size` units square, centred on (x, y). */
export function glyph(code, x, y, size, parent = null) {
  ensureSprite();
  return el("use", { href: `#lp-${code}`, class: "glyph", x: x - size / 2, y: y - size / 2, width: size, height: size }, parent);
}

/** A small standalone icon of a piece (for the market cards and the help): a token of the side's colour and
 * shape (`side` null: a neutral round token) with the piece's symbol. */
export function pieceIcon(code, side = null, px = 28) {
  ensureSprite();
  const sideClass = side === 0 ? "south" : side === 1 ? "north" : "neutral";
  const svg = el("svg", { class: `piece-icon ${sideClass}`, viewBox: "-13 -13 26 26", width: px, height: px, "aria-hidden": "true", focusable: "false" });
  if (side === 1) el("polygon", { class: `body ${sideClass}`, points: "0,-12.5 12.5,0 0,12.5 -12.5,0" }, svg);
  else el("circle", { class: `body ${sideClass}`, cx: 0, cy: 0, r: 12 }, svg);
  glyph(code, 0, 0, side === 1 ? 14 : 17, svg);
  return svg;
}
