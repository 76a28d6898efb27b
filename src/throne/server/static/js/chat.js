// The table chat: the players' channel (everyone reads it) and the spectators' (players read it once the game
// is over). Messages are shown as text only (textContent), never as markup. A mute is per user: a page with a
// session (guest or registered account) stores it with the account (/api/accounts/mutes, every table and
// device); a page without one keeps it in this browser (localStorage).
import { t, number } from "./i18n.js";
import { api } from "./net.js";

const $ = (sel) => document.querySelector(sel);
const MUTED = "throne.chat.muted";

function mutedSet() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED) || "[]"));
  } catch {
    return new Set();
  }
}

/** Who wrote a message, as the mute list keys it. */
function writer(message) {
  return message.user_id !== null && message.user_id !== undefined ? `u${message.user_id}` : `n${message.name}`;
}

export function chatLine(message, { onMute } = {}) {
  const li = document.createElement("li");
  li.dataset.id = String(message.id);
  li.dataset.channel = message.channel;
  // The name and the text each isolated (<bdi>, dir=auto): a Latin line in a Persian page keeps its order.
  const who = document.createElement("strong");
  const name = document.createElement("bdi");
  name.textContent = message.name;
  who.append(name);
  if (message.channel === "spectators") who.append(` (${t("ui.chat.spectator")})`);
  const text = document.createElement("bdi");
  text.className = "chat-text";
  text.dir = "auto";
  text.textContent = message.text;
  li.append(who, t("ui.chat.colon"), text);
  if (onMute) {
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "secondary chat-mute";
    mute.textContent = t("ui.chat.mute");
    mute.addEventListener("click", () => onMute(message));
    li.append(" ", mute);
  }
  return li;
}

export class TableChat {
  constructor({ send }) {
    this.send = send;
    this.messages = [];
    this.local = mutedSet(); // writers muted in this browser (no session, or writers without an account)
    this.account = new Set(); // writers ("u<id>") muted by the session's user, as the server stores them
    this.me = null; // the session's user id (null: no session)
    this.panel = $("#chat-panel");
    $("#chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = $("#chat-text");
      const text = input.value.trim();
      if (!text) return;
      this.send({ type: "chat", text });
      input.value = "";
    });
    $("#chat-unmute").addEventListener("click", () => this.unmuteAll());
    this.ready = this.loadAccount();
  }

  /** The session's mutes; mutes this browser kept for users move to the account once. */
  async loadAccount() {
    try {
      const data = await api("/api/accounts/mutes");
      this.me = data.user_id;
      this.account = new Set(data.muted.map((id) => `u${id}`));
      for (const key of [...this.local].filter((k) => k.startsWith("u"))) {
        await this.store(Number(key.slice(1)), true);
        this.local.delete(key);
      }
      this.saveLocal();
    } catch {
      /* no session: mutes stay in this browser */
    }
    this.render();
  }

  async store(userId, muted) {
    const data = await api("/api/accounts/mutes", { method: "POST", body: { user_id: userId, muted } });
    this.account = new Set(data.muted.map((id) => `u${id}`));
  }

  saveLocal() {
    localStorage.setItem(MUTED, JSON.stringify([...this.local]));
  }

  isMuted(message) {
    const key = writer(message);
    return this.account.has(key) || this.local.has(key);
  }

  /** The seat of this page (null: a spectator) and the game's status decide the channel it writes in. */
  setSeat(seat, status) {
    this.panel.hidden = status === "open";
    const key = seat === null || seat === undefined ? (status === "live" ? "ui.chat.spectators_live" : "ui.chat.spectators") : "ui.chat.players";
    $("#chat-channel").textContent = t(key);
  }

  history(messages) {
    this.messages = messages.slice();
    this.render();
  }

  add(message) {
    if (this.messages.some((m) => m.id === message.id)) return;
    this.messages.push(message);
    this.render();
  }

  async mute(message) {
    const id = message.user_id;
    if (this.me !== null && id !== null && id !== undefined) {
      try {
        await this.store(id, true);
      } catch {
        this.local.add(writer(message)); // the account could not store it: this browser keeps it
      }
    } else {
      this.local.add(writer(message));
    }
    this.saveLocal();
    this.render();
  }

  async unmuteAll() {
    for (const key of [...this.account]) {
      try {
        await this.store(Number(key.slice(1)), false);
      } catch {
        /* left muted; the button stays */
      }
    }
    this.local.clear();
    this.saveLocal();
    this.render();
  }

  render() {
    const list = $("#chat-list");
    const shown = this.messages.filter((m) => !this.isMuted(m));
    const own = (m) => this.me !== null && m.user_id === this.me;
    list.replaceChildren(...shown.map((m) => chatLine(m, { onMute: own(m) ? null : (x) => this.mute(x) })));
    list.scrollTop = list.scrollHeight;
    const count = this.account.size + this.local.size;
    const unmute = $("#chat-unmute");
    unmute.hidden = count === 0;
    unmute.textContent = t("ui.chat.unmute_all", { count: number(count) });
  }
}
