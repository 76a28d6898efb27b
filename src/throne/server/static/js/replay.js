// The replay viewer: steps forward and back through the views the server stored for a game (a finished
// Hidden Leaders game is fully revealed), drawn by the renderer the game's spec names (game.renderer).
import { loadCatalog, t, cardName, pieceName, botName, personName, bdi, list } from "./i18n.js";
import { api } from "./net.js";
import { showError } from "./common.js";
import { drawBoard } from "./leaders-board.js";
import { cellsOf } from "./leaders-moves.js";
import { renderMarket, resultText } from "./leaders-table.js";
import { HiddenTable, setGameData, moveLabel } from "./hidden-table.js";
import { EventLog } from "./narrate.js";
import { dataEl, winnerText } from "./generic-table.js";

const $ = (sel) => document.querySelector(sel);
const root = $("#replay-root");
const gameId = Number(root.dataset.gameId);
let steps = [];
let index = 0;
let game = null;
let names = [];
let hidden = null;
let result = null;
let told = null; // the narrated events of the step shown

function showLeaders(view) {
  drawBoard($("#board"), view, { lastMove: cellsOf(view.last_move) });
  renderMarket($("#market"), view);
  const side = t(view.to_play === 0 ? "ui.leaders.south" : "ui.leaders.north");
  $("#turn-banner").textContent = view.is_over ? t("ui.table.game_over") : `${t("ui.leaders.turn_of", { side })} — ${t(`ui.leaders.phase.${view.phase}`)}`;
  // names, as the live table shows them (the codes stay in the notation)
  const acted = view.acted && view.acted.length ? list(view.acted.map(pieceName)) : t("ui.leaders.none");
  $("#acted").textContent = t("ui.leaders.acted", { pieces: acted });
  const banner = $("#result");
  banner.hidden = !view.is_over;
  banner.textContent = resultText(view, null);
}

function showHidden(view) {
  hidden.view = view;
  hidden.legal = [];
  hidden.result = index === steps.length - 1 ? result : null;
  hidden.renderTrack();
  hidden.renderZones();
  hidden.renderParties();
  if (view.scores) hidden.renderScores();
  else $("#scores-panel").hidden = true;
  const hands = $("#hands");
  hands.replaceChildren();
  (view.hands || []).forEach((hand, seat) => {
    const p = document.createElement("p");
    const cards = Array.isArray(hand) ? list(hand.map(cardName)) : t("ui.hl.hand_count", { n: hand && hand.count !== undefined ? hand.count : 0 });
    p.append(bdi(names[seat] ?? seat), t("ui.chat.colon"), cards);
    hands.append(p);
  });
  const banner = $("#result");
  const over = index === steps.length - 1 && game && game.status === "finished" && result;
  banner.hidden = !over;
  if (over) {
    const who = result.winner === null || result.winner === undefined ? t("ui.table.no_winner") : t("ui.table.winner", { name: names[result.winner] ?? result.winner });
    banner.textContent = `${result.faction ? t("ui.hl.winning_faction", { faction: t(`hl.faction.${result.faction}`) }) : t("ui.hl.no_faction")} — ${who}`;
  }
}

function showGeneric(view) {
  $("#generic-view").replaceChildren(dataEl(view));
  const banner = $("#result");
  const over = index === steps.length - 1 && game && game.status === "finished" && result;
  banner.hidden = !over;
  if (over) banner.textContent = winnerText(result, null, names);
}

/** "name: move" with the name isolated (a Latin name in a Persian line keeps its place). */
function seatMove(step, label) {
  if (!step.move) return "";
  const frag = document.createDocumentFragment();
  frag.append(bdi(names[step.seat] ?? step.seat), t("ui.chat.colon"), label(step.move));
  return frag;
}

/** The renderers a spec may name: the panel each shows, what it sets up, how it draws a step and its move. */
const RENDERERS = {
  "leaders-table": { ui: "#leaders-ui", start: listMoves, show: showLeaders, move: (step) => (step.move ? bdi(step.move, "mv") : "") },
  "hidden-table": {
    ui: "#hidden-ui",
    start: () => {
      setGameData(JSON.parse($("#hl-data").textContent));
      hidden = new HiddenTable(root, { send: () => {}, seat: null, names });
    },
    show: showHidden,
    move: (step) => seatMove(step, (m) => moveLabel(m, names)),
  },
  generic: { ui: "#generic-ui", start: listMoves, show: showGeneric, move: (step) => seatMove(step, (m) => m) },
};

function renderer() {
  return RENDERERS[game && game.renderer] || RENDERERS.generic;
}

function show() {
  if (!steps.length) return;
  const step = steps[index];
  $("#replay-step").textContent = step.ply === 0 ? t("ui.replay.start") : t("ui.replay.step", { n: step.ply, total: steps[steps.length - 1].ply });
  $("#replay-move").replaceChildren(renderer().move(step));
  if (told) {
    told.clear();
    told.add(step.events || []);
  }
  renderer().show(step.view);
  $("#replay-first").disabled = $("#replay-prev").disabled = index === 0;
  $("#replay-last").disabled = $("#replay-next").disabled = index === steps.length - 1;
}

function go(i) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  show();
  const list = $(`${renderer().ui} .replay-moves`);
  if (!list) return;
  for (const button of list.querySelectorAll("button")) {
    const current = Number(button.dataset.index) === index;
    button.setAttribute("aria-current", String(current));
    if (current) button.scrollIntoView({ block: "nearest" });
  }
}

/** Every move of the game as a button that jumps to the position after it. */
function listMoves() {
  const list = $(`${renderer().ui} .replay-moves`);
  list.replaceChildren();
  steps.forEach((step, i) => {
    if (!step.move) return;
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary mv";
    button.dataset.index = i;
    button.append(bdi(step.move));
    button.addEventListener("click", () => go(i));
    li.append(button);
    list.append(li);
  });
}

async function main() {
  await loadCatalog(document.documentElement.lang);
  try {
    game = (await api(`/api/games/${gameId}`)).game;
    names = game.seats.map((s) => (s.kind === "bot" ? t("ui.table.bot_seat", { n: s.seat + 1, level: botName(s.bot || s.name) }) : personName(s.name || "?", s.registered)));
    const data = await api(`/api/games/${gameId}/replay?start=0&limit=1000`);
    steps = data.steps || [];
    result = game.result;
  } catch (err) {
    showError(t("ui.error.generic", { reason: err.message }));
    return;
  }
  told = new EventLog($("#replay-events"), {
    renderer: game.renderer,
    seat: null,
    name: (s) => names[s] ?? String(s),
    choice: (m) => moveLabel(m, names),
  });
  $(renderer().ui).hidden = false;
  root.dataset.renderer = game.renderer || "generic";
  renderer().start();
  $("#replay-first").addEventListener("click", () => go(0));
  $("#replay-prev").addEventListener("click", () => go(index - 1));
  $("#replay-next").addEventListener("click", () => go(index + 1));
  $("#replay-last").addEventListener("click", () => go(steps.length - 1));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") go(index + (document.documentElement.dir === "rtl" ? -1 : 1));
    else if (event.key === "ArrowLeft") go(index + (document.documentElement.dir === "rtl" ? 1 : -1));
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(steps.length - 1);
  });
  go(steps.length - 1);
}

main();
