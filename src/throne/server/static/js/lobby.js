// The lobby: play a bot in one click, create a table (players, bots and levels, rated, private), list open and
// live tables with join / watch.
import { loadCatalog, t, botName } from "./i18n.js";
import { api, saveToken } from "./net.js";
import { showError } from "./common.js";

const $ = (sel) => document.querySelector(sel);
let meta = { games: { leaders: { players: [2], bots: ["easy"] }, "hidden-leaders": { players: [2, 3, 4, 5, 6], bots: ["easy"] } } };

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

function fillPlayers() {
  const game = $("#create-game").value;
  const counts = (meta.games[game] && meta.games[game].players) || [2];
  const select = $("#create-players");
  const keep = Number(select.value) || (counts.includes(4) ? 4 : counts[0]);
  select.replaceChildren(...counts.map((n) => option(n, String(n))));
  select.value = String(counts.includes(keep) ? keep : counts[0]);
  $("#hl-options").hidden = game !== "hidden-leaders";
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
  const level = $("#quick-level").value || defaultLevel(levels(game));
  const body = { game, bot: level, players: game === "leaders" ? 2 : 4, options: game === "leaders" ? {} : { variant: "full", modules: ["core"] } };
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
    options: {},
  };
  if (game === "hidden-leaders") {
    const modules = [...document.querySelectorAll("input[name=module]:checked")].map((i) => i.value);
    body.options = { variant: $("#create-variant").value, modules };
  }
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
  const quickLevels = levels("leaders");
  quick.replaceChildren(...quickLevels.map((l) => option(l, botName(l))));
  quick.value = defaultLevel(quickLevels);
  $("#play-bot-leaders").addEventListener("click", () => playBot("leaders"));
  $("#play-bot-hidden").addEventListener("click", () => playBot("hidden-leaders"));
  $("#create-game").addEventListener("change", fillPlayers);
  $("#create-players").addEventListener("change", fillSeats);
  $("#create-form").addEventListener("submit", create);
  $("#refresh").addEventListener("click", refresh);
  fillPlayers();
  refresh();
  setInterval(refresh, 10000);
}

main();
