// Plain-language sentences for the engine's move events (state messages and replays carry them; the server
// never lets an event name a card this seat may not see). Names are isolated with <bdi> so that a Latin
// name inside a Persian sentence (or the reverse) keeps its order. No rule lives here: only wording.
import { t, has, cardName, pieceName, lang, number } from "./i18n.js";

const OWNED = new Set(["bury", "place", "take", "return", "turn-up", "turn-down"]);
const ZONE_KEYS = { tavern: "hl.zone.tavern", harbor: "hl.zone.harbor", wilderness: "hl.zone.wilderness", graveyard: "hl.zone.graveyard" };

/** `key` filled with `params`, as a fragment: every parameter inside its own <bdi>. A sentence whose subject is
 * the player reads from the key's `.you` form (a Persian verb agrees with "you": کردید, not کرد). */
export function fill(key, params = {}) {
  const text = t(params.who !== undefined && params.who === t("ui.ev.you") && has(`${key}.you`) ? `${key}.you` : key);
  const frag = document.createDocumentFragment();
  let last = 0;
  const re = /\{([a-z_]+)\}/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) frag.append(text.slice(last, m.index));
    const value = params[m[1]];
    if (value instanceof Node) frag.append(value);
    else {
      const bdi = document.createElement("bdi");
      bdi.textContent = value === undefined ? m[0] : typeof value === "number" ? number(value) : String(value);
      if (bdi.textContent.length <= 24) bdi.className = "nw"; // names and cells never break; phrases may
      frag.append(bdi);
    }
    last = re.lastIndex;
  }
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}

function plain(frag) {
  return frag.textContent;
}

function list(items) {
  try {
    return new Intl.ListFormat(lang(), { style: "long", type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** The sentences of a list of events, one string-or-fragment per sentence (some events merge). */
export function narrate(events, ctx) {
  const out = [];
  for (let i = 0; i < events.length; i += 1) {
    const ev = events[i];
    const next = events[i + 1];
    if (ev.type === "play" && next && next.type === "markers" && next.ply === ev.ply) {
      out.push({ ev, node: fill("ui.ev.hl.play_markers", { who: who(ev.seat, ctx), card: cardName(ev.card), change: markerChange(next) }) });
      i += 1;
      continue;
    }
    const node = sentence(ev, ctx);
    if (node) out.push({ ev, node });
  }
  return out;
}

/** The log narrates for the Leaders board (sides South / North, numbered turns) when its renderer is that. */
function onBoard(ctx) {
  return ctx.renderer === "leaders-table";
}

/** "You" for the viewer's own seat, else the seat's name (Leaders: South / North). */
export function who(seat, ctx) {
  if (seat === ctx.seat && seat !== null && seat !== undefined) return t("ui.ev.you");
  if (onBoard(ctx)) return t(seat === 0 ? "ui.leaders.south" : "ui.leaders.north");
  return ctx.name ? ctx.name(seat) : String(seat);
}

/** "your Assassin" / "North's Manipulator". */
function piece(code, side, ctx) {
  const name = pieceName(code);
  if (side === ctx.seat) return t("ui.ev.your_piece", { piece: name });
  return t("ui.ev.whose_piece", { side: who(side, ctx), piece: name });
}

function path(cells) {
  return cells.join(" → ");
}

function markerChange(ev) {
  const parts = [];
  for (const name of ["red", "green", "guardian"]) {
    if (!ev[name]) continue;
    const [a, b] = ev[name];
    if (a === b) continue;
    const d = b - a;
    parts.push(t(`ui.ev.hl.marker.${name}`, { d: d > 0 ? `+${d}` : `−${-d}`, to: b }));
  }
  return parts.length ? list(parts) : t("ui.ev.hl.marker.none");
}

function cardsText(ev) {
  const names = (ev.cards || []).map(cardName);
  const hidden = ev.count - names.length;
  if (hidden === 1) names.push(t("ui.ev.hl.hidden_one"));
  else if (hidden > 1) names.push(t("ui.ev.hl.hidden_n", { n: hidden }));
  return list(names);
}

function owner(zone, ctx) {
  return zone && zone.seat !== undefined ? who(zone.seat, ctx) : "";
}

function sentence(ev, ctx) {
  const by = who(ev.seat, ctx);
  switch (ev.type) {
    // ---- Leaders
    case "move":
      if (ev.ability && ev.piece !== "L") return fill("ui.ev.l.ability", { piece: capitalise(piece(ev.piece, ev.side, ctx)), path: path(ev.path) });
      return fill("ui.ev.l.move", { piece: capitalise(piece(ev.piece, ev.side, ctx)), path: path(ev.path) });
    case "displace":
      return fill(`ui.ev.l.by_${ev.how}`, { by: capitalise(piece(ev.by, ev.by_side, ctx)), piece: piece(ev.piece, ev.side, ctx), from: ev.from, to: ev.to });
    case "reaction":
      return fill("ui.ev.l.reaction", { piece: capitalise(piece(ev.piece, ev.side, ctx)), path: path(ev.path) });
    case "recruit":
      return fill("ui.ev.l.recruit", { who: who(ev.side, ctx), card: pieceName(ev.card), cells: list(ev.cells) });
    case "refill":
      return ev.card ? fill("ui.ev.l.refill", { card: pieceName(ev.card) }) : fill("ui.ev.l.refill_empty");
    case "ban":
      return fill("ui.ev.l.ban", { who: who(ev.side, ctx), card: pieceName(ev.card) });
    case "turn-end":
      if (onBoard(ctx)) return fill("ui.ev.l.turn_end", { who: who(ev.side, ctx), n: ev.turn });
      return fill("ui.ev.hl.turn_end", { who: by });
    case "game-end":
      return onBoard(ctx) ? leadersEnding(ev, ctx) : hiddenEnding(ev, ctx);
    // ---- Hidden Leaders
    case "setup":
      return fill("ui.ev.hl.setup", { who: by });
    case "play":
      return fill("ui.ev.hl.play", { who: by, card: cardName(ev.card) });
    case "pass":
      return fill("ui.ev.hl.pass", { who: by });
    case "decision":
      return fill("ui.ev.hl.decision", { who: by, choice: ctx.choice ? ctx.choice(ev.move) : ev.move });
    case "markers":
      return fill("ui.ev.hl.markers", { change: markerChange(ev) });
    case "cards": {
      // whose party or hand: yours ("_you"), the actor's own ("_self"), or another seat's
      const zone = ev.verb === "place" || ev.verb === "return" ? ev.to : ev.from;
      const seat = zone && zone.seat !== undefined ? zone.seat : ev.to.seat;
      let key = `ui.ev.hl.${ev.verb === "take" && ev.from.seat === undefined ? "draw" : ev.verb}`;
      if (OWNED.has(ev.verb) && seat !== undefined && !key.endsWith(".draw")) {
        if (seat === ctx.seat && ctx.seat !== null) key += "_you";
        else if (seat === ev.seat) key += "_self";
      }
      return fill(key, {
        who: ev.verb === "return" || ev.verb.startsWith("turn-") ? who(seat, ctx) : by,
        cards: cardsText(ev),
        owner: seat === undefined ? "" : who(seat, ctx),
        source: t(ZONE_KEYS[ev.from.zone] || "ui.ev.hl.zone.other"),
      });
    }
    case "look":
      return fill(`ui.ev.hl.look_${ev.zone}${ev.count > 1 ? "_n" : ""}${ev.owner === ctx.seat && ctx.seat !== null && ev.zone !== "wilderness" ? "_you" : ""}`, {
        who: who(ev.seat, ctx),
        owner: ev.owner === null ? "" : who(ev.owner, ctx),
        n: ev.count,
        cards: ev.cards && ev.cards.length ? `: ${list(ev.cards.map(cardName))}` : "",
      });
    case "fate":
      return fill("ui.ev.hl.fate", { who: who(ev.seat, ctx) });
    case "skip-next":
      return fill("ui.ev.hl.skip_next", { who: who(ev.seat, ctx) });
    case "turn-skipped":
      return fill("ui.ev.hl.turn_skipped", { who: who(ev.seat, ctx) });
    default:
      return null;
  }
}

/** "South's Rider c3 and Archer d6 captured North's Leader on d4" (or surrounded, or a draw). */
export function leadersEnding(ev, ctx) {
  if (ev.reason === "capture" || ev.reason === "surround") {
    const leader = piece("L", ev.loser, ctx);
    if (ev.reason === "surround") return fill("ui.ev.l.surround", { leader: capitalise(leader), cell: ev.leader });
    const side = ev.pieces.length ? ev.pieces[0].side : 1 - ev.loser;
    const names = list(ev.pieces.map((p) => `${pieceName(p.piece)} ${p.cell}`));
    const pieces = side === ctx.seat ? t("ui.ev.your_pieces", { pieces: names }) : t("ui.ev.whose_pieces", { side: who(side, ctx), pieces: names });
    return fill("ui.ev.l.capture", { pieces: capitalise(pieces), leader, cell: ev.leader });
  }
  return fill(`ui.leaders.termination.${ev.reason}`);
}

/** The winning faction and why; the seats that reached the threshold. */
export function hiddenEnding(ev, ctx) {
  const frag = fill("ui.ev.hl.end", { faction: t(`hl.faction.${ev.faction}`), why: t(`ui.ev.hl.why.${ev.why}`, ev.markers || {}) });
  const reached = Object.entries(ev.seats || {}).map(([seat, n]) => plain(fill("ui.ev.hl.reached", { who: who(Number(seat), ctx), n })));
  if (reached.length) frag.append(" ", list(reached), ".");
  return frag;
}

/** The narrated log in an <ol> (newest last); the sentences of the opponents' last turn are marked. */
export class EventLog {
  constructor(list, ctx) {
    this.list = list;
    this.ctx = ctx;
    this.entries = []; // {ev, fresh}
  }

  clear() {
    this.entries = [];
    this.render();
  }

  add(events, { fresh = false } = {}) {
    for (const ev of events) this.entries.push({ ev, fresh: fresh && (ev.seat !== this.ctx.seat || this.ctx.seat === null) });
    this.render();
  }

  /** Every event up to ply `upto` (a reconnect's history), keeping those already shown after it. */
  replace(events, upto) {
    const later = this.entries.filter((e) => Number(e.ev.ply) > upto);
    this.entries = events.map((ev) => ({ ev, fresh: false })).concat(later);
    this.render();
  }

  /** The player acted: the marks of the opponents' last turn go. */
  unmark() {
    for (const e of this.entries) e.fresh = false;
    if (this.list) for (const li of this.list.querySelectorAll("li.fresh")) li.classList.remove("fresh");
  }

  render() {
    if (!this.list) return; // a page without a log (the tutorials)
    const items = [];
    const events = this.entries.map((e) => e.ev);
    const fresh = new Set(this.entries.filter((e) => e.fresh).map((e) => e.ev));
    for (const { ev, node } of narrate(events, this.ctx)) {
      const li = document.createElement("li");
      li.className = "ev";
      li.dataset.type = ev.type;
      li.dataset.ply = ev.ply ?? "";
      li.dataset.seat = ev.seat ?? "";
      if (fresh.has(ev)) li.classList.add("fresh");
      li.append(node);
      items.push(li);
    }
    this.list.replaceChildren(...items);
    this.list.scrollTop = this.list.scrollHeight;
  }
}
