// Game clocks on the page: counts down from the server's `clocks` (remaining ms per seat, the running seat),
// measured from when the state arrived here (so the two machines' clocks need not agree). The server decides
// flag falls; this only shows them coming, with a low-time warning.

import { t, number } from "./i18n.js";

const LOW_MS = 20_000;

/** "m:ss" (or "h:mm:ss", or "N d hh:mm" for correspondence) of a number of milliseconds, in the page's digits
 * (Persian ۳:۰۵). */
export function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n) => number(n, { minimumIntegerDigits: 2 });
  // digits and colons form one number run: left to right in a right-to-left line too
  if (days > 0) return t("ui.clock.days", { days, time: `${two(h)}:${two(m)}` });
  if (h > 0) return `${number(h)}:${two(m)}:${two(s)}`;
  return `${number(m)}:${two(s)}`;
}

export class Clocks {
  constructor(container) {
    this.container = container;
    this.clocks = null;
    this.receivedAt = 0;
    this.names = [];
    this.timer = null;
  }

  setNames(names) {
    this.names = names;
    this.render();
  }

  /** A new `clocks` object from a `state` message (null: untimed). */
  update(clocks) {
    this.clocks = clocks || null;
    this.receivedAt = performance.now();
    this.container.hidden = !this.clocks;
    if (this.timer) clearInterval(this.timer);
    this.timer = this.clocks && this.clocks.running !== null ? setInterval(() => this.render(), 250) : null;
    this.render();
  }

  /** Milliseconds `seat` has left now, as far as this page can tell. */
  left(seat) {
    if (!this.clocks) return null;
    const base = this.clocks.remaining_ms[seat];
    return seat === this.clocks.running ? base - (performance.now() - this.receivedAt) : base;
  }

  render() {
    if (!this.clocks) return;
    const rows = this.clocks.remaining_ms.map((_, seat) => {
      const row = document.createElement("div");
      row.className = "clock";
      row.dataset.seat = String(seat);
      const left = this.left(seat);
      if (seat === this.clocks.running) row.classList.add("running");
      if (left < LOW_MS && this.clocks.control.kind === "fischer") row.classList.add("low");
      const name = document.createElement("bdi");
      name.textContent = this.names[seat] || `#${number(seat)}`;
      const time = document.createElement("span");
      time.className = "clock-time";
      time.textContent = formatMs(left);
      row.append(name, time);
      return row;
    });
    this.container.replaceChildren(...rows);
  }
}
