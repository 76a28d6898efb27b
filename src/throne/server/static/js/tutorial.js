// The guided tutorials on the real table UI. The server (throne.server.tutorials) holds the scripted positions
// and checks every step with the engine: this page only shows the lesson, forwards the learner's move, and
// moves on when the server says the step is done.
import { loadCatalog, t } from "./i18n.js";
import { api } from "./net.js";
import { LeadersTable } from "./leaders-table.js";
import { HiddenTable, setGameData } from "./hidden-table.js";
import { showError, clearError } from "./common.js";

const $ = (sel) => document.querySelector(sel);
const root = $("#table-root");
let controller = null;
let step = 0;
let steps = 0;
let moves = [];

function setLesson(title, text, feedback = "", state = "") {
  $("#tutorial-title").textContent = title;
  $("#tutorial-text").textContent = text;
  const box = $("#tutorial-feedback");
  box.textContent = feedback;
  box.dataset.state = state;
}

function showNext(label, onClick) {
  const next = $("#tutorial-next");
  next.hidden = !label;
  next.textContent = label || "";
  next.onclick = onClick;
}

async function call(path, body) {
  clearError();
  try {
    return await api(path, body === undefined ? {} : { method: "POST", body });
  } catch (err) {
    showError(err.message || String(err));
    return null;
  }
}

// ----------------------------------------------------------------- Leaders: one scripted position per lesson

async function leadersStep(n) {
  step = n;
  const data = await call(`/api/tutorials/${root.dataset.gameId}/${n}`);
  if (!data) return;
  steps = data.steps;
  controller.setMoves([]); // each lesson is a position of its own
  if (controller.setEvents) controller.setEvents([]);
  showLeaders(data, "", "");
  showNext(null, null);
}

function showLeaders(data, feedback, state) {
  root.dataset.step = String(data.step);
  root.dataset.lesson = data.lesson;
  const key = `tutorial.leaders.${data.lesson}`;
  setLesson(`${t("tutorial.step", { n: data.step + 1, total: data.steps })} — ${t(`${key}.title`)}`, t(`${key}.text`), feedback, state);
  controller.update({ view: data.view, legal_moves: data.legal_moves, events: data.events || [] });
}

async function leadersMove(move) {
  const data = await call(`/api/tutorials/${root.dataset.gameId}/${step}`, { move });
  if (!data) {
    await leadersStep(step);
    return;
  }
  controller.pushMove(move);
  if (!data.done) {
    showLeaders(data, t("tutorial.retry"), "retry");
    return;
  }
  showLeaders(data, t(`tutorial.leaders.${data.lesson}.done`), "done");
  root.dataset.stepDone = String(step);
  if (step + 1 < steps) showNext(t("tutorial.next"), () => leadersStep(step + 1));
  else finish();
}

// ----------------------------------------------------------------- Hidden Leaders: one guided turn, replayed

async function hiddenUpdate() {
  const data = await call(`/api/tutorials/${root.dataset.gameId}`, { moves });
  if (!data) {
    moves.pop();
    return;
  }
  controller.update({ view: data.view, legal_moves: data.legal_moves, events: data.events || [] });
  controller.setLog(moves.map((move) => ({ seat: 0, move })));
  root.dataset.lesson = data.kind || "done";
  root.dataset.moves = String(moves.length);
  if (data.done) {
    setLesson(t("tutorial.hl.title"), t("tutorial.hl.done"), "", "done");
    finish();
    return;
  }
  const kind = ["action", "draw", "discard"].includes(data.kind) ? data.kind : "resolve";
  setLesson(t("tutorial.hl.title"), t(`tutorial.hl.${kind}`));
}

function finish() {
  root.dataset.finished = "true";
  $("#tutorial-feedback").textContent += ` ${t("tutorial.finished")}`;
  showNext(t("tutorial.back"), () => { location.href = "/tutorial"; });
}

async function main() {
  await loadCatalog(document.documentElement.lang);
  root.dataset.seat = "0";
  if (root.dataset.renderer === "leaders-table") {
    $("#leaders-ui").hidden = false;
    controller = new LeadersTable(root, { send: leadersMove, seat: 0, seatName: null });
    controller.setMoves([]);
    await leadersStep(0);
  } else {
    setGameData(JSON.parse($("#hl-data").textContent));
    $("#hidden-ui").hidden = false;
    controller = new HiddenTable(root, {
      send: (move) => { moves.push(move); hiddenUpdate(); },
      seat: 0,
      names: [t("ui.table.you"), t("tutorial.opponent")],
    });
    await hiddenUpdate();
  }
}

main();
