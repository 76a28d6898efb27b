// The Hidden Leaders table: your leader and factions, your hand, every party (face-down heroes of others as
// card backs), the Tavern, the piles, the power track, the pending decision (built from the legal move
// strings, hidden-leaders.md §7.1), a public log and the final scoring. Game data (card factions, leader
// alliances) comes from the page (rendered by the server from the engine); no rule lives here.
import { t, cardName, has, number } from "./i18n.js";
import { EventLog, hiddenEnding } from "./narrate.js";
import { h } from "./common.js";
import { leftText } from "./generic-table.js";
import { promptText, pickedMoves, isMarkerMove, markerSteps, discardMove, setupMove } from "./hidden-decision.js";

const $ = (sel, root = document) => root.querySelector(sel);

let DATA = { cards: {}, leaders: {}, factions: [], guardians: [] };

/** Game data embedded in the page by the server (from the engine's tables). */
export function setGameData(data) {
  DATA = data || DATA;
}

function factionName(id) {
  return id ? t(`hl.faction.${id}`) : t("hl.faction.neutral");
}

function leaderName(id) {
  return id ? t(`hl.leader.${id}`) : "?";
}

function factionClass(card) {
  if (card === "deceased-emperor") return "faction-all";
  const faction = DATA.cards[card];
  const guardian = isGuardian(card) && faction !== "guardians" ? " guardian" : "";
  return faction ? `faction-${faction}${guardian}` : "";
}

/** A Guardian card of the legends module: it belongs to the Guardians (and, a hero, to its base faction). */
function isGuardian(card) {
  return (DATA.guardians || []).includes(card);
}

/** A face-up card (or a face-down one the viewer knows, when `own` is set). */
export function cardEl(card, { own = false, pick = null } = {}) {
  const markers = has(`hl.card.${card}.markers`) ? t(`hl.card.${card}.markers`) : "";
  const ability = has(`hl.card.${card}.text`) ? t(`hl.card.${card}.text`) : "";
  let faction = card === "deceased-emperor" ? "" : factionName(DATA.cards[card]);
  if (isGuardian(card) && DATA.cards[card] !== "guardians") faction += ` · ${factionName("guardians")}`;
  const el = h(
    "div",
    { class: `hl-card ${factionClass(card)}${own ? " down-own" : ""}`, "data-card": card, title: `${cardName(card)} — ${faction}\n${markers}\n${ability}` },
    h("span", { class: "name", text: cardName(card) }),
    faction ? h("span", { class: "muted faction", text: faction }) : null,
    markers && markers !== "—" ? h("span", { class: "markers", text: markers }) : null,
    ability && ability !== "—" ? h("span", { class: "ability", text: ability }) : null,
    own ? h("span", { class: "muted down-label", text: `(${t("ui.hl.face_down")})` }) : null,
  );
  if (pick) el.dataset.pick = pick;
  return el;
}

function backEl(pick = null) {
  const el = h("div", { class: "hl-card back", title: t("ui.hl.face_down"), "data-card": "" }, h("span", { text: "?" }));
  if (pick) el.dataset.pick = pick;
  return el;
}

/** Player names per seat from the table summary. */
function seatLabel(names, seat) {
  return names[seat] ?? t("ui.lobby.seat", { n: seat + 1 });
}

/** A localised label for one move string of §7.1 (also used for the public log). */
export function moveLabel(move, names) {
  const card = (id) => (has(`hl.card.${id}.name`) ? cardName(id) : id);
  let m;
  if ((m = /^keep (\S+) discard (\S+)$/.exec(move))) return `${t("ui.hl.keep")}: ${card(m[1])}${t("ui.list.sep")}${t("ui.hl.discard")}: ${card(m[2])}`;
  if ((m = /^play (\S+)$/.exec(move))) return `${t("ui.hl.play")}: ${card(m[1])}`;
  if ((m = /^discard ((?:\S+ ?){1,3})$/.exec(move)) && m[1].split(" ").every((id) => has(`hl.card.${id}.name`))) {
    return `${t("ui.hl.discard")}: ${m[1].split(" ").map(card).join(t("ui.list.sep"))}`;
  }
  if (move === "pass") return t("ui.hl.pass");
  if (move === "flip" || move === "look") return t(`ui.hl.option.${move}`);
  if ((m = /^pile (wilderness|graveyard|harbor|tavern)$/.exec(move))) return t("ui.hl.option.pile", { zone: t(`hl.zone.${m[1]}`) });
  // Public forms of secret moves (the log never names hidden cards).
  if (move === "setup") return t("ui.hl.log.setup");
  if ((m = /^discard (\d+) cards?$/.exec(move))) return t("ui.hl.log.discard_n", { n: m[1] });
  if (/^\S+ card$/.test(move)) return t("ui.hl.log.secret_pick");
  if (move === "skip") return t("ui.hl.skip");
  if (move === "draw harbor") return t("ui.hl.draw_harbor");
  if ((m = /^draw tavern (\S+)$/.exec(move))) return t("ui.hl.draw_tavern", { card: card(m[1]) });
  if ((m = /^(\d+):down(\d+)$/.exec(move))) return t("ui.hl.option_down", { k: Number(m[2]) + 1, name: seatLabel(names, Number(m[1])) });
  if ((m = /^(\d+):(\S+)$/.exec(move))) return `${seatLabel(names, Number(m[1]))}: ${card(m[2])}`;
  if ((m = /^(tavern|pick|hand) (\S+)$/.exec(move))) {
    const zone = m[1] === "pick" ? "" : `${t(`hl.zone.${m[1]}`)}: `;
    return `${zone}${card(m[2])}`;
  }
  if ((m = /^seat (\d+)$/.exec(move))) return seatLabel(names, Number(m[1]));
  if ((m = /^faction (\S+)$/.exec(move))) return factionName(m[1]);
  if ((m = /^fate (\S+)$/.exec(move)) && has(`hl.fate.${m[1]}`)) return t("ui.hl.fate", { fate: t(`hl.fate.${m[1]}`) });
  // Anything else (marker options such as "R+1 G-1", public log forms): card ids become names.
  return move.split(" ").map((word) => (has(`hl.card.${word}.name`) ? cardName(word) : word)).join(" ");
}

/** Display order of the buttons: marker options and names first, passing and skipping last. */
function optionRank(move) {
  if (move === "pass" || move === "skip") return 2;
  return 1;
}

export class HiddenTable {
  constructor(root, { send, seat, names }) {
    this.root = root;
    this.send = send;
    this.seat = seat;
    this.names = names || [];
    this.view = null;
    this.legal = [];
    this.log = [];
    this.result = null;
    this.left = null; // why a bot plays this seat for its person (resign, timeout, abandoned), from the state
    this.ending = null; // the game-end event, once seen
    this.narrated = false; // the log is built from events (else from public move strings)
    this.selected = []; // hand cards chosen for a discard of the main action, or [keep, discard] at setup
    this.events = new EventLog($("#log", root), {
      renderer: "hidden-table",
      seat,
      name: (s) => seatLabel(this.names, s),
      choice: (move) => moveLabel(move, this.names),
    });
  }

  setSeat(seat) {
    this.seat = seat;
    this.events.ctx.seat = seat;
  }

  setNames(names) {
    this.names = names;
    if (this.view) this.render();
  }

  update(msg) {
    this.view = msg.view;
    const legal = msg.legal_moves || [];
    if (legal.join("|") !== this.legal.join("|")) this.selected = [];
    this.legal = legal;
    this.result = msg.result || null;
    this.left = msg.left ?? null;
    const events = msg.events || [];
    if (events.length) {
      if (!this.narrated) this.events.clear();
      this.narrated = true;
      if (this.seat === null && this.turnDone) this.events.unmark(); // a spectator: only the last turn
      this.events.add(events, { fresh: true });
      this.turnDone = events.some((ev) => ev.type === "turn-end");
    }
    for (const ev of events) if (ev.type === "game-end") this.ending = ev;
    this.render();
  }

  /** Replace the narrated log (a reconnect: the events of every move so far). */
  setEvents(events, upto = Infinity) {
    this.narrated = true;
    this.events.replace(events, upto);
    for (const ev of events) if (ev.type === "game-end") this.ending = ev;
    if (this.view) this.render();
  }

  setLog(entries) {
    this.log = entries.slice();
    this.renderLog();
  }

  pushLog(entry) {
    this.log.push(entry);
    this.renderLog();
  }

  play(move) {
    this.legal = [];
    this.selected = [];
    this.events.unmark(); // you acted: the marks of the others' turns go
    this.markFresh();
    this.send(move);
    this.render();
  }

  render() {
    const view = this.view;
    if (!view) return;
    this.renderTrack();
    this.renderMine();
    this.renderZones();
    this.renderParties();
    this.renderDecision();
    this.markPickable();
    this.renderScores();
    this.markFresh();
  }

  /** The cards the others' last actions played, moved or turned stay outlined on the table until you act. */
  markFresh() {
    const cards = new Set();
    for (const { ev, fresh } of this.events.entries) {
      if (!fresh) continue;
      if (ev.card && ev.type === "play") cards.add(ev.card);
      for (const c of ev.type === "cards" ? ev.cards || [] : []) cards.add(c);
    }
    for (const el of this.root.querySelectorAll("#parties [data-card], #tavern [data-card], #graveyard [data-card]")) {
      el.classList.toggle("fresh-card", cards.has(el.dataset.card));
    }
  }

  renderTrack() {
    const track = $("#power-track", this.root);
    track.replaceChildren();
    const { red, green, guardian } = this.view.markers || { red: 4, green: 4 };
    for (let space = 1; space <= 12; space += 1) {
      const cell = h("div", { class: `space${space >= 9 ? " war" : ""}`, "data-space": space }, h("span", { text: number(space) }));
      if (red === space) cell.append(h("span", { class: "marker red", title: t("ui.hl.red"), text: "R" }));
      if (green === space) cell.append(h("span", { class: "marker green", title: t("ui.hl.green"), text: "G" }));
      if (guardian === space) cell.append(h("span", { class: "marker guardian", title: t("ui.hl.guardian"), text: "✦" }));
      track.append(cell);
    }
    const now = guardian === undefined ? t("ui.hl.markers_now", { red, green }) : t("ui.hl.markers_now_legends", { red, green, guardian });
    $("#track-now", this.root).textContent = now;
    this.renderLegends();
    const end = $("#track-end", this.root);
    if (end && this.view.threshold) end.textContent = t("ui.hl.rules.end", { n: this.view.threshold });
  }

  /** legends: the secret leader pool's sizes and the live winning faction in its conditional form (R23). */
  renderLegends() {
    const view = this.view;
    let box = $("#legends-info", this.root);
    if (!box) {
      box = h("div", { id: "legends-info", class: "track-legend" });
      $("#power-track", this.root).after(box);
    }
    const guardianName = $("#track-name-guardian", this.root);
    if (guardianName) guardianName.hidden = !view.leader_pool;
    // The engine says which faction would win now (a public function of the markers); none is computed here.
    const live = view.live_faction;
    const parts = [];
    if (view.leader_pool) {
      parts.push(h("span", { id: "leader-pool", text: t("ui.hl.leader_pool", { base: view.leader_pool.base, guardians: view.leader_pool.guardians }) }));
    }
    if (live && view.phase !== "over") {
      const faction = factionName(live.faction);
      const text = live.guardians_if_seated ? t("ui.hl.live_faction_guardians", { faction }) : t("ui.hl.live_faction", { faction });
      parts.push(h("span", { id: "live-faction", "data-faction": live.faction, text }));
    }
    box.replaceChildren(...parts);
  }

  renderMine() {
    const view = this.view;
    const box = $("#my-leader", this.root);
    const handBox = $("#my-hand", this.root);
    box.replaceChildren();
    handBox.replaceChildren();
    const mine = this.seat !== null && this.seat !== undefined && this.seat >= 0;
    $("#mine-panel", this.root).hidden = !mine;
    if (!mine) return;
    const leader = (view.leaders || [])[this.seat];
    const factions = leader && DATA.leaders[leader] ? DATA.leaders[leader].factions : [];
    if (factions.length === 2) box.title = t("ui.hl.allied_with", { a: factionName(factions[0]), b: factionName(factions[1]) });
    box.append(
      h("span", { class: "leader-name", "data-leader": leader || "", text: leaderName(leader) }),
      ...factions.map((f) => h("span", { class: `faction-chip ${f}`, text: factionName(f) })),
    );
    const hand = (view.hands || [])[this.seat];
    const kind = view.decision && this.legal.length ? view.decision.kind : null;
    if (Array.isArray(hand)) {
      for (const card of hand) {
        const el = cardEl(card, { pick: `hand ${card}` });
        const at = this.selected.indexOf(card);
        if (at >= 0) {
          el.classList.add("chosen");
          const tag = kind === "setup" ? t(at === 0 ? "ui.hl.keep" : "ui.hl.discard") : t("ui.hl.discard");
          el.prepend(h("span", { class: `chosen-tag${kind === "setup" && at === 0 ? " keep" : ""}`, text: tag }));
        }
        if (this.legal.includes(`play ${card}`) && kind === "action") {
          el.append(h("button", { type: "button", class: "play-card", "data-move": `play ${card}`, text: t("ui.hl.play"), onclick: () => this.play(`play ${card}`) }));
        }
        handBox.append(el);
      }
    }
    this.renderKnown();
  }

  /** The cards this seat has seen in hidden places, each with where it is now (the engine's `known`). */
  renderKnown() {
    const known = this.view.known || [];
    const knownBox = $("#known", this.root);
    knownBox.replaceChildren();
    $("#known-panel", this.root).hidden = known.length === 0;
    for (const entry of known) {
      if (!entry || !entry.card) continue;
      knownBox.append(h("div", { class: "known-entry", "data-card": entry.card, "data-where": entry.where }, cardEl(entry.card), h("span", { class: "where", text: this.whereText(entry) })));
    }
  }

  whereText(entry) {
    const [zone, seat] = String(entry.where || "").split(" ");
    const name = seat === undefined ? "" : seatLabel(this.names, Number(seat));
    if (zone === "wilderness") return t("ui.hl.where.wilderness");
    if (zone === "hand") return t("ui.hl.where.hand", { name });
    if (zone === "party") return t("ui.hl.where.party", { name, k: Number(entry.index ?? 0) + 1 });
    return entry.where || "";
  }

  renderZones() {
    const view = this.view;
    const tavern = $("#tavern", this.root);
    tavern.replaceChildren();
    for (const card of view.tavern || []) {
      tavern.append(card ? cardEl(card, { pick: `tavern ${card}` }) : h("div", { class: "hl-card", text: "—" }));
    }
    const count = (pile) => (Array.isArray(pile) ? pile.length : typeof pile === "object" && pile ? pile.count : pile ?? 0);
    const piles = $("#piles", this.root);
    piles.replaceChildren(
      h("span", { class: "pile", "data-pile": "harbor", "data-pick": "harbor", text: t("ui.hl.pile_count", { zone: t("hl.zone.harbor"), n: count(view.harbor) }) }),
      h("span", { class: "pile", "data-pile": "wilderness", text: t("ui.hl.pile_count", { zone: t("hl.zone.wilderness"), n: count(view.wilderness) }) }),
      h("span", { class: "pile", "data-pile": "graveyard", text: t("ui.hl.pile_count", { zone: t("hl.zone.graveyard"), n: count(view.graveyard) }) }),
    );
    const grave = $("#graveyard", this.root);
    grave.replaceChildren();
    for (const card of Array.isArray(view.graveyard) ? view.graveyard : []) grave.append(cardEl(card));
  }

  renderParties() {
    const view = this.view;
    const box = $("#parties", this.root);
    box.replaceChildren();
    const players = view.players || (view.parties || []).length;
    for (let seat = 0; seat < players; seat += 1) {
      const party = (view.parties || [])[seat] || [];
      const hand = (view.hands || [])[seat];
      const handCount = Array.isArray(hand) ? hand.length : hand && typeof hand === "object" ? hand.count : hand;
      const leader = (view.leaders || [])[seat];
      const you = seat === this.seat ? ` (${t("ui.table.you")})` : "";
      const header = h(
        "h3",
        {},
        h("span", { text: t("ui.hl.party_of", { name: seatLabel(this.names, seat) }) + you }),
        leader && seat !== this.seat ? h("span", { class: "muted", "data-leader": leader, text: leaderName(leader) }) : null,
        h("span", { class: "muted", text: t("ui.hl.hand_count", { n: handCount ?? 0 }) }),
        (view.skips || []).includes(seat) ? h("span", { class: "skip-chip", text: t("ui.hl.skips_turn") }) : null,
      );
      const cards = h("div", { class: "cards" });
      let down = 0;
      for (const hero of party) {
        if (hero.up) cards.append(cardEl(hero.card, { pick: `${seat}:${hero.card}` }));
        else {
          const pick = `${seat}:down${down}`;
          down += 1;
          cards.append(hero.card ? cardEl(hero.card, { own: true, pick }) : backEl(pick));
        }
      }
      const toPlay = view.decision ? view.decision.seat : view.to_play;
      box.append(h("section", { class: `party${toPlay === seat && view.phase !== "over" ? " to-play" : ""}`, "data-seat": seat, "data-pick": `seat ${seat}` }, header, cards));
    }
  }

  renderDecision() {
    const view = this.view;
    const panel = $("#decision", this.root);
    const prompt = $("#decision-prompt", this.root);
    const options = $("#decision-options", this.root);
    const hint = $("#decision-hint", this.root);
    const about = $("#decision-card", this.root);
    options.replaceChildren();
    about.replaceChildren();
    hint.textContent = "";
    const turn = $("#turn-banner", this.root);
    if (view.phase === "over" || view.is_over) {
      this.root.dataset.over = "true";
      this.root.dataset.myTurn = "false";
      panel.hidden = true;
      turn.textContent = t("ui.table.game_over");
      turn.classList.remove("mine");
      return;
    }
    const decision = view.decision || { seat: view.to_play, kind: "choice", card: null };
    const mine = this.legal.length > 0;
    this.root.dataset.myTurn = String(mine);
    this.root.dataset.kind = decision.kind;
    turn.classList.toggle("mine", mine);
    turn.textContent = mine ? t("ui.table.your_turn") : t("ui.hl.waiting_decision", { name: seatLabel(this.names, decision.seat) });
    panel.hidden = false;
    panel.classList.toggle("waiting", !mine);
    panel.dataset.kind = decision.kind;
    panel.dataset.purpose = decision.purpose || decision.kind;
    const text = promptText(decision);
    prompt.dataset.kind = decision.kind;
    $("#decision-title", this.root).textContent = mine ? t("ui.hl.decision") : t("ui.hl.waiting_decision", { name: seatLabel(this.names, decision.seat) });
    prompt.textContent = text;
    if (decision.card && mine) about.append(cardEl(decision.card));
    if (!mine) return;
    const fate = view.fate;
    if (fate && Array.isArray(fate.cards)) {
      options.append(h("div", { class: "cards", id: "fate-cards" }, ...fate.cards.map((kind) => h("div", { class: "hl-card fate-card", "data-fate": kind, "data-pick": `fate ${kind}`, title: t("ui.hl.fate", { fate: t(`hl.fate.${kind}`) }) }, h("span", { class: "name", text: t(`hl.fate.${kind}`) })))));
    }
    // Cards the decision holds (drawn, looked at) and Graveyard cards it may take are shown in the panel.
    const pending = (Array.isArray(view.pending_cards) ? view.pending_cards : []).map((c) => (typeof c === "string" ? c : c && c.card)).filter(Boolean);
    const grave = (Array.isArray(view.graveyard) ? view.graveyard : []).filter((c) => !pending.includes(c) && this.legal.includes(`pick ${c}`));
    if (pending.length || grave.length) {
      options.append(h("div", { class: "cards", id: "pending-cards" }, ...[...pending, ...grave].map((c) => cardEl(c, { pick: `pick ${c}` }))));
    }
    if (decision.kind === "setup") {
      options.append(this.setupControls());
      hint.textContent = t("ui.hl.hint.setup");
      return;
    }
    if (decision.kind === "action") {
      options.append(this.actionControls());
      hint.textContent = t("ui.hl.hint.action");
      return;
    }
    // Moves that a card, pile or party on the table stands for are chosen by clicking it; the others are buttons.
    const picks = [...this.root.querySelectorAll("#hidden-ui [data-pick]")].map((el) => el.dataset.pick);
    const onTable = new Set(pickedMoves(picks, this.legal).values());
    const buttons = h("div", { class: "option-buttons" });
    for (const move of [...this.legal].sort((a, b) => optionRank(a) - optionRank(b))) {
      if (onTable.has(move) && !move.startsWith("seat ")) continue;
      buttons.append(this.optionButton(move, decision));
    }
    if (buttons.childElementCount) options.append(buttons);
    if ([...onTable].some((m) => !m.startsWith("seat "))) hint.textContent = t("ui.hl.hint.click");
  }

  /** One button for a move that no element on the table stands for (markers with their result, names, pass). */
  optionButton(move, decision) {
    const button = h("button", { type: "button", "data-move": move, onclick: () => this.play(move) });
    const result = decision.results && decision.results[move];
    if (isMarkerMove(move)) {
      button.classList.add("marker-option");
      button.append(h("span", { class: "steps", text: markerSteps(move) }));
      if (result) button.append(h("span", { class: "result", text: t("ui.hl.marker_result", { red: number(result.red), green: number(result.green) }) }));
      return button;
    }
    let m;
    if ((m = /^seat (\d+)$/.exec(move))) {
      const seat = Number(m[1]);
      button.textContent = seatLabel(this.names, seat) + (seat === this.seat ? ` (${t("ui.table.you")})` : "");
      return button;
    }
    if ((m = /^faction (\S+)$/.exec(move))) {
      button.classList.add("faction-option", `faction-${m[1]}`);
      button.textContent = factionName(m[1]);
      return button;
    }
    button.textContent = moveLabel(move, this.names);
    return button;
  }

  /** Setup: the first hand card clicked is kept face down, the second discarded; a confirm sends both. */
  setupControls() {
    const [keep, drop] = this.selected;
    const move = keep && drop ? setupMove(keep, drop, this.legal) : null;
    const status = h(
      "p",
      { class: "selection", id: "setup-status" },
      `${t("ui.hl.keep")}: `,
      h("strong", { text: keep ? cardName(keep) : "—" }),
      `${t("ui.list.sep")}${t("ui.hl.discard")}: `, // not a middle dot: beside Persian digits it reads as ۰
      h("strong", { text: drop ? cardName(drop) : "—" }),
    );
    return h(
      "div",
      { class: "option-buttons" },
      status,
      h("button", { type: "button", id: "setup-confirm", disabled: !move, text: t("ui.table.confirm"), onclick: () => move && this.play(move) }),
      this.selected.some(Boolean) ? h("button", { type: "button", class: "secondary", id: "selection-clear", text: t("ui.table.cancel"), onclick: () => this.select([]) }) : null,
    );
  }

  /** Main action: the Play button of a hand card, or the selected hand cards discarded together, or pass. */
  actionControls() {
    const move = discardMove(this.selected, this.legal);
    const n = this.selected.length;
    return h(
      "div",
      { class: "option-buttons" },
      h("button", {
        type: "button",
        id: "discard-confirm",
        disabled: !move,
        "data-move": move || null,
        text: n ? t("ui.hl.discard_selected", { n, cards: this.selected.map(cardName).join(t("ui.list.sep")) }) : t("ui.hl.discard_none"),
        onclick: () => move && this.play(move),
      }),
      n ? h("button", { type: "button", class: "secondary", id: "selection-clear", text: t("ui.table.cancel"), onclick: () => this.select([]) }) : null,
      this.legal.includes("pass") ? h("button", { type: "button", class: "secondary", "data-move": "pass", text: t("ui.hl.pass"), onclick: () => this.play("pass") }) : null,
    );
  }

  select(cards) {
    this.selected = cards;
    this.render();
  }

  /** A hand card clicked while setting up (keep, then discard) or choosing cards to discard (toggle). */
  toggleHand(card) {
    const kind = this.view.decision && this.view.decision.kind;
    const sel = this.selected.slice();
    const at = sel.indexOf(card);
    if (kind === "setup") {
      let [keep = null, drop = null] = sel;
      if (card === keep) keep = null;
      else if (card === drop) drop = null;
      else if (!keep) keep = card;
      else drop = card;
      this.select([keep, drop]);
      return;
    }
    if (at >= 0) sel.splice(at, 1);
    else sel.push(card);
    this.select(sel);
  }

  /** Cards on the table that a legal move names become clickable (and keyboard-focusable). */
  markPickable() {
    const kind = this.view.decision && this.legal.length ? this.view.decision.kind : null;
    const selecting = kind === "setup" || kind === "action";
    const moves = pickedMoves([...this.root.querySelectorAll("[data-pick]")].map((el) => el.dataset.pick), this.legal);
    for (const el of this.root.querySelectorAll("[data-pick]")) {
      const pick = el.dataset.pick;
      let act = null;
      if (selecting && pick.startsWith("hand ") && el.closest("#my-hand")) {
        const card = pick.slice(5);
        act = () => this.toggleHand(card);
        el.setAttribute("aria-pressed", String(this.selected.includes(card)));
      } else if (moves.has(pick) && !selecting) {
        const move = moves.get(pick);
        el.dataset.move = move;
        act = () => this.play(move);
      }
      if (!act) continue;
      el.classList.add("pickable");
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.addEventListener("click", (event) => {
        if (event.target.closest("button")) return;
        if (event.target.closest(".pickable") !== el) return; // the innermost clickable element decides
        act();
      });
      el.addEventListener("keydown", (event) => {
        if (event.target !== el) return;
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          act();
        }
      });
    }
  }

  renderScores() {
    const view = this.view;
    const panel = $("#scores-panel", this.root);
    const scores = view.scores;
    panel.hidden = !scores;
    if (!scores) return;
    const faction = (this.result && this.result.faction) || view.winning_faction || null;
    $("#winning-faction", this.root).textContent = faction ? t("ui.hl.winning_faction", { faction: factionName(faction) }) : t("ui.hl.no_faction");
    const body = $("#scores", this.root);
    body.replaceChildren();
    let winner = this.result ? this.result.winner : null;
    scores.forEach((row, seat) => {
      const rowSeat = row.seat ?? seat;
      if (row.winner === true) winner = rowSeat;
      body.append(
        h(
          "tr",
          { "data-seat": rowSeat },
          h("td", { text: seatLabel(this.names, rowSeat) + (rowSeat === this.seat ? ` (${t("ui.table.you")})` : "") }),
          h("td", { "data-leader": row.leader, text: `${leaderName(row.leader)} (${(row.factions || []).map(factionName).join(t("ui.list.sep"))})` }),
          h("td", { text: t(row.aligned ? "ui.hl.yes" : "ui.hl.no") }),
          h("td", { text: String(row.faction_heroes ?? "—") }),
          h("td", { text: String(row.total_heroes ?? "—") }),
        ),
      );
    });
    if (winner !== null && winner !== undefined) {
      const tr = body.querySelector(`tr[data-seat="${winner}"]`);
      if (tr) tr.firstChild.classList.add("win");
    }
    const banner = $("#result", this.root);
    banner.hidden = false;
    const winners = winner === null || winner === undefined ? [] : [winner];
    // A person whose seat a bot played on (they resigned, ran out of time or were away) did not win, whatever the bot reached.
    if (this.left && this.seat !== null) banner.textContent = leftText(this.left, this.seat, winners, (s) => seatLabel(this.names, s));
    else if (!winners.length) banner.textContent = t("ui.table.no_winner");
    else if (winner === this.seat) banner.textContent = t("ui.table.you_won");
    else banner.textContent = t("ui.table.winner", { name: seatLabel(this.names, winner) });
    $("#tiebreak", this.root).textContent = t("ui.hl.tiebreak", { how: t(`ui.hl.tiebreak.${tiebreakOf(scores, winner)}`) });
    const why = $("#end-why", this.root);
    // What a bot reached in the seat of a person who left is told as that seat's, not as "you".
    const ctx = this.left ? { ...this.events.ctx, seat: null } : this.events.ctx;
    if (why) why.replaceChildren(...(this.ending ? [hiddenEnding(this.ending, ctx)] : []));
  }

  renderLog() {
    if (this.narrated) return;
    const list = $("#log", this.root);
    list.replaceChildren();
    for (const entry of this.log) {
      list.append(h("li", { text: t("ui.hl.log.other", { name: seatLabel(this.names, entry.seat), move: moveLabel(entry.move, this.names) }) }));
    }
    list.scrollTop = list.scrollHeight;
  }
}

/** Which step of §5.3 decided: the engine's own word when given, else read from the numbers it reported. */
export function tiebreakOf(scores, winner) {
  const named = scores.find((row) => row.tiebreak || row.decided_by);
  if (named) {
    const word = String(named.tiebreak || named.decided_by);
    const known = { "only-aligned": "only", "most-faction-heroes": "most", "fewest-heroes": "fewest", "higher-leader-number": "rank" };
    if (known[word]) return known[word];
  }
  const aligned = scores.filter((row) => row.aligned);
  if (aligned.length === 0 || winner === null || winner === undefined) return "none";
  if (aligned.length === 1) return "only";
  const best = Math.max(...aligned.map((row) => row.faction_heroes));
  const top = aligned.filter((row) => row.faction_heroes === best);
  if (top.length === 1) return "most";
  const fewest = Math.min(...top.map((row) => row.total_heroes));
  return top.filter((row) => row.total_heroes === fewest).length === 1 ? "fewest" : "rank";
}
