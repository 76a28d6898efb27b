// Replays the actions of a received turn on the freshly drawn board: each piece glides along its path, a
// pushed piece slides, a recruited card flies in from the market (~400 ms per action). A click on the board
// or the Skip button ends them at once; with prefers-reduced-motion nothing moves.

const STEP_MS = 420;

function reduced() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function centreOf(svg, cell) {
  const poly = svg.querySelector(`g.cell[data-cell="${cell}"] polygon`);
  if (!poly) return null;
  const box = poly.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

function pieceEl(svg, code, side) {
  return svg.querySelector(`g.piece[data-piece="${code}"][data-side="${side}"]`);
}

function glide(svg, el, cells, delay) {
  const home = el.closest("g.cell");
  const end = home ? centreOf(svg, home.dataset.cell) : null;
  const points = cells.map((c) => centreOf(svg, c));
  if (!end || points.some((p) => !p)) return null;
  const frames = points.map(([x, y]) => ({ transform: `translate(${x - end[0]}px, ${y - end[1]}px)` }));
  frames.push({ transform: "translate(0px, 0px)" });
  return el.animate(frames, { duration: STEP_MS, delay, easing: "ease-in-out", fill: "backwards" });
}

function fly(svg, source, el, delay) {
  if (!source) return null;
  const from = source.getBoundingClientRect();
  const to = el.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  // the piece's own coordinates are SVG units: scale the screen offset by the board's zoom
  const scale = svg.getScreenCTM ? svg.getScreenCTM().a || 1 : 1;
  const start = `translate(${dx / scale}px, ${dy / scale}px) scale(1.6)`;
  return el.animate([{ transform: start, opacity: 0.2 }, { transform: "translate(0px, 0px) scale(1)", opacity: 1 }], {
    duration: STEP_MS, delay, easing: "ease-out", fill: "backwards",
  });
}

/** Animate `events` (Leaders) on `svg`; `market` is where recruited cards come from. Returns a promise. */
export function playTurn(svg, events, { market = null, onStart = null, onEnd = null } = {}) {
  if (reduced() || !events.length) return Promise.resolve();
  const running = [];
  let delay = 0;
  for (const ev of events) {
    let anim = null;
    if (ev.type === "move" || ev.type === "reaction") {
      const el = pieceEl(svg, ev.piece, ev.side);
      if (el) anim = glide(svg, el, ev.path, delay);
    } else if (ev.type === "displace") {
      const el = pieceEl(svg, ev.piece, ev.side);
      if (el) anim = glide(svg, el, [ev.from, ev.to], delay);
    } else if (ev.type === "recruit") {
      const codes = ev.card === "HE" ? ["HE", "CU"] : [ev.card];
      for (const code of codes) {
        const el = pieceEl(svg, code, ev.side);
        if (el) {
          const a = fly(svg, market, el, delay);
          if (a) running.push(a);
        }
      }
      delay += STEP_MS;
      continue;
    }
    if (anim) {
      running.push(anim);
      delay += STEP_MS;
    }
  }
  if (!running.length) return Promise.resolve();
  if (onStart) onStart();
  const skip = () => running.forEach((a) => a.finish());
  svg.addEventListener("pointerdown", skip, { once: true });
  playTurn.skip = skip;
  return Promise.all(running.map((a) => a.finished.catch(() => null))).then(() => {
    svg.removeEventListener("pointerdown", skip);
    if (onEnd) onEnd();
  });
}

/** The cells an event touched, in order (for the marks of the last opponent turn). */
export function cellsOfEvent(ev) {
  if (ev.type === "move" || ev.type === "reaction") return ev.path;
  if (ev.type === "displace") return [ev.from, ev.to];
  if (ev.type === "recruit") return ev.cells;
  return [];
}
