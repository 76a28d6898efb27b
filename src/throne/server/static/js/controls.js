// Table controls: clocks, resign, draw offers, takebacks and undo, new game, the notice of a disconnected player, and "your turn"
// in the tab title (plus an optional sound and browser notification, both off by default). Everything it sends
// is a plain protocol message; the server refuses what is not allowed.
import { t } from "./i18n.js";
import { Clocks, formatMs } from "./clock.js";
import { saveToken } from "./net.js";
import { leftText } from "./generic-table.js";

const $ = (sel) => document.querySelector(sel);
const ENDINGS = ["timeout", "resign", "agreement", "abandoned"];

export class TableControls {
  constructor({ send, seatName }) {
    this.send = send;
    this.seatName = seatName;
    this.seat = null;
    this.summary = null;
    this.last = null; // the latest state message
    this.rematchAsked = false;
    this.abandonMs = 120_000;
    this.away = new Map(); // absent seat -> when its countdown ends (performance.now() time)
    this.clocks = new Clocks($("#clocks"));
    this.baseTitle = document.title;
    this.wasMyTurn = false;
    this.sound = localStorage.getItem("throne.sound") === "1";
    this.notify = localStorage.getItem("throne.notify") === "1";
    $("#ctl-resign").addEventListener("click", () => {
      if (window.confirm(t("ui.ctl.resign_confirm"))) this.send({ type: "resign" });
    });
    $("#ctl-draw").addEventListener("click", () => this.send({ type: "draw_offer" }));
    $("#ctl-accept").addEventListener("click", () => this.send({ type: "draw_answer", accept: true }));
    $("#ctl-decline").addEventListener("click", () => this.send({ type: "draw_answer", accept: false }));
    // With the ply they were asked at: a request the server already granted, sent again, is refused (stale).
    $("#ctl-undo").addEventListener("click", () => this.send({ type: "undo", ply: this.ply }));
    $("#ctl-takeback").addEventListener("click", () => this.send({ type: "takeback_request", ply: this.ply }));
    $("#ctl-takeback-accept").addEventListener("click", () => this.send({ type: "takeback_answer", accept: true }));
    $("#ctl-takeback-decline").addEventListener("click", () => this.send({ type: "takeback_answer", accept: false }));
    $("#ctl-rematch").addEventListener("click", () => this.send({ type: "rematch" }));
    $("#ctl-claim").addEventListener("click", () => this.send({ type: "claim_win" }));
    const sound = $("#ctl-sound");
    sound.checked = this.sound;
    sound.addEventListener("change", () => {
      this.sound = sound.checked;
      localStorage.setItem("throne.sound", this.sound ? "1" : "0");
    });
    const notify = $("#ctl-notify");
    notify.checked = this.notify;
    notify.addEventListener("change", async () => {
      if (notify.checked && "Notification" in window && Notification.permission === "default") {
        await Notification.requestPermission();
      }
      this.notify = notify.checked && "Notification" in window && Notification.permission === "granted";
      notify.checked = this.notify;
      localStorage.setItem("throne.notify", this.notify ? "1" : "0");
    });
    setInterval(() => this.renderAway(), 1000);
  }

  setAbandonTimeout(seconds) {
    if (typeof seconds === "number") this.abandonMs = seconds * 1000;
  }

  /** A `welcome` or `table` summary: seats, who is connected, the game's status. */
  table(summary, seat) {
    this.summary = summary;
    this.seat = seat;
    const now = performance.now();
    for (const s of summary.seats) {
      // (a game whose record is damaged goes nowhere: nobody takes a seat over)
      const gone = s.kind === "human" && s.connected === false && summary.status === "live" && !summary.unavailable;
      // The server says how long is left (`takeover_in`, seconds); kept as the moment the countdown ends.
      if (gone && typeof s.takeover_in === "number") this.away.set(s.seat, now + s.takeover_in * 1000);
      else if (gone && !this.away.has(s.seat)) this.away.set(s.seat, now + this.abandonMs);
      if (!gone) this.away.delete(s.seat);
    }
    this.clocks.setNames(summary.seats.map((s) => this.seatName(s.seat)));
    this.renderAway();
    this.renderButtons(this.last);
  }

  /** A `state` message. */
  update(msg) {
    this.seat = msg.seat ?? null;
    this.last = msg;
    this.clocks.update(msg.clocks);
    this.renderButtons(msg);
    this.renderEnding(msg);
    this.yourTurn(Boolean(msg.your_turn));
  }

  renderButtons(msg) {
    const live = (msg ? msg.status : this.summary && this.summary.status) === "live";
    const seated = this.seat !== null && this.seat !== undefined;
    const drawable = Boolean(msg && msg.offers && msg.offers.draw_allowed);
    $("#controls").hidden = !this.summary || this.summary.status === "open";
    $("#ctl-resign").hidden = !(live && seated);
    $("#ctl-draw").hidden = !(live && seated && drawable);
    const left = this.summary ? this.summary.seats.some((s) => s.seat !== this.seat && s.kind === "bot" && s.takeover) : false;
    $("#ctl-claim").hidden = !(live && seated && drawable && left);
    const draw = msg && msg.offers ? msg.offers.draw : null;
    const incoming = live && seated && draw !== null && draw !== undefined && draw !== this.seat;
    $("#ctl-draw-answer").hidden = !incoming;
    if (incoming) $("#ctl-draw-text").textContent = t("ui.ctl.draw_incoming", { name: this.seatName(draw) });
    $("#ctl-draw-sent").hidden = !(live && draw === this.seat && seated);
    // Takebacks: any game, once this seat moved (the server refuses past revealed information); an undo of
    // one's own move while the turn lasts, in unrated games.
    const offers = msg && msg.offers ? msg.offers : {};
    const ply = msg && typeof msg.ply === "number" ? msg.ply : 0;
    this.ply = ply;
    const asked = offers.takeback;
    const pending = asked !== null && asked !== undefined;
    $("#ctl-takeback").hidden = !(live && seated && ply > 0 && !pending);
    $("#ctl-undo").hidden = !(live && seated && ply > 0 && offers.undo_allowed && msg.your_turn);
    $("#ctl-takeback-sent").hidden = !(live && seated && pending && asked === this.seat);
    const agreed = Array.isArray(offers.takeback_accepted) && offers.takeback_accepted.includes(this.seat);
    const answer = live && seated && pending && asked !== this.seat && !agreed;
    $("#ctl-takeback-answer").hidden = !answer;
    if (answer) $("#ctl-takeback-text").textContent = t("ui.ctl.takeback_incoming", { name: this.seatName(asked) });
    const finished = !live && this.summary && this.summary.status === "finished";
    $("#ctl-new").hidden = !finished;
    // Rematch asks are stored with the game: a (re)connected page learns them from the finished state.
    if (finished && Array.isArray(offers.rematch)) this.rematchAsked = offers.rematch.includes(this.seat);
    $("#ctl-rematch").hidden = !(finished && seated) || this.rematchAsked;
    $("#ctl-rematch-sent").hidden = !(finished && seated && this.rematchAsked);
    const others = finished && Array.isArray(offers.rematch) ? offers.rematch.filter((s) => s !== this.seat) : [];
    const askers = $("#ctl-rematch-incoming");
    askers.hidden = others.length === 0;
    askers.textContent = others.map((s) => t("ui.ctl.rematch_incoming", { name: this.seatName(s) })).join(" ");
  }

  /** `rematch_pending` (who asked so far) or `rematch` (the new game, with this seat's token). */
  rematch(msg) {
    if (msg.type === "rematch_pending") {
      if (this.last) this.last = { ...this.last, offers: { ...(this.last.offers || {}), rematch: msg.seats } };
      this.rematchAsked = msg.seats.includes(this.seat);
      this.renderButtons(this.last);
      return;
    }
    if (msg.token) saveToken(msg.new_game_id, msg.token);
    const invite = msg.invite ? `?invite=${encodeURIComponent(msg.invite)}` : "";
    location.href = `/games/${msg.new_game_id}${invite}`;
  }

  /** A game ended without the engine (time, resignation, agreement, a leaver): say so in the result line. */
  renderEnding(msg) {
    const result = msg.result;
    if (msg.status !== "finished" || !result || !ENDINGS.includes(result.termination)) return;
    if (msg.view && msg.view.is_over) return; // the game's own result line says it
    const banner = $("#result");
    let head = t("ui.table.draw");
    const seated = this.seat !== null && this.seat !== undefined;
    const won = result.winner !== null && result.winner !== undefined;
    if (seated && msg.left) {
      // a bot played this seat for its person (e.g. away, then the opponent resigned): the bot's win is not theirs
      head = leftText(msg.left, this.seat, won ? [result.winner] : [], (s) => this.seatName(s), `${head}.`);
    } else if (won) {
      head = seated
        ? t(this.seat === result.winner ? "ui.table.you_won" : "ui.table.you_lost")
        : t("ui.table.winner", { name: this.seatName(result.winner) });
    }
    banner.textContent = `${head} ${t(`ui.ctl.termination.${result.termination}`)}`;
    const turn = $("#turn-banner");
    if (turn) {
      turn.textContent = t("ui.table.game_over");
      turn.classList.remove("mine");
    }
    banner.hidden = false;
    banner.dataset.termination = result.termination;
  }

  renderAway() {
    const box = $("#away-notice");
    const rated = this.summary && this.summary.rated && this.summary.players === 2;
    const lines = [...this.away.entries()].map(([seat, until]) => {
      const left = until - performance.now();
      return t(rated ? "ui.ctl.disconnected_rated" : "ui.ctl.disconnected", { name: this.seatName(seat), time: formatMs(left) });
    });
    box.hidden = lines.length === 0;
    box.textContent = lines.join(" · ");
  }

  yourTurn(mine) {
    document.title = mine ? `● ${t("ui.ctl.your_turn")} — ${this.baseTitle}` : this.baseTitle;
    setFavicon(mine);
    if (mine && !this.wasMyTurn) {
      if (this.sound) beep();
      if (this.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
        new Notification(t("ui.ctl.your_turn"), { body: this.baseTitle, tag: "throne-turn" });
      }
    }
    this.wasMyTurn = mine;
  }
}

function setFavicon(mine) {
  let link = document.querySelector("link[rel='icon']");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  const dot = mine ? "<circle cx='24' cy='8' r='7' fill='%23d33'/>" : "";
  link.href = `data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><text y='26' font-size='26'>♛</text>${dot}</svg>`;
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.value = 0.05;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    /* no sound available */
  }
}
