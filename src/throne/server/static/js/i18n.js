// Interface texts for the scripts: the catalogue of the page's language, served by the server from
// throne.i18n (route /i18n/<lang>.json) — the only copy of the texts.

let messages = {};
let language = document.documentElement.lang || "en";

/** Load the catalogue of the page's language once; every module awaits this before drawing. */
export async function loadCatalog(lang = language) {
  language = lang;
  const response = await fetch(`/i18n/${encodeURIComponent(lang)}.json`, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`catalogue ${lang}: HTTP ${response.status}`);
  messages = await response.json();
  return messages;
}

/** The text of `key` with `{name}` placeholders filled (numbers written in the page's language); the key
 * itself when it is unknown. */
export function t(key, params = {}) {
  const text = Object.prototype.hasOwnProperty.call(messages, key) ? messages[key] : key;
  return text.replace(/\{([a-z_]+)\}/g, (whole, name) => (name in params ? shown(params[name]) : whole));
}

function shown(value) {
  return typeof value === "number" ? number(value) : String(value);
}

/** Whether the catalogue has `key`. */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(messages, key);
}

export function lang() {
  return language;
}

/** Localised name of a Hidden Leaders card id. */
export function cardName(id) {
  return has(`hl.card.${id}.name`) ? t(`hl.card.${id}.name`) : id;
}

/** Localised name of a Leaders piece code. */
export function pieceName(code) {
  return has(`leaders.piece.${code}.name`) ? t(`leaders.piece.${code}.name`) : code;
}

/** Localised name of a bot level (the server's own name when the catalogue has none). */
export function botName(level) {
  return has(`ui.bot.${level}`) ? t(`ui.bot.${level}`) : level;
}

const formats = new Map();

/** A number written in the page's language (Persian digits and separators in fa); thousands grouped from five
 * digits on (ratings and table numbers stay "1500", not "1,500"). */
export function number(n, options = {}) {
  const key = `${language} ${JSON.stringify(options)}`;
  if (!formats.has(key)) formats.set(key, new Intl.NumberFormat(language, { useGrouping: "min2", ...options }));
  return formats.get(key).format(n);
}

/** A list written in the page's language ("a, b and c"; Persian "،" and "و"). */
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(language, { style: "long", type }).format(items.map(String));
}

/** Text isolated from its surroundings' direction inside a plain string (what <bdi> does for an element). */
export function isolate(text) {
  return `\u2068${text}\u2069`;
}

/** A <bdi> element holding `text` (a person's name, notation): its direction never mixes with the line's. */
export function bdi(text, className = "") {
  const el = document.createElement("bdi");
  if (className) el.className = className;
  el.textContent = String(text);
  return el;
}

/** The server's name for a guest who gave none (throne.server.auth.DEFAULT_GUEST_NAME). */
export const DEFAULT_GUEST_NAME = "Guest";

/** A person's name as shown: the default guest name in the page's language, any chosen name as written. */
export function personName(name, registered = false) {
  return name === DEFAULT_GUEST_NAME && !registered ? t("ui.lobby.guest") : name;
}

/** A date and time in the page's language and calendar digits. */
export function dateTime(value) {
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(value));
}
