// A game page: finds this browser's seat (token), opens the game socket, and hands every state to the
// table renderer the game's spec names (summary.renderer). Waiting tables show their seats and a join button.
import { loadCatalog, t, botName, number, isolate, personName } from "./i18n.js";
import { GameSocket, api, savedToken, saveToken } from "./net.js";
import { LeadersTable } from "./leaders-table.js";
import { HiddenTable, setGameData } from "./hidden-table.js";
import { GenericTable } from "./generic-table.js";
import { showError, clearError } from "./common.js";
import { TableControls } from "./controls.js";
import { TableChat } from "./chat.js";
import { mergeByPly, putAt } from "./movelist.js";

const $ = (sel) => document.querySelector(sel);
const root = $("#table-root");
const gameId = Number(root.dataset.gameId);
const invite = new URLSearchParams(location.search).get("invite");

let summary = null;
let seat = null;
let token = null;
let socket = null;
let controller = null;
let ply = -1;
let history = []; // by ply: history[i] is the move (or log entry) that made ply i + 1, holes while unknown
let historyFetch = 0; // the latest history request: an older answer is dropped (a takeback may follow it)
let controls = null;
let chat = null;
let ratingBefore; // this player's rating in a rated game before it ended (undefined: not asked)
let ratingShown = false;

/** The renderers a spec may name: the panel each shows, how it is made, how its move history fills. */
const RENDERERS = {
  "leaders-table": {
    ui: "#leaders-ui",
    make: () => new LeadersTable(root, { send, seat, seatName: (i) => seatNames()[i] }),
    seatLabel: (i) => t(i === 0 ? "ui.leaders.south" : "ui.leaders.north"),
    notation: true,
  },
  "hidden-table": {
    ui: "#hidden-ui",
    make: () => {
      setGameData(JSON.parse($("#hl-data").textContent));
      return new HiddenTable(root, { send, seat, names: seatNames() });
    },
  },
  generic: { ui: "#generic-ui", make: () => new GenericTable(root, { send, seat, names: seatNames() }) },
};

function renderer() {
  return RENDERERS[summary && summary.renderer] || RENDERERS.generic;
}

function seatNames() {
  return (summary ? summary.seats : []).map((s) => {
    if (s.kind === "open") return t("ui.lobby.open_seat");
    if (s.kind === "bot" && s.takeover) return t("ui.table.bot_takeover", { name: isolate(personName(s.name, s.registered)) });
    if (s.kind === "bot") return t("ui.table.bot_seat", { n: number(s.seat + 1), level: botName(s.bot || s.name) }); // seats from 1
    return personName(s.name, s.registered);
  });
}

function renderSeats() {
  const names = seatNames();
  const list = $("#seats");
  list.replaceChildren();
  names.forEach((name, i) => {
    const li = document.createElement("li");
    li.dataset.seat = i;
    let text = t("ui.table.seat_name", { name: isolate(name), seat: number(i + 1) });
    const label = renderer().seatLabel;
    if (label && summary.status !== "open") text += ` — ${label(i)}`;
    if (i === seat) text += ` (${t("ui.table.you")})`;
    li.textContent = text;
    if (summary.to_play === i) li.classList.add("to-play");
    list.appendChild(li);
  });
  $("#waiting").hidden = summary.status !== "open";
  if (summary.status === "open") {
    const wait = $("#waiting-seats");
    wait.replaceChildren(...[...list.children].map((li) => li.cloneNode(true)));
    const hasOpen = summary.seats.some((s) => s.kind === "open");
    $("#join-seat").hidden = !(seat === null && hasOpen);
    $("#leave-seat").hidden = seat === null;
    $("#waiting-invite").textContent = summary.private && invite ? t("ui.lobby.invite", { url: location.href }) : "";
  }
  $("#replay-link").hidden = summary.status !== "finished";
  if (controller && controller.setNames) controller.setNames(names);
}

function send(move) {
  clearError();
  if (!socket.send({ type: "move", move, ply })) showError(t("ui.net.reconnecting"));
}

function ensureController() {
  if (controller || !summary) return;
  const kind = renderer();
  $(kind.ui).hidden = false;
  root.dataset.renderer = summary.renderer || "generic";
  controller = kind.make();
}

/** The narrated log of every move so far (from the replay's public events). */
async function refreshEvents(msg) {
  try {
    const data = await api(`/api/games/${gameId}/replay?start=0&limit=5000&views=false${invite ? `&invite=${encodeURIComponent(invite)}` : ""}`);
    const steps = (data.steps || []).filter((s) => s.ply > 0 && s.ply <= msg.ply);
    if (controller.setEvents) controller.setEvents(steps.flatMap((s) => s.events || []), msg.ply);
  } catch {
    /* the log fills from the next moves */
  }
}

/** The moves shown: those known by ply, without holes. */
function shownHistory() {
  return history.filter((entry) => entry !== undefined && entry !== null);
}

/** Rereads the move list on (re)connect or after a takeback, merged by ply with the moves pushed while the
 * request was in flight (the record may predate them). */
async function refreshHistory(msg) {
  refreshEvents(msg);
  const mine = ++historyFetch;
  const query = invite ? `invite=${encodeURIComponent(invite)}` : "";
  try {
    let fetched;
    if (renderer().notation) {
      fetched = (await api(`/api/games/${gameId}/record${query ? `?${query}` : ""}`)).moves || [];
    } else {
      const data = await api(`/api/games/${gameId}/replay?start=0&limit=1000&views=false${query ? `&${query}` : ""}`);
      fetched = [];
      for (const s of data.steps || []) {
        if (s.move && s.seat !== null && s.ply > 0) fetched[s.ply - 1] = { seat: s.seat, move: publicMove(s) };
      }
    }
    if (mine !== historyFetch) return; // a newer request answers for the list
    history = mergeByPly(fetched, history, ply);
    if (renderer().notation) controller.setMoves(shownHistory());
    else controller.setLog(shownHistory());
  } catch {
    /* the list fills from the next moves */
  }
}

function publicMove(step) {
  // Live games give public forms; a finished game's log names the real moves, which are all revealed by then.
  return step.view && step.view.last_move && step.view.last_move.move ? step.view.last_move.move : step.move;
}

function setSeat(value) {
  seat = value ?? null;
  root.dataset.seat = seat === null ? "" : String(seat);
  if (controller) controller.setSeat(seat);
}

/** The signed-in player's seat user id in a rated game (registered players only), else null. */
function ratedUser() {
  if (!summary || !summary.rated || seat === null) return null;
  const mine = summary.seats.find((s) => s.seat === seat);
  return mine && mine.registered && mine.user_id ? mine.user_id : null;
}

async function ratingNow(uid) {
  const data = await api(`/api/players/${uid}`);
  const r = (data.ratings || {})[summary.game];
  return r ? r.score : null;
}

/** Rated games: the rating before the end (read while live) and after it, with the change. */
async function trackRating(msg) {
  const uid = ratedUser();
  if (uid === null) return;
  try {
    if (msg.status === "live" && ratingBefore === undefined) ratingBefore = await ratingNow(uid);
    if (msg.status === "finished" && ratingBefore !== undefined && !ratingShown) {
      ratingShown = true;
      const after = await ratingNow(uid);
      if (after === null) return;
      const fmt = (v) => String(Math.round(v * 10) / 10);
      const delta = ratingBefore === null ? "" : after - ratingBefore;
      const el = $("#rating-change");
      el.textContent = t("ui.ev.rating", {
        before: ratingBefore === null ? "—" : fmt(ratingBefore),
        after: fmt(after),
        delta: delta === "" ? "—" : `${delta >= 0 ? "+" : "−"}${fmt(Math.abs(delta))}`,
      });
      el.hidden = false;
    }
  } catch {
    /* no rating line: the game itself is unaffected */
  }
}

function onState(msg) {
  ensureController();
  if (msg.seat !== undefined) setSeat(msg.seat);
  const previous = ply;
  const mover = summary ? summary.to_play ?? null : null; // who played the move this state follows
  ply = msg.ply;
  if (summary) {
    summary.to_play = msg.to_play;
    if (msg.status && msg.status !== summary.status) {
      summary.status = msg.status;
    }
    renderSeats();
  }
  controller.update(msg);
  if (controls) controls.update(msg);
  if (chat) chat.setSeat(seat, msg.status);
  trackRating(msg);
  root.dataset.ply = String(msg.ply);
  root.dataset.status = msg.status || "";
  const last = msg.view && msg.view.last_move !== undefined && msg.view.last_move !== null ? msg.view.last_move : msg.last_move;
  if (previous >= 0 && msg.ply === previous + 1 && last) {
    const whole = history.length === previous && !history.includes(undefined); // the list shown is complete
    if (renderer().notation) {
      const move = typeof last === "string" ? last : last.move;
      history = putAt(history, msg.ply, move);
      if (whole) controller.pushMove(move);
      else controller.setMoves(shownHistory());
    } else {
      const entry = typeof last === "string" ? { seat: mover, move: last } : last; // a bare move names no seat
      history = putAt(history, msg.ply, entry);
      if (!(msg.events && msg.events.length)) {
        if (whole) controller.pushLog(entry);
        else controller.setLog(shownHistory());
      }
    }
  } else if (msg.ply !== previous) {
    refreshHistory(msg);
  }
}

function onMessage(msg) {
  if (msg.type === "welcome") {
    summary = msg.game || summary;
    ensureController();
    setSeat(msg.seat);
    renderSeats();
    if (controls) controls.table(summary, seat);
  } else if (msg.type === "table") {
    summary = msg.game;
    renderSeats();
    if (controls) controls.table(summary, seat);
  } else if (msg.type === "state") {
    onState(msg);
  } else if (msg.type === "rematch" || msg.type === "rematch_pending") {
    if (controls) controls.rematch(msg);
  } else if (msg.type === "chat_history") {
    if (chat) chat.history(msg.messages);
  } else if (msg.type === "chat") {
    if (chat) chat.add(msg.message);
  } else if (msg.type === "error" && msg.code === "rematch_done" && msg.new_game_id) {
    location.href = `/games/${msg.new_game_id}`; // the rematch exists: this player's session holds its seat
  } else if (msg.type === "error" && msg.code === "game_unavailable") {
    showError(t("ui.error.game_unavailable"));
  } else if (msg.type === "error") {
    showError(t("ui.error.prefix", { reason: msg.message || msg.code }));
    if (controller && controller.view) controller.render();
  }
}

function connect() {
  if (socket) socket.close();
  socket = new GameSocket(gameId, { token, onMessage, statusEl: $("#net-status") });
  window.throneSocket = socket;
  socket.connect();
}

async function join() {
  try {
    const data = await api(`/api/games/${gameId}/join`, { method: "POST", body: { seat: null, invite } });
    token = data.token;
    saveToken(gameId, token);
    summary = data.game;
    connect();
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

async function leave() {
  try {
    await api(`/api/games/${gameId}/leave`, { method: "POST", token });
    location.href = "/";
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

async function main() {
  await loadCatalog(document.documentElement.lang);
  try {
    const data = await api(`/api/games/${gameId}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`);
    summary = data.game;
    token = (summary.you && summary.you.token) || savedToken(gameId);
  } catch (err) {
    showError(t("ui.error.generic", { reason: err.message }));
    return;
  }
  if (token) saveToken(gameId, token);
  ensureController();
  renderSeats();
  $("#join-seat").addEventListener("click", join);
  $("#leave-seat").addEventListener("click", leave);
  controls = new TableControls({
    send: (message) => {
      clearError();
      if (!socket.send(message)) showError(t("ui.net.reconnecting"));
    },
    seatName: (i) => seatNames()[i],
  });
  chat = new TableChat({
    send: (message) => {
      clearError();
      if (!socket.send(message)) showError(t("ui.net.reconnecting"));
    },
  });
  api("/api/meta").then((meta) => controls.setAbandonTimeout(meta.abandon_timeout)).catch(() => {});
  connect();
}

main();
