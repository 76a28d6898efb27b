// The table of any game without a renderer of its own (GameSpec.renderer "generic"): the seat's view as
// readable data, the legal moves as buttons, the moves played so far, and the result.
import { t } from "./i18n.js";
import { h } from "./common.js";

const $ = (sel, root) => root.querySelector(sel);

function seatLabel(names, seat) {
  return names[seat] ?? String(seat);
}

/** A JSON value as nested lists: objects as "key: value" items, arrays as numbered items. */
export function dataEl(value) {
  if (value === null || typeof value !== "object") return h("span", { class: "data-value", text: JSON.stringify(value) });
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (!entries.length) return h("span", { class: "data-value", text: Array.isArray(value) ? "[]" : "{}" });
  return h(
    Array.isArray(value) ? "ol" : "ul",
    { class: "data-tree" },
    ...entries.map(([k, v]) => h("li", { "data-key": k }, h("span", { class: "data-key", text: `${k}: ` }), dataEl(v))),
  );
}

const LEFT = ["resign", "timeout", "abandoned"];

/** The result line of a person whose seat a bot played in their place: `left` (the state message's) says why —
 * they resigned, ran out of time, or were away (abandoned). What the bot reached is not theirs (a seat left so
 * is ranked last, and a game a bot finished is not credited to its person), so it is never "You won!": why
 * they are out, then how the game ended for the others. `winners`: the winning seats; `name(seat)`: a seat's
 * label; `none`: the text when nobody won. */
export function leftText(left, seat, winners, name, none = t("ui.table.no_winner")) {
  const head = t(`ui.table.left.${LEFT.includes(left) ? left : "abandoned"}`);
  let rest = none;
  if (winners.includes(seat)) rest = t("ui.table.left.bot_won");
  else if (winners.length) rest = winners.map((w) => t("ui.table.winner", { name: name(w) })).join(" ");
  return t("ui.table.left.line", { why: head, rest }); // (Japanese puts no space after 。)
}

/** The result line of a finished game: who won, from `seat`'s side (null: a spectator); `left`: why a bot
 * played the seat for its person (null: they played it themselves). */
export function winnerText(result, seat, names, left = null) {
  const winners = result.winners || (result.winner !== null && result.winner !== undefined ? [result.winner] : []);
  if (left && seat !== null && seat !== undefined) return leftText(left, seat, winners, (w) => seatLabel(names, w));
  if (!winners.length) return t("ui.table.no_winner");
  if (winners.includes(seat)) return t("ui.table.you_won");
  return winners.map((w) => t("ui.table.winner", { name: seatLabel(names, w) })).join(" ");
}

export class GenericTable {
  constructor(root, { send, seat, names }) {
    this.root = root;
    this.send = send;
    this.seat = seat;
    this.names = names || [];
    this.view = null;
    this.legal = [];
    this.yourTurn = false;
    this.status = "";
    this.result = null;
    this.left = null;
    this.toPlay = null;
    this.log = [];
  }

  setSeat(seat) {
    this.seat = seat;
    if (this.view) this.render();
  }

  setNames(names) {
    this.names = names;
    if (this.view) this.render();
  }

  update(msg) {
    this.view = msg.view ?? null;
    this.legal = msg.legal_moves || [];
    this.yourTurn = Boolean(msg.your_turn);
    this.status = msg.status || "";
    this.result = msg.result || null;
    this.left = msg.left ?? null; // why a bot plays this seat for its person (resign, timeout, abandoned)
    this.toPlay = msg.to_play ?? null;
    this.render();
  }

  setLog(entries) {
    this.log = entries.slice();
    this.renderLog();
  }

  pushLog(entry) {
    this.log.push(entry);
    this.renderLog();
  }

  play(move) {
    this.legal = [];
    this.send(move);
    this.render();
  }

  render() {
    $("#generic-view", this.root).replaceChildren(dataEl(this.view));
    const buttons = this.yourTurn ? this.legal : [];
    $("#generic-moves", this.root).replaceChildren(
      ...buttons.map((move) => {
        return h("button", { type: "button", class: "secondary", "data-move": move, text: move, onclick: () => this.play(move) });
      }),
    );
    const turn = $("#turn-banner", this.root);
    if (turn) {
      if (this.status === "finished") turn.textContent = t("ui.table.game_over");
      else if (this.yourTurn) turn.textContent = t("ui.table.your_turn");
      else if (this.toPlay !== null) turn.textContent = t("ui.table.waiting_for", { name: seatLabel(this.names, this.toPlay) });
      else turn.textContent = "";
    }
    this.renderResult();
  }

  renderResult() {
    const banner = $("#result", this.root);
    if (!banner || this.status !== "finished" || !this.result) return;
    banner.hidden = false;
    banner.textContent = winnerText(this.result, this.seat, this.names, this.left);
  }

  renderLog() {
    const list = $("#generic-log", this.root);
    const who = (seat) => (seat === null || seat === undefined ? "" : `${seatLabel(this.names, seat)}: `);
    list.replaceChildren(...this.log.map((entry) => h("li", { text: `${who(entry.seat)}${entry.move}` })));
  }
}
