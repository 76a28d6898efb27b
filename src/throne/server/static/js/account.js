// Accounts: sign up, log in, guest name, a new password; a player's game history; the leaderboards of both games.
import { loadCatalog, t, number, bdi, isolate, personName, dateTime } from "./i18n.js";
import { api } from "./net.js";
import { clearError, showError } from "./common.js";

const $ = (sel) => document.querySelector(sel);

function cell(text) {
  const td = document.createElement("td");
  if (text instanceof Node) td.append(text);
  else td.textContent = text;
  return td;
}

async function submitAccount(event) {
  event.preventDefault();
  const mode = event.target.dataset.mode;
  const body = { username: $("#username").value.trim(), password: $("#password").value };
  if (mode === "signup" && $("#display-name").value.trim()) body.name = $("#display-name").value.trim();
  try {
    const data = await api(`/api/accounts/${mode === "login" ? "login" : "register"}`, { method: "POST", body });
    location.href = `/players/${data.user.id}`;
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

async function submitGuest(event) {
  event.preventDefault();
  try {
    await api("/api/accounts/guest", { method: "POST", body: { name: $("#guest-name").value.trim() } });
    location.href = "/";
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

async function submitPassword(event) {
  event.preventDefault();
  const body = { password: $("#current-password").value, new_password: $("#new-password").value };
  $("#password-done").hidden = true;
  try {
    await api("/api/accounts/password", { method: "POST", body });
    event.target.reset();
    clearError();
    $("#password-done").hidden = false;
  } catch (err) {
    showError(t("ui.error.prefix", { reason: err.message }));
  }
}

function ratingText(game, rating) {
  if (!rating) return null;
  const one = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  const value = rating.system === "glicko2" ? `${number(Math.round(rating.rating))} ± ${number(Math.round(rating.rd))}` : `${number(rating.ordinal, one)} (μ ${number(rating.mu, one)})`;
  return `${t(`ui.game.${game}`)}: ${value} · ${t("ui.board.games")} ${number(rating.games)}`;
}

function resultText(game, seat) {
  if (game.status !== "finished") return t("ui.account.in_progress");
  if (game.taken_over) return t("ui.account.taken_over");
  const winner = game.result ? game.result.winner : null;
  if (winner === null || winner === undefined) {
    // The outcome says which: a draw shares the points, a game nobody wins gives every seat 0.
    const scores = (game.result && game.result.scores) || [];
    return scores.length && scores.every((s) => s > 0) ? t("ui.table.draw") : t("ui.table.no_winner");
  }
  return t(winner === seat ? "ui.account.won" : "ui.account.lost");
}

async function playerPage(root) {
  const userId = root.dataset.userId;
  try {
    const info = await api(`/api/players/${userId}`);
    $("#player-title").textContent = t("ui.account.history", { name: isolate(personName(info.user.name, info.user.registered)) });
    const ratings = Object.entries(info.ratings || {}).map(([game, r]) => ratingText(game, r)).filter(Boolean);
    $("#player-ratings").textContent = ratings.join(" — ");
    const data = await api(`/api/players/${userId}/games?limit=50`);
    const body = $("#history tbody");
    for (const game of data.games) {
      const tr = document.createElement("tr");
      const link = document.createElement("a");
      link.href = game.status === "finished" ? `/games/${game.id}/replay` : `/games/${game.id}`;
      link.textContent = game.status === "finished" ? t("ui.table.replay") : t("ui.lobby.spectate");
      tr.append(cell(number(game.id)), cell(t(`ui.game.${game.game}`)), cell(number(game.players)), cell(resultText(game, game.seat)), cell(dateTime(game.created_at)), cell(link));
      body.append(tr);
    }
    $("#history-empty").hidden = data.games.length > 0;
  } catch (err) {
    showError(t("ui.error.generic", { reason: err.message }));
  }
}

async function leaderboards() {
  for (const table of document.querySelectorAll("table.leaderboard")) {
    const game = table.dataset.game;
    try {
      const data = await api(`/api/leaderboard/${game}?limit=50`);
      const body = table.querySelector("tbody");
      for (const entry of data.entries) {
        const link = document.createElement("a");
        link.href = `/players/${entry.user.id}`;
        link.append(bdi(entry.user.name));
        const rating = entry.rating !== undefined && entry.rating !== null ? number(Math.round(entry.rating)) : number(entry.score ?? 0, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
        const tr = document.createElement("tr");
        tr.append(cell(number(entry.rank)), cell(link), cell(rating), cell(number(entry.games)));
        body.append(tr);
      }
      table.parentElement.querySelector(".empty").hidden = data.entries.length > 0;
    } catch (err) {
      showError(t("ui.error.generic", { reason: err.message }));
    }
  }
}

/** Sends `form` through `submit` from now on. Its buttons come disabled (so Enter sends nothing either): until
 * then the browser would send the form itself, as a GET with the password in the address. */
function handle(form, submit) {
  if (!form) return;
  form.addEventListener("submit", submit);
  form.querySelectorAll("button[type=submit]").forEach((b) => (b.disabled = false));
}

async function main() {
  await loadCatalog(document.documentElement.lang);
  handle($("#account-form"), submitAccount);
  handle($("#guest-form"), submitGuest);
  handle($("#password-form"), submitPassword);
  const player = $("#player-root");
  if (player) playerPage(player);
  if (document.querySelector("table.leaderboard")) leaderboards();
}

main();
