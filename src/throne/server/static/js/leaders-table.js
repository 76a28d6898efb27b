// The Leaders table: board, market, turn, acted pieces, move list, result — and the click-by-click move input
// built only from the legal move strings of the current state. A click that does nothing legal says why in a
// short message over the board; "End actions" asks first while a piece could still act (a setting, kept in
// localStorage, turns that off); a banner announces a turn of two recruitments (North's first turn).
import { t, pieceName, has, number, lang, bdi } from "./i18n.js";
import { drawBoard } from "./leaders-board.js";
import { pieceIcon } from "./leaders-pieces.js";
import { choices, cellsOf } from "./leaders-moves.js";
import { EventLog, leadersEnding } from "./narrate.js";
import { leftText } from "./generic-table.js";
import { playTurn, cellsOfEvent } from "./animate.js";

const $ = (sel, root = document) => root.querySelector(sel);
const CELL = /^[a-g][1-7]$/;
const CONFIRM_KEY = "throne.leaders.confirmEnd";
const MESSAGE_MS = 4000;

/** Whether "End actions" asks first while a piece could still act (on unless the player turned it off). */
export function confirmEnd() {
  try {
    return localStorage.getItem(CONFIRM_KEY) !== "off";
  } catch {
    return true;
  }
}

function setConfirmEnd(on) {
  try {
    localStorage.setItem(CONFIRM_KEY, on ? "on" : "off");
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

/** "a, b and c" in the page's language. */
function listOf(items) {
  try {
    return new Intl.ListFormat(lang(), { type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

function sideName(side) {
  return t(side === 0 ? "ui.leaders.south" : "ui.leaders.north");
}

function cardLabel(code) {
  return code === "HE" && has("leaders.card.HE.name") ? t("leaders.card.HE.name") : pieceName(code);
}

/** The market as buttons (names + ability texts); `pickable` codes react to clicks. In Strategist mode the
 * "market" is every available card, and the banished cards replace the deck count. */
export function renderMarket(container, view, { pickable = new Set(), chosen = null, onPick = null } = {}) {
  container.replaceChildren();
  const heading = container.parentElement && container.parentElement.querySelector("h2");
  if (heading) heading.textContent = t(view.mode === "strategist" ? "ui.leaders.available" : "ui.leaders.market");
  for (const code of view.market || []) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "market-card";
    if (!code) {
      button.disabled = true;
      button.textContent = "—";
      container.appendChild(button);
      continue;
    }
    button.dataset.code = code;
    const icon = pieceIcon(code, null, 34);
    const name = document.createElement("strong");
    name.textContent = `${cardLabel(code)} `;
    const codeEl = document.createElement("span");
    codeEl.className = "code";
    codeEl.textContent = `(${code})`;
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = t(`leaders.piece.${code}.text`);
    button.append(icon, name, codeEl, text);
    if (pickable.has(code)) {
      button.classList.add("clickable");
      button.setAttribute("aria-pressed", String(chosen === code));
      button.addEventListener("click", () => onPick && onPick(code));
    } else {
      // Not a move now, but still a button: a tap opens the card's help (help.js).
      button.setAttribute("aria-disabled", "true");
    }
    container.appendChild(button);
  }
  const deck = document.createElement("span");
  deck.className = "muted";
  if (view.mode === "strategist") {
    const banned = (view.banned || []).map(cardLabel).join(t("ui.list.sep")) || t("ui.leaders.none");
    deck.textContent = t("ui.leaders.banned", { cards: banned });
    deck.id = "banned";
  } else {
    deck.textContent = t("ui.leaders.deck", { n: view.deck_size === undefined ? "?" : number(view.deck_size) });
  }
  container.appendChild(deck);
}

/** Split a move list into turns for display: a turn closes after its recruitments, or after `end` when no
 * recruitment follows; a banishment stands alone (notation only, leaders.md §5.1). */
export function groupTurns(moves) {
  const turns = [];
  let current = [];
  let prev = null;
  for (const move of moves) {
    const ban = move.startsWith("ban ") || (prev !== null && prev.startsWith("ban "));
    const closes = prev !== null && (ban || (!move.startsWith("+") && (prev === "end" || prev.startsWith("+"))));
    if (closes) {
      turns.push(current);
      current = [];
    }
    current.push(move);
    prev = move;
  }
  if (current.length) turns.push(current);
  return turns;
}

/** Result line of a finished game from the view; `left`: why a bot played `mySeat` for its person (null: they
 * played it themselves), whose result is then not theirs. */
export function resultText(view, mySeat, left = null) {
  if (!view.is_over) return "";
  const how = view.termination ? t(`ui.leaders.termination.${view.termination}`) : "";
  const draw = view.winner === null || view.winner === undefined;
  if (left && (mySeat === 0 || mySeat === 1)) return `${leftText(left, mySeat, draw ? [] : [view.winner], sideName, `${t("ui.table.draw")}.`)} ${how}`;
  if (draw) return `${t("ui.table.draw")}. ${how}`;
  let head = t("ui.table.winner", { name: sideName(view.winner) });
  if (mySeat === 0 || mySeat === 1) head = t(mySeat === view.winner ? "ui.table.you_won" : "ui.table.you_lost");
  return `${head} ${how}`;
}

export class LeadersTable {
  constructor(root, { send, seat, seatName }) {
    this.root = root;
    this.send = send;
    this.seat = seat;
    this.seatName = seatName;
    this.view = null;
    this.legal = [];
    this.clicks = [];
    this.moves = [];
    this.marks = new Map(); // cells of the opponent's last turn → action number ("" for a path's middle)
    this.marksDone = false; // the marked turn has ended: the next opponent action starts new marks
    this.ending = null; // the game-end event, once seen
    this.started = false;
    this.log = new EventLog($("#event-log", root), { renderer: "leaders-table", seat, name: null });
    const skip = $("#skip-anim", root);
    if (skip) skip.addEventListener("click", () => playTurn.skip && playTurn.skip());
    this.messageTimer = null;
    $("#end-actions", root).addEventListener("click", () => this.endActions());
    $("#end-confirm-yes", root).addEventListener("click", () => this.play("end"));
    $("#end-confirm-no", root).addEventListener("click", () => this.closeConfirm(true));
    const setting = $("#confirm-end-setting", root);
    setting.checked = confirmEnd();
    setting.addEventListener("change", () => setConfirmEnd(setting.checked));
    $("#finish-step", root).addEventListener("click", () => {
      const { complete } = choices(this.legal, this.clicks);
      if (complete) this.play(complete);
    });
    $("#cancel-move", root).addEventListener("click", () => this.reset());
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      if (!$("#end-confirm", root).hidden) this.closeConfirm(true);
      else this.reset();
    });
  }

  setSeat(seat) {
    this.seat = seat;
    this.log.ctx.seat = seat;
  }

  /** A new state from the server: redraw everything, drop a half-made move; then mark, narrate and replay
   * the opponent's actions it reports (its `events`). */
  update(msg) {
    this.view = msg.view;
    this.left = msg.left ?? null; // why a bot plays this seat for its person (abandoned), from the state
    this.legal = msg.legal_moves || [];
    this.clicks = [];
    const events = msg.events || [];
    const theirs = this.noteEvents(events);
    this.render();
    this.log.add(events, { fresh: true });
    if (this.started && theirs.length) {
      const skip = $("#skip-anim", this.root);
      playTurn($("#board", this.root), theirs, {
        market: $("#market", this.root),
        onStart: () => { if (skip) skip.hidden = false; },
        onEnd: () => { if (skip) skip.hidden = true; },
      });
    }
    this.started = true;
  }

  /** Keep the marks of the last opponent turn (a spectator: of the last turn); returns the opponent's events. */
  noteEvents(events) {
    const theirs = events.filter((ev) => ev.seat !== this.seat || this.seat === null);
    for (const ev of events) if (ev.type === "game-end") this.ending = ev;
    if (!theirs.length) return theirs;
    if (this.marksDone) {
      this.marks.clear();
      this.log.unmark();
      this.marksDone = false;
    }
    let n = Math.max(0, ...[...this.marks.values()].filter((v) => v !== ""));
    for (const ev of theirs) {
      const cells = cellsOfEvent(ev);
      if (!cells.length) continue;
      n += 1;
      cells.forEach((cell, i) => {
        if (i === cells.length - 1 || ev.type === "recruit") this.marks.set(cell, n);
        else if (!this.marks.has(cell)) this.marks.set(cell, "");
      });
    }
    if (theirs.some((ev) => ev.type === "turn-end") && this.seat === null) this.marksDone = true;
    return theirs;
  }

  /** Replace the narrated log (a reconnect: the events of every move so far). */
  setEvents(events, upto = Infinity) {
    this.log.replace(events, upto);
    const known = this.ending;
    for (const ev of events) if (ev.type === "game-end") this.ending = ev;
    if (!known && this.ending && this.view && this.view.is_over) this.render(); // the result names the culprits
  }

  setMoves(moves) {
    this.moves = moves.slice();
    this.renderMoves();
  }

  pushMove(move) {
    this.moves.push(move);
    this.renderMoves();
  }

  /** Cells of own pieces that could still act now (the first clicks of the legal moves). */
  movableCells() {
    return [...choices(this.legal, []).next].filter((tok) => CELL.test(tok));
  }

  /** "End actions": at once, or after a confirmation while some piece could still act. */
  endActions() {
    const cells = this.movableCells();
    if (!cells.length || !confirmEnd()) {
      this.play("end");
      return;
    }
    const movable = new Set(cells);
    const names = (this.view.pieces || []).filter((p) => movable.has(p.cell)).map((p) => pieceName(p.code));
    $("#end-confirm-text", this.root).textContent = t("ui.leaders.confirm_end", { n: number(cells.length), pieces: listOf(names) });
    const box = $("#end-confirm", this.root);
    box.hidden = false;
    $("#end-confirm-yes", this.root).focus();
  }

  closeConfirm(focusEnd = false) {
    const box = $("#end-confirm", this.root);
    if (box.hidden) return;
    box.hidden = true;
    const end = $("#end-actions", this.root);
    if (focusEnd && !end.hidden) end.focus();
  }

  /** A short message over the board (a click that did nothing legal); it fades out by itself. */
  message(text) {
    const box = $("#board-msg", this.root);
    box.textContent = text;
    box.hidden = false;
    clearTimeout(this.messageTimer);
    this.messageTimer = setTimeout(() => { box.hidden = true; }, MESSAGE_MS);
  }

  clearMessage() {
    clearTimeout(this.messageTimer);
    $("#board-msg", this.root).hidden = true;
  }

  /** Say why a click on `cell` did nothing: it is not your turn, the piece cannot act, no move goes there… */
  refuse(cell) {
    const view = this.view;
    if (!view || view.is_over || (this.seat !== 0 && this.seat !== 1)) return;
    const piece = (view.pieces || []).find((p) => p.cell === cell);
    let text;
    if (!this.legal.length) text = t("ui.leaders.refuse.wait", { side: sideName(view.to_play) });
    else if (this.clicks.length) text = t("ui.leaders.refuse.not_there", { cell });
    else if (view.phase === "recruit") text = t("ui.leaders.refuse.card_first");
    else if (view.phase === "reaction") text = t("ui.leaders.refuse.nemesis");
    else if (view.phase === "ban") text = t("ui.leaders.hint.ban");
    else if (piece && piece.side === this.seat) {
      const spent = view.turn === this.seat && (view.acted || []).includes(piece.code);
      text = t(spent ? "ui.leaders.refuse.acted" : "ui.leaders.refuse.stuck", { piece: pieceName(piece.code) });
    } else if (piece) text = t("ui.leaders.refuse.enemy", { piece: pieceName(piece.code), side: sideName(piece.side) });
    else text = t("ui.leaders.refuse.empty", { cell });
    this.message(text);
  }

  reset() {
    if (this.clicks.length === 0) return;
    this.clicks = [];
    this.render();
  }

  play(move) {
    this.closeConfirm();
    this.clearMessage();
    this.clicks = [];
    this.marks.clear(); // you acted: the marks of the opponent's turn go
    this.log.unmark();
    this.send(move);
    this.legal = [];
    this.render();
  }

  click(token) {
    const here = choices(this.legal, this.clicks);
    if (!here.next.has(token)) {
      // A fresh start from another piece or card the player can use now.
      const root = choices(this.legal, []);
      if (!root.next.has(token)) return;
      this.clicks = [];
    }
    this.clearMessage();
    this.clicks.push(token);
    const after = choices(this.legal, this.clicks);
    if (after.next.size === 0 && after.complete) {
      this.play(after.complete);
      return;
    }
    this.render();
  }

  /** On a phone the market sits above the board, so the cells a picked card may go to can lie below the
   * screen (North's edge is at the bottom of its turned board): scroll just enough to show them with the
   * picked card still in sight, so a card and a cell are picked without scrolling. */
  revealRecruitCells(root) {
    if (!window.matchMedia("(max-width: 820px)").matches) return;
    const card = root.querySelector('#market .market-card[aria-pressed="true"]');
    const cells = [...root.querySelectorAll("#board .cell.dest, #board .cell.target")];
    if (!card || !cells.length) return;
    const boxes = [card, ...cells].map((el) => el.getBoundingClientRect());
    const top = Math.min(...boxes.map((b) => b.top));
    const bottom = Math.max(...boxes.map((b) => b.bottom));
    const margin = 8;
    let delta = 0;
    if (bottom > window.innerHeight - margin) delta = Math.min(bottom - window.innerHeight + margin, top - margin);
    else if (top < margin) delta = top - margin;
    if (delta !== 0) window.scrollBy({ top: delta, behavior: "instant" });
  }

  render() {
    const view = this.view;
    if (!view) return;
    const root = this.root;
    const { next, complete } = choices(this.legal, this.clicks);
    const occupied = new Set((view.pieces || []).map((p) => p.cell));
    const highlight = new Map();
    const clickable = new Set();
    for (const tok of this.clicks) if (/^[a-g][1-7]$/.test(tok)) highlight.set(tok, "selected");
    // A clicked cell that is also a next step was left by the piece moving now (the Cub onto the Hermit's cell):
    // it shows as a destination, not as a target or as selected.
    for (const tok of next) {
      if (/^[a-g][1-7]$/.test(tok)) {
        clickable.add(tok);
        const taken = occupied.has(tok) && !this.clicks.includes(tok);
        if (this.clicks.length > 0) highlight.set(tok, taken ? "target" : "dest");
      }
    }
    if (this.clicks.length > 0) {
      const first = this.clicks[0];
      if (/^[a-g][1-7]$/.test(first)) clickable.add(first);
    }
    // Other own pieces stay clickable to switch the selection.
    for (const tok of choices(this.legal, []).next) if (/^[a-g][1-7]$/.test(tok)) clickable.add(tok);
    // On your turn a click on one of your pieces that cannot act is answered by a message, not by its help.
    const explain = new Set();
    if (this.legal.length) {
      for (const p of view.pieces || []) if (p.side === this.seat && !clickable.has(p.cell)) explain.add(p.cell);
    }

    const lost = view.is_over && view.winner !== null && view.winner !== undefined ? 1 - view.winner : null;
    drawBoard($("#board", root), view, {
      flip: this.seat === 1,
      highlight,
      clickable,
      onCell: (cell) => (this.clicks.length === 1 && this.clicks[0] === cell ? this.reset() : this.click(cell)),
      onRefused: (cell) => this.refuse(cell),
      explain,
      lastMove: cellsOf(view.last_move),
      lost: view.termination === "capture" || view.termination === "surround" ? lost : null,
      marks: view.is_over ? new Map() : this.marks,
      culprits: new Set(this.ending && view.is_over ? this.ending.pieces.map((p) => p.cell) : []),
    });

    const marketCodes = new Set([...next].filter((tok) => tok.startsWith("+")).map((tok) => tok.slice(1)));
    const banCodes = new Set([...next].filter((tok) => tok.startsWith("ban ")).map((tok) => tok.slice(4)));
    const chosen = this.clicks.length && this.clicks[0].startsWith("+") ? this.clicks[0].slice(1) : null;
    renderMarket($("#market", root), view, {
      pickable: chosen ? new Set([chosen]) : new Set([...marketCodes, ...banCodes]),
      chosen,
      onPick: (code) => {
        if (banCodes.has(code)) this.click(`ban ${code}`);
        else if (chosen === code) this.reset();
        else {
          this.click(`+${code}`);
          this.revealRecruitCells(root);
        }
      },
    });

    $("#end-actions", root).hidden = !next.has("end");
    if (!next.has("end")) this.closeConfirm();
    const finish = $("#finish-step", root);
    finish.hidden = !(complete && next.size > 0);
    $("#cancel-move", root).hidden = this.clicks.length === 0;

    const turn = $("#turn-banner", root);
    const mine = this.legal.length > 0;
    root.dataset.phase = view.phase;
    root.dataset.myTurn = String(mine);
    root.dataset.over = String(Boolean(view.is_over));
    turn.classList.toggle("mine", mine);
    if (view.is_over) {
      turn.textContent = t("ui.table.game_over");
    } else if (mine) {
      turn.textContent = `${t("ui.table.your_turn")} — ${t(`ui.leaders.phase.${view.phase}`)}`;
    } else {
      const who = this.seatName ? this.seatName(view.to_play) : null;
      const waiting = who ? ` — ${t("ui.table.waiting_for", { name: who })}` : "";
      turn.textContent = `${t("ui.leaders.turn_of", { side: sideName(view.to_play) })} — ${t(`ui.leaders.phase.${view.phase}`)}${waiting}`;
    }
    const you = $("#you-are", root);
    you.textContent = this.seat === 0 || this.seat === 1 ? t("ui.leaders.you_are", { side: sideName(this.seat) }) : t("ui.table.spectator");

    $("#confirm-end-label", root).hidden = view.is_over || !(this.seat === 0 || this.seat === 1);
    this.renderActed();
    this.renderRecruitBanner();

    let hint = "";
    if (mine) {
      if (view.phase === "reaction") hint = t("ui.leaders.hint.reaction");
      else if (view.phase === "ban") hint = t("ui.leaders.hint.ban");
      else if (view.phase === "recruit") {
        const card = this.clicks[0];
        if (!card) hint = t("ui.leaders.hint.recruit");
        else if (card === "+HE") hint = t(this.clicks.length === 1 ? "ui.leaders.hint.hermit_cell" : "ui.leaders.hint.cub_cell");
        else hint = t("ui.leaders.hint.recruit_cell");
      }
      else if (this.clicks.length === 0) hint = t("ui.leaders.hint.select");
      else if (finish.hidden === false && this.clicks.length >= 2) hint = t(this.isPair() ? "ui.leaders.hint.pair" : "ui.leaders.hint.next");
      else hint = t("ui.leaders.hint.next");
    }
    $("#hint", root).textContent = hint;
    const result = $("#result", root);
    result.hidden = !view.is_over;
    result.textContent = resultText(view, this.seat, this.left);
    if (view.is_over && this.ending) {
      const why = document.createElement("span");
      why.className = "end-why";
      why.append(" ", leadersEnding(this.ending, this.log.ctx), ".");
      result.append(why);
    }
  }

  /** "Already acted": your own pieces on your turn; for a spectator, those of the side to move. */
  renderActed() {
    const view = this.view;
    const box = $("#acted", this.root);
    const player = this.seat === 0 || this.seat === 1;
    const show = !view.is_over && view.phase === "action" && (!player || view.turn === this.seat);
    box.hidden = !show;
    if (!show) return;
    const names = (view.acted || []).map(pieceName);
    const pieces = names.length ? listOf(names) : t("ui.leaders.none");
    box.textContent = player ? t("ui.leaders.acted", { pieces }) : t("ui.leaders.acted_side", { side: sideName(view.turn), pieces });
  }

  /** The banner of a turn with two recruitments (North's first turn, leaders.md §3), from the engine's view. */
  renderRecruitBanner() {
    const view = this.view;
    const banner = $("#recruit-banner", this.root);
    const allowance = view.recruit_allowance || 1;
    const show = !view.is_over && allowance > 1 && view.phase !== "ban";
    banner.hidden = !show;
    if (!show) return;
    const mine = view.turn === this.seat;
    let text = t(mine ? "ui.leaders.double.mine" : "ui.leaders.double.theirs", { side: sideName(view.turn), n: number(allowance) });
    if (view.phase === "recruit") {
      text += ` ${t("ui.leaders.double.step", { n: number(allowance - view.recruits + 1), total: number(allowance) })}`;
    }
    banner.textContent = text;
  }

  isPair() {
    const piece = (this.view.pieces || []).find((p) => p.cell === this.clicks[0]);
    return piece && (piece.code === "HE" || piece.code === "CU");
  }

  renderMoves() {
    const list = $("#moves", this.root);
    list.replaceChildren();
    for (const turn of groupTurns(this.moves)) {
      const li = document.createElement("li");
      for (const move of turn) li.append(bdi(move, "mv"), " "); // notation stays left to right in RTL pages
      list.appendChild(li);
    }
    list.scrollTop = list.scrollHeight;
  }
}
