// The lobby: play a bot in one click (level, side), create a table (players, side, bots and levels, rated,
// private; rated constraints checked as the form is filled), list open and live tables with join / watch.
import { loadCatalog, t, has, botName, lang, number, personName } from "./i18n.js";
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

const registered = () => document.querySelector("#quick")?.dataset.registered === "yes";

const num = number;

/** A text node isolated from the surrounding direction (user names, notation). */
function bdi(text) {
  const el = document.createElement("bdi");
  el.textContent = text;
  return el;
}

/** The level radios (the game's `bot_levels`) shown up front; the other bots wait under "Advanced". */
function fillQuickLevels() {
  const box = $("#quick-levels");
  const tiers = [...new Set(Object.values(meta.games).flatMap((g) => g.bot_levels || []))];
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (const level of tiers) {
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "quick-tier";
    input.value = level;
    input.checked = level === defaultLevel(tiers);
    input.addEventListener("change", () => {
      $("#quick-level").value = "";
    });
    const wrap = document.createElement("label");
    wrap.append(input, ` ${botName(level)}`);
    box.append(wrap);
  }
  const named = [...new Set(Object.values(meta.games).flatMap((g) => (g.bots || []).filter((b) => !(g.bot_levels || []).includes(b))))];
  const quick = $("#quick-level");
  quick.replaceChildren(option("", t("ui.lobby.named_bot_none")), ...named.map((l) => option(l, botName(l))));
  quick.value = "";
}

function quickLevel(game) {
  const named = $("#quick-level").value;
  if (named && levels(game).includes(named)) return named;
  const tier = document.querySelector('input[name="quick-tier"]:checked');
  return tier && levels(game).includes(tier.value) ? tier.value : defaultLevel(levels(game));
}

/** "Random" then each engine seat by its name (seat_names) or number. */
function sideChoices(game, players) {
  const names = (meta.games[game] && meta.games[game].seat_names) || [];
  const out = [option("", t("ui.lobby.side_random"))];
  for (let seat = 0; seat < players; seat += 1) {
    const name = names[seat];
    out.push(option(String(seat), name ? label(`ui.${game}.${name}`, name) : t("ui.lobby.seat", { n: num(seat + 1) })));
  }
  return out;
}

function chosenSide(select) {
  return select && select.value !== "" ? Number(select.value) : null;
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
  select.replaceChildren(...counts.map((n) => option(n, num(n))));
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
    select.addEventListener("change", checkRated);
    const label = document.createElement("label");
    label.append(`${t("ui.lobby.seat", { n: num(seat + 1) })} `, select); // people count seats from 1
    box.append(label);
  }
  const side = $("#create-side");
  side.replaceChildren(...sideChoices(game, players));
  checkRated();
}

/** Why the table as filled in cannot be created rated (null: it can); the server checks the same. */
function ratedProblem() {
  if (!$("#create-rated").checked) return null;
  if (!registered()) return t("ui.lobby.rated_needs_account");
  const bots = [...document.querySelectorAll("#seat-setup select")].some((s) => s.value !== "human");
  return bots ? t("ui.lobby.rated_no_bots") : null;
}

function checkRated() {
  const problem = ratedProblem();
  const reason = $("#create-reason");
  reason.textContent = problem || "";
  reason.hidden = !problem;
  $("#create-submit").disabled = Boolean(problem);
  if (problem) $("#create-submit").setAttribute("aria-describedby", "create-reason");
  else $("#create-submit").removeAttribute("aria-describedby");
}

async function playBot(game) {
  const level = quickLevel(game);
  const players = (meta.games[game] && meta.games[game].default_players) || 2;
  const body = { game, bot: level, players, options: defaultOptions(game), time_control: chosenTimeControl($("#quick-time")) };
  const side = chosenSide(document.querySelector(`#quick-side-${game}`));
  if (side !== null) body.side = side;
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
  const side = chosenSide($("#create-side"));
  if (side !== null) body.side = side;
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

function seatNode(s) {
  if (s.kind === "open") return document.createTextNode(t("ui.lobby.open_seat"));
  if (s.kind === "bot") return document.createTextNode(t("ui.lobby.bot", { level: botName(s.bot || s.name) }));
  return bdi(personName(s.name, s.registered));
}

/** The seats as a list in the page's language, each person's name isolated. */
function seatList(seats) {
  const marks = seats.map((_, i) => `\u0000${i}\u0000`);
  const parts = new Intl.ListFormat(lang(), { style: "narrow", type: "conjunction" }).format(marks).split(/\u0000(\d+)\u0000/);
  return parts.map((part, i) => (i % 2 ? seatNode(seats[Number(part)]) : document.createTextNode(part)));
}

function tableRow(game) {
  const li = document.createElement("li");
  li.dataset.gameId = game.id;
  const title = document.createElement("strong");
  title.textContent = `${t("ui.lobby.table_of", { id: num(game.id) })} · ${t(`ui.game.${game.game}`)}`;
  const seats = document.createElement("span");
  seats.className = "muted";
  seats.append(` — ${t(`ui.status.${game.status}`)} — `, ...seatList(game.seats), ` ${game.rated ? `· ${t("ui.lobby.rated")} ` : ""}`);
  if (game.created_at) {
    const when = document.createElement("time");
    when.dateTime = game.created_at;
    when.textContent = new Intl.DateTimeFormat(lang(), { hour: "numeric", minute: "2-digit" }).format(new Date(game.created_at));
    seats.append("· ", when, " ");
  }
  li.append(title, seats);
  if (game.status === "open" && game.rated && !registered() && !game.you) {
    const join = document.createElement("button");
    join.type = "button";
    join.className = "secondary";
    join.disabled = true;
    join.dataset.action = "join";
    join.textContent = t("ui.lobby.join");
    const why = document.createElement("small");
    why.className = "reason";
    why.id = `why-${game.id}`;
    why.textContent = ` ${t("ui.lobby.rated_join_needs_account")}`;
    join.setAttribute("aria-describedby", why.id);
    li.append(join, why);
    return li;
  }
  const link = document.createElement("a");
  link.className = "button secondary";
  link.href = `/games/${game.id}`;
  link.textContent = game.status === "open" ? t("ui.lobby.join") : t("ui.lobby.spectate");
  link.dataset.action = game.status === "open" ? "join" : "spectate";
  li.append(link);
  return li;
}

async function refresh() {
  for (const status of ["open", "live"]) {
    const box = $(`#${status}-tables`);
    try {
      const data = await api(`/api/games?status=${status}&limit=50`);
      const games = data.games.filter((game) => !game.unavailable); // a damaged record: nothing to watch
      const list = document.createElement("ul");
      list.className = "seat-list";
      list.append(...games.map(tableRow));
      box.replaceChildren(games.length ? list : Object.assign(document.createElement("p"), { className: "muted", textContent: t("ui.lobby.no_tables") }));
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
  fillQuickLevels();
  document.querySelectorAll("button.play-bot").forEach((b) => {
    const bots = Number(b.dataset.players) - 1;
    if (bots > 1) b.textContent = t("ui.lobby.play_bot_many", { game: t(`ui.game.${b.dataset.game}`), n: num(bots) });
  });
  document.querySelectorAll("select.quick-side").forEach((select) => {
    const game = select.dataset.game;
    select.replaceChildren(...sideChoices(game, (meta.games[game] && meta.games[game].default_players) || 2));
  });
  $("#create-rated").addEventListener("change", checkRated);
  fillTimeControls($("#quick-time"));
  fillTimeControls($("#create-time"));
  // The buttons come disabled: a click before the page could act on it would be lost without a word.
  document.querySelectorAll("button.play-bot").forEach((b) => {
    b.addEventListener("click", () => playBot(b.dataset.game));
    b.disabled = false;
  });
  $("#create-game").addEventListener("change", fillPlayers);
  $("#create-players").addEventListener("change", fillSeats);
  $("#create-form").addEventListener("submit", create); // its button came disabled: fillPlayers enables it
  $("#refresh").addEventListener("click", refresh);
  fillPlayers();
  refresh();
  setInterval(refresh, 10000);
}

main();
