// The Leaders board as SVG (leaders.md §1): 37 flat-topped hexes in columns a..g, row 1 at the bottom (South).
// South pieces are round tokens, North pieces diamonds (shape, not only colour), each with its symbol
// (leaders-pieces.js) and its code as a small label; the Leader's token has a gold rim. A piece that acted this
// turn carries a check badge (never faded). Cell names stay readable: large in empty cells, under the token in
// occupied ones; every cell also has its name as a tooltip (<title>).
import { t, pieceName } from "./i18n.js";
import { glyph } from "./leaders-pieces.js";

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 30;
const COLUMNS = "abcdefg";
const SOUTH_RECRUIT = new Set(["a1", "b1", "c1", "d1", "e1", "f1", "g1"]);
const NORTH_RECRUIT = new Set(["a4", "b5", "c6", "d7", "e6", "f5", "g4"]);
// Token geometry (SVG units; a cell is 60 wide, 52 tall): the token sits a little above the centre so the
// cell name fits under it.
const TOKEN_Y = -4;
const TOKEN_R = 17;
const DIAMOND = 20;

/** Every cell of the board as {name, q, r}. */
export function cells() {
  const out = [];
  for (let q = -3; q <= 3; q += 1) {
    for (let r = -3; r <= 3; r += 1) {
      if (Math.max(Math.abs(q), Math.abs(r), Math.abs(q + r)) > 3) continue;
      out.push({ name: cellName(q, r), q, r });
    }
  }
  return out;
}

/** Board neighbours of a cell (geometry of leaders.md §1, for drawing only). */
export function neighbours(name) {
  const q = COLUMNS.indexOf(name[0]) - 3;
  const r = Math.min(3, 3 - q) - Number(name.slice(1)) + 1;
  const steps = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
  return steps
    .map(([dq, dr]) => [q + dq, r + dr])
    .filter(([a, b]) => Math.max(Math.abs(a), Math.abs(b), Math.abs(a + b)) <= 3)
    .map(([a, b]) => cellName(a, b));
}

export function cellName(q, r) {
  const rMax = Math.min(3, 3 - q);
  return `${COLUMNS[q + 3]}${rMax - r + 1}`;
}

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function centre(q, r, flip) {
  const x = SIZE * 1.5 * q;
  const y = SIZE * Math.sqrt(3) * (r + q / 2);
  return flip ? [-x, -y] : [x, y];
}

function hexPoints(cx, cy) {
  const pts = [];
  for (let i = 0; i < 6; i += 1) {
    const a = (Math.PI / 3) * i;
    pts.push(`${(cx + SIZE * Math.cos(a)).toFixed(2)},${(cy + SIZE * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

function sideName(side) {
  return t(side === 0 ? "ui.leaders.south" : "ui.leaders.north");
}

/**
 * Draw `view` into `svg`.
 * @param {SVGSVGElement} svg
 * @param {object} view the engine's Leaders view (pieces, acted, turn, …)
 * @param {{flip?: boolean, highlight?: Map<string,string>, clickable?: Set<string>,
 *          onCell?: (name: string) => void, lastMove?: string[], lost?: string|null,
 *          marks?: Map<string,number>, culprits?: Set<string>, onRefused?: (name: string) => void,
 *          explain?: Set<string>}} opts
 *   highlight: cell → "dest" | "target" | "selected" | "path"; clickable: cells that react to clicks/keys;
 *   marks: cells the opponent's last turn touched → the number of the action; culprits: the capturing pieces;
 *   onRefused: called for a click on a cell that is not clickable; explain: cells whose piece answers a click
 *   with that message rather than with its help (help.js).
 */
export function drawBoard(svg, view, opts = {}) {
  const { flip = false, highlight = new Map(), clickable = new Set(), onCell = null, lastMove = [], lost = null,
    marks = new Map(), culprits = new Set(), onRefused = null, explain = new Set() } = opts;
  const focused = document.activeElement && svg.contains(document.activeElement)
    ? document.activeElement.getAttribute("data-cell") : null;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `${-SIZE * 5.7} ${-SIZE * 6.3} ${SIZE * 11.4} ${SIZE * 12.6}`);
  svg.setAttribute("role", "group");
  const byCell = new Map();
  for (const piece of view.pieces || []) byCell.set(piece.cell, piece);
  const acted = new Set(view.acted || []);
  const last = new Set(lastMove);

  const around = new Set();
  if (lost !== null) {
    const leader = (view.pieces || []).find((p) => p.code === "L" && p.side === lost);
    if (leader) for (const cell of neighbours(leader.cell)) around.add(cell);
  }
  for (const { name, q, r } of cells()) {
    const [cx, cy] = centre(q, r, flip);
    const piece = byCell.get(name);
    const kind = highlight.get(name);
    const g = el("g", { class: "cell", "data-cell": name }, svg);
    if (kind) g.classList.add(kind);
    if (last.has(name) && !kind) g.classList.add("path");
    if (around.has(name)) g.classList.add("around-lost");
    if (marks.has(name)) g.classList.add("marked");
    if (culprits.has(name)) g.classList.add("culprit");
    let hexClass = "hex";
    if (SOUTH_RECRUIT.has(name)) hexClass += " recruit-south";
    if (NORTH_RECRUIT.has(name)) hexClass += " recruit-north";
    el("polygon", { class: hexClass, points: hexPoints(cx, cy) }, g);
    const label = piece
      ? el("text", { class: "cell-label under", x: cx, y: cy + 24.5, "text-anchor": "middle" }, g)
      : el("text", { class: "cell-label", x: cx, y: cy + 4, "text-anchor": "middle" }, g);
    label.textContent = name;
    const title = el("title", {}, g);
    let description = t("ui.leaders.cell", { cell: name });
    if (piece) {
      description = t("ui.leaders.piece_on", { side: sideName(piece.side), piece: pieceName(piece.code), cell: name });
      if (t(`leaders.piece.${piece.code}.text`) !== `leaders.piece.${piece.code}.text`) {
        description += ` — ${t(`leaders.piece.${piece.code}.text`)}`;
      }
      const spent = !view.is_over && piece.side === view.turn && acted.has(piece.code);
      if (spent) description += ` (${t("ui.leaders.acted_badge")})`;
      drawPiece(g, piece, cx, cy, spent);
    }
    title.textContent = description;
    if (marks.has(name) && marks.get(name) !== "") {
      const badge = el("g", { class: "mark-badge" }, g);
      el("circle", { cx: cx - 16, cy: cy - 17, r: 7.5 }, badge);
      const num = el("text", { x: cx - 16, y: cy - 17 + 3.5, "text-anchor": "middle" }, badge);
      num.textContent = String(marks.get(name));
    }
    if (lost !== null && piece && piece.code === "L" && piece.side === lost) {
      el("circle", { class: "lost-mark", cx, cy, r: 27 }, g); // around the token and the cell name
    }
    if (!clickable.has(name) && onRefused) {
      if (explain.has(name)) g.classList.add("explain");
      g.addEventListener("click", () => onRefused(name));
    }
    if (clickable.has(name)) {
      g.classList.add("clickable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", description);
      const fire = () => onCell && onCell(name);
      g.addEventListener("click", fire);
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          fire();
        }
      });
    }
  }
  if (focused) {
    const again = svg.querySelector(`[data-cell="${focused}"][tabindex]`);
    if (again) again.focus();
  }
}

/** A token of the piece's side (South round, North a diamond) with its symbol, its code and, once it acted this
 * turn, a check badge. */
function drawPiece(g, piece, cx, cy, acted) {
  const side = piece.side === 0 ? "south" : "north";
  const p = el("g", { class: `piece ${side}${acted ? " acted" : ""}`, "data-piece": piece.code, "data-side": piece.side }, g);
  const y = cy + TOKEN_Y;
  const leader = piece.code === "L"; // a gold rim (CSS)
  const body = `body ${side}${leader ? " leader" : ""}`;
  if (piece.side === 0) el("circle", { class: body, cx, cy: y, r: TOKEN_R }, p);
  else el("polygon", { class: body, points: diamond(cx, y, DIAMOND) }, p);
  const size = piece.side === 0 ? 18 : 15;
  glyph(piece.code, cx, y - (piece.side === 0 ? 4.5 : 3.5), size, p).classList.add("symbol");
  const label = el("text", { class: "code", x: cx, y: y + (piece.side === 0 ? 12 : 11), "text-anchor": "middle" }, p);
  label.textContent = piece.code;
  if (acted) {
    const badge = el("g", { class: "acted-mark" }, p);
    el("circle", { cx: cx + 15, cy: y - 13, r: 6 }, badge);
    el("path", { d: `M${cx + 12} ${y - 13} l2 2.4 l4 -4.6` }, badge);
  }
}

function diamond(cx, cy, d) {
  return `${cx},${cy - d} ${cx + d},${cy} ${cx},${cy + d} ${cx - d},${cy}`;
}
