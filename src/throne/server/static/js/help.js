// Help on any piece or card of a table, in a dialog that works on phones. A tap (or click) on a piece, a
// market card, a hand card or a party card opens its help when that tap does nothing else; when it would act
// (a piece that can move, a card that can be picked), the "Help" toggle or a long press (context menu) opens
// the help instead. The texts are the catalogue's; the Leaders diagrams are the rules page's own SVG (drawn by
// the server from the engine), fetched once. Nothing here knows a rule.
import { t, has, cardName, pieceName } from "./i18n.js";
import { pieceIcon } from "./leaders-pieces.js";

const HELPABLE = "[data-piece], .market-card[data-code], .hl-card[data-card]";
const ACTIONABLE = ".clickable, .pickable, button:not(.market-card)";

let dialog = null;
let helpMode = false;
let diagrams = null;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function gameData() {
  const el = document.getElementById("hl-data");
  try {
    return el ? JSON.parse(el.textContent) : {};
  } catch {
    return {};
  }
}

/** The rules page's champions by piece code ({svg, kind}: its diagram and kind of ability), loaded once. */
async function leadersDiagrams() {
  if (diagrams) return diagrams;
  diagrams = new Map();
  try {
    const response = await fetch("/rules/leaders", { credentials: "same-origin" });
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const section of doc.querySelectorAll("section.champion[data-piece]")) {
      const svg = section.querySelector("svg");
      const kind = section.querySelector(".kind");
      diagrams.set(section.dataset.piece, {
        svg: svg ? document.importNode(svg, true) : null,
        kind: kind ? kind.textContent : "",
      });
    }
  } catch {
    // the help still shows the texts without a diagram
  }
  return diagrams;
}

function ensureDialog() {
  if (dialog) return dialog;
  dialog = h("dialog", { class: "help-dialog", id: "help-dialog", "aria-labelledby": "help-title" });
  document.body.append(dialog);
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close(); // a tap on the backdrop closes it
  });
  return dialog;
}

function show(title, body, rulesHref) {
  const box = ensureDialog();
  const close = h("button", { type: "button", id: "help-close", class: "secondary", text: t("ui.help.close") });
  close.addEventListener("click", () => box.close());
  box.replaceChildren(
    h("h2", { id: "help-title", text: title }),
    ...body,
    h("p", { class: "actions" }, h("a", { href: rulesHref, id: "help-rules", text: t("ui.help.rules") }), close),
  );
  if (!box.open) box.showModal();
  close.focus();
}

async function pieceHelp(code, side) {
  const name = code === "HE" || code === "CU" ? `${pieceName("HE")} & ${pieceName("CU")}` : pieceName(code);
  const sideName = side === null ? "" : `${t(side === 0 ? "ui.leaders.south" : "ui.leaders.north")} `;
  const card = code === "CU" ? "HE" : code;
  const known = (await leadersDiagrams()).get(card) || { svg: null, kind: "" };
  const diagram = known.svg ? known.svg.cloneNode(true) : null;
  const symbols = (code === "HE" || code === "CU" ? ["HE", "CU"] : [code]).map((c) => pieceIcon(c, side, 44));
  const body = [
    h("p", { class: "help-symbol" }, ...symbols),
    known.kind ? h("p", { class: "help-kind", text: known.kind }) : null,
    h("p", { class: "help-text", text: has(`leaders.piece.${code}.text`) ? t(`leaders.piece.${code}.text`) : "" }),
    code === "HE" ? h("p", { text: t("leaders.piece.CU.text") }) : null,
    diagram,
  ].filter(Boolean);
  show(`${sideName}${name}`, body, `/rules/leaders#piece-${card}`);
}

function cardHelp(id) {
  if (!id) {
    show(t("ui.hl.face_down"), [h("p", { text: t("rules.hl.zones") })], "/rules/hidden-leaders#setup");
    return;
  }
  const data = gameData();
  const faction = id === "deceased-emperor" ? null : (data.cards || {})[id];
  const factions = [faction ? t(`hl.faction.${faction}`) : null];
  if ((data.guardians || []).includes(id) && faction !== "guardians") factions.push(t("hl.faction.guardians"));
  const markers = t(`hl.card.${id}.markers`);
  const text = t(`hl.card.${id}.text`);
  const body = [
    h("p", { class: "help-kind", text: factions.filter(Boolean).join(" · ") || null }),
    markers !== "—" ? h("p", { class: "help-markers", text: markers }) : null,
    text !== "—" ? h("p", { class: "help-text", text }) : null,
  ].filter(Boolean);
  show(cardName(id), body, `/rules/hidden-leaders#card-${id}`);
}

/** Open the help of the piece or card `el` (an element matching HELPABLE). */
export function openHelp(el) {
  if (el.matches("[data-piece]")) {
    const side = el.dataset.side === undefined ? null : Number(el.dataset.side);
    return pieceHelp(el.dataset.piece, side);
  }
  if (el.matches(".market-card[data-code]")) return pieceHelp(el.dataset.code, null);
  return cardHelp(el.dataset.card);
}

/** The piece or card under `target`: a board cell stands for its piece (pieces let taps through to cells). */
function helpable(target) {
  const el = target.closest(HELPABLE);
  if (el) return el;
  const cell = target.closest(".cell");
  return cell ? cell.querySelector("[data-piece]") : null;
}

/** The element whose help a click on `target` asks for, or null when the click belongs to the game. */
function helpTarget(target, force) {
  const el = helpable(target);
  if (!el) return null;
  if (force) return el;
  // A piece on a cell that reacts to clicks, a card that can be picked or played: the click is a move; a piece
  // of yours that cannot act on your turn ("explain") answers with the reason instead.
  const cell = el.closest(".cell");
  if (cell && (cell.classList.contains("clickable") || cell.classList.contains("explain"))) return null;
  if (target.closest(ACTIONABLE) && !target.closest("[aria-disabled='true']")) return null;
  if (el.classList.contains("pickable") || el.classList.contains("clickable")) return null;
  return el;
}

function setMode(on, toggle) {
  helpMode = on;
  toggle.setAttribute("aria-pressed", String(on));
  toggle.title = on ? t("ui.help.mode") : "";
  document.body.classList.toggle("help-mode", on);
}

/** Install the help on a table page: the toggle (rendered by the server), the click and long-press handlers. */
export function installHelp(root) {
  const toggle = root.querySelector("#help-toggle");
  if (toggle) toggle.addEventListener("click", () => setMode(!helpMode, toggle));
  root.addEventListener("click", (event) => {
    const el = helpTarget(event.target, helpMode);
    if (!el) return;
    event.preventDefault();
    event.stopPropagation();
    if (toggle) setMode(false, toggle);
    openHelp(el);
  }, true);
  root.addEventListener("contextmenu", (event) => {
    const el = helpable(event.target);
    if (!el) return;
    event.preventDefault();
    openHelp(el);
  });
}

const tableRoot = document.getElementById("table-root") || document.getElementById("replay-root");
if (tableRoot) installHelp(tableRoot);
