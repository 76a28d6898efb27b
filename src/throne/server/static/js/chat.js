// The table chat: the players' channel (everyone reads it) and the spectators' (players read it once the game
// is over). Messages are shown as text only (textContent), never as markup; a mute per writer lives in this
// browser (localStorage).
import { t } from "./i18n.js";

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
    this.muted = mutedSet();
    this.panel = $("#chat-panel");
    $("#chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = $("#chat-text");
      const text = input.value.trim();
      if (!text) return;
      this.send({ type: "chat", text });
      input.value = "";
    });
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

  mute(message) {
    this.muted.add(writer(message));
    localStorage.setItem(MUTED, JSON.stringify([...this.muted]));
    this.render();
  }

  render() {
    const list = $("#chat-list");
    const shown = this.messages.filter((m) => !this.muted.has(writer(m)));
    list.replaceChildren(...shown.map((m) => chatLine(m, { onMute: (x) => this.mute(x) })));
    list.scrollTop = list.scrollHeight;
  }
}
