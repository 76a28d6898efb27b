// The live-game WebSocket: connects, says hello (with the seat token, if any), reconnects by itself with a
// growing delay after any drop, and reports its state in a visible status element.
import { t } from "./i18n.js";

const STATUS_KEYS = {
  connecting: "ui.net.connecting",
  online: "ui.net.online",
  reconnecting: "ui.net.reconnecting",
  offline: "ui.net.offline",
};

export class GameSocket {
  /**
   * @param {number|string} gameId
   * @param {{token?: string|null, onMessage: (msg: object) => void, statusEl?: HTMLElement|null,
   *          onStatus?: (state: string) => void}} options
   */
  constructor(gameId, { token = null, onMessage, statusEl = null, onStatus = null }) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.statusEl = statusEl;
    this.onStatus = onStatus;
    this.ws = null;
    this.retry = 0;
    this.closedByUs = false;
    this.everOnline = false;
    this.pingTimer = null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/games/${encodeURIComponent(this.gameId)}`;
  }

  connect() {
    this.closedByUs = false;
    this.setStatus(this.everOnline ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token }));
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        const wasOnline = this.everOnline;
        this.retry = 0;
        this.everOnline = true;
        this.setStatus("online", wasOnline);
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      clearInterval(this.pingTimer);
      if (this.closedByUs || event.code === 4404) {
        this.setStatus("offline");
        return;
      }
      this.setStatus("reconnecting");
      const delay = Math.min(5000, 300 * 2 ** this.retry);
      this.retry += 1;
      setTimeout(() => this.connect(), delay);
    });
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
  }

  /** Send a message now; false when the socket is not open (the caller shows that). */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Drop the current socket as a network failure would; the reconnection starts by itself. */
  drop() {
    if (this.ws) this.ws.close(4000, "dropped");
  }

  close() {
    this.closedByUs = true;
    if (this.ws) this.ws.close(1000, "bye");
  }

  setStatus(state, reconnected = false) {
    this.state = state;
    if (this.statusEl) {
      this.statusEl.dataset.state = state;
      const key = state === "online" && reconnected ? "ui.net.reconnected" : STATUS_KEYS[state];
      this.statusEl.textContent = t(key);
    }
    if (this.onStatus) this.onStatus(state);
  }
}

/** JSON over HTTP with the server's error shape turned into an Error carrying `code`. */
export async function api(path, { method = "GET", body = undefined, token = null } = {}) {
  const headers = { Accept: "application/json" };
  // Every state-changing request declares JSON, even without a body: the server's CSRF guard requires it.
  if (body !== undefined || method !== "GET") headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = new Error((data && data.error && data.error.message) || `HTTP ${response.status}`);
    err.code = data && data.error ? data.error.code : String(response.status);
    err.status = response.status;
    throw err;
  }
  return data;
}

/** Seat tokens are kept per game in localStorage so a reload keeps the seat. */
export function savedToken(gameId) {
  try {
    return localStorage.getItem(`throne.token.${gameId}`);
  } catch {
    return null;
  }
}

export function saveToken(gameId, token) {
  try {
    if (token) localStorage.setItem(`throne.token.${gameId}`, token);
  } catch {
    /* storage disabled: the server gives the token back through the session cookie */
  }
}
