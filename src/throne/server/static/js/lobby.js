// The lobby: play a bot in one click, create a table (players, bots and levels, rated, private), list open and
// live tables with join / watch.
import { loadCatalog, t, has, botName } from "./i18n.js";
import { api, saveToken } from "./net.js";
import { showError } from "./common.js";
import { fillTimeControls, chosenTimeControl } from "./time-control.js";

const $ = (sel) => document.querySelector(sel);
// Every game fact (player counts, options and their defaults, bots) comes from /api/meta.
let meta = { games: {} };

function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

function levels(game) {
  return (meta.games[game] && meta.games[game].bots) || ["easy"];
}

function defaultLevel(list) {
  return list.includes("easy") ? "easy" : list[0];
}

function label(key, fallback) {
  return has(key) ? t(key) : fallback;
}

function defaultOptions(game) {
  const out = {};
  for (const opt of (meta.games[game] && meta.games[game].options) || []) out[opt.name] = opt.default;
  return out;
}

// One control per option of the game's spec: a select for a single choice, checkboxes for a list.
function fillOptions() {
  const game = $("#create-game").value;
  const box = $("#game-options");
  box.replaceChildren();
  for (const opt of (meta.games[game] && meta.games[game].options) || []) {
    const title = label(`ui.lobby.${opt.name}`, opt.name);
    if (!opt.multiple) {
      const select = document.createElement("select");
      select.name = opt.name;
      select.id = `create-${opt.name}`;
      select.dataset.option = opt.name;
      select.append(...opt.choices.map((c) => option(c, label(`ui.lobby.${opt.name}.${c}`, c))));
      select.value = opt.default;
      const wrap = document.createElement("label");
      wrap.append(`${title} `, select);
      box.append(wrap);
      continue;
    }
    const set = document.createElement("fieldset");
    set.dataset.option = opt.name;
    const legend = document.createElement("legend");
    legend.textContent = title;
    set.append(legend);
    for (const c of opt.choices) {
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = opt.name === "modules" ? "module" : opt.name;
      input.value = c;
      input.checked = opt.default.includes(c) || opt.required.includes(c);
      input.disabled = opt.required.includes(c);
      const wrap = document.createElement("label");
      if (has(`ui.lobby.${opt.name}.${c}.title`)) wrap.title = t(`ui.lobby.${opt.name}.${c}.title`);
      wrap.append(input, ` ${label(`ui.lobby.${opt.name}.${c}`, c)}`);
      set.append(wrap);
    }
    box.append(set);
  }
}

function chosenOptions() {
  const out = {};
  document.querySelectorAll("#game-options [data-option]").forEach((el) => {
    if (el.tagName === "SELECT") out[el.dataset.option] = el.value;
    else out[el.dataset.option] = [...el.querySelectorAll("input:checked")].map((i) => i.value);
  });
  return out;
}

function fillPlayers() {
  const game = $("#create-game").value;
  const info = meta.games[game] || { players: [2], default_players: 2 };
  const counts = info.players;
  const select = $("#create-players");
  const keep = Number(select.value) || info.default_players;
  select.replaceChildren(...counts.map((n) => option(n, String(n))));
  select.value = String(counts.includes(keep) ? keep : info.default_players);
  fillOptions();
  fillSeats();
}

function fillSeats() {
  const game = $("#create-game").value;
  const players = Number($("#create-players").value);
  const box = $("#seat-setup");
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (let seat = 1; seat < players; seat += 1) {
    const select = document.createElement("select");
    select.name = `seat-${seat}`;
    select.dataset.seat = seat;
    select.append(option("human", t("ui.lobby.seat_human")));
    for (const level of levels(game)) select.append(option(level, t("ui.lobby.bot", { level: botName(level) })));
    select.value = defaultLevel(levels(game));
    const label = document.createElement("label");
    label.append(`${t("ui.lobby.seat", { n: seat })} `, select);
    box.append(label);
  }
}

async function playBot(game) {
  const bots = levels(game);
  const level = bots.includes($("#quick-level").value) ? $("#quick-level").value : defaultLevel(bots);
  const players = (meta.games[game] && meta.games[game].default_players) || 2;
  const body = { game, bot: level, players, options: defaultOptions(game), time_control: chosenTimeControl($("#quick-time")) };
  try {
    const data = await api("/api/play-bot", { method: "POST", body });
    saveToken(data.game.id, data.token);
    location.href = `/games/${data.game.id}`;
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

async function create(event) {
  event.preventDefault();
  const game = $("#create-game").value;
  const players = Number($("#create-players").value);
  const bots = {};
  document.querySelectorAll("#seat-setup select").forEach((select) => {
    if (select.value !== "human") bots[select.dataset.seat] = select.value;
  });
  const body = {
    game,
    players,
    bots,
    seat: 0,
    sit: true,
    rated: $("#create-rated").checked,
    private: $("#create-private").checked,
    options: chosenOptions(),
    time_control: chosenTimeControl($("#create-time")),
  };
  const name = $("#create-name");
  if (name && name.value.trim()) body.name = name.value.trim();
  try {
    const data = await api("/api/games", { method: "POST", body });
    saveToken(data.game.id, data.token);
    location.href = `/games/${data.game.id}${data.invite ? `?invite=${encodeURIComponent(data.invite)}` : ""}`;
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

function seatText(s) {
  if (s.kind === "open") return t("ui.lobby.open_seat");
  if (s.kind === "bot") return t("ui.lobby.bot", { level: botName(s.bot || s.name) });
  return s.name;
}

function tableRow(game) {
  const li = document.createElement("li");
  li.dataset.gameId = game.id;
  const title = document.createElement("strong");
  title.textContent = `${t("ui.lobby.table_of", { id: game.id })} · ${t(`ui.game.${game.game}`)}`;
  const seats = document.createElement("span");
  seats.className = "muted";
  seats.textContent = ` — ${t(`ui.status.${game.status}`)} — ${game.seats.map(seatText).join(", ")}${game.rated ? ` · ${t("ui.lobby.rated")}` : ""} `;
  const link = document.createElement("a");
  link.className = "button secondary";
  link.href = `/games/${game.id}`;
  link.textContent = game.status === "open" ? t("ui.lobby.join") : t("ui.lobby.spectate");
  link.dataset.action = game.status === "open" ? "join" : "spectate";
  li.append(title, seats, link);
  return li;
}

async function refresh() {
  for (const status of ["open", "live"]) {
    const box = $(`#${status}-tables`);
    try {
      const data = await api(`/api/games?status=${status}&limit=50`);
      const list = document.createElement("ul");
      list.className = "seat-list";
      list.append(...data.games.map(tableRow));
      box.replaceChildren(data.games.length ? list : Object.assign(document.createElement("p"), { className: "muted", textContent: t("ui.lobby.no_tables") }));
    } catch (err) {
      box.textContent = t("ui.error.generic", { reason: err.message });
    }
  }
}

async function main() {
  await loadCatalog(document.documentElement.lang);
  try {
    meta = await api("/api/meta");
  } catch {
    /* defaults above */
  }
  const quick = $("#quick-level");
  const quickLevels = [...new Set(Object.values(meta.games).flatMap((g) => g.bots || []))];
  quick.replaceChildren(...quickLevels.map((l) => option(l, botName(l))));
  quick.value = defaultLevel(quickLevels);
  fillTimeControls($("#quick-time"));
  fillTimeControls($("#create-time"));
  document.querySelectorAll("button.play-bot").forEach((b) => b.addEventListener("click", () => playBot(b.dataset.game)));
  $("#create-game").addEventListener("change", fillPlayers);
  $("#create-players").addEventListener("change", fillSeats);
  $("#create-form").addEventListener("submit", create);
  $("#refresh").addEventListener("click", refresh);
  fillPlayers();
  refresh();
  setInterval(refresh, 10000);
}

main();
