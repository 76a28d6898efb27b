// The pending Hidden Leaders decision as words and click targets. Every option is a legal move string of the
// engine (hidden-leaders.md §7.1); this module only reads their grammar (games/hidden_leaders/moves.py) to
// say which card, pile or party on the table a move names. What the decision is for (`purpose`, the engine's
// continuation) and the marker results come from the engine's view; no rule is computed here.
import { t, has, cardName, number } from "./i18n.js";

/** "<card>: <what the choice is for>" — the prompt of a decision, printed once. */
export function promptText(decision) {
  if (!decision) return t("hl.decision.choice");
  const purpose = decision.purpose || decision.kind;
  let text;
  if (has(`hl.purpose.${purpose}`)) text = t(`hl.purpose.${purpose}`);
  else if (has(`hl.decision.${decision.kind}`)) text = t(`hl.decision.${decision.kind}`);
  else text = t("hl.decision.choice");
  if (!decision.card) return text.charAt(0).toUpperCase() + text.slice(1);
  return t("ui.hl.prompt_card", { card: cardName(decision.card), text });
}

/** The moves that choose the element carrying `data-pick` (a hand card is kept, discarded or played). */
export function movesFor(pick) {
  let m;
  if ((m = /^hand (\S+)$/.exec(pick))) return [pick, `discard ${m[1]}`, `play ${m[1]}`];
  if (/^tavern \S+$/.test(pick)) return [pick, `draw ${pick}`];
  if (pick === "harbor") return ["draw harbor"];
  return [pick];
}

/** Every move some element on the page stands for (`picks`: the `data-pick` values shown). */
export function pickedMoves(picks, legal) {
  const legalSet = new Set(legal);
  const out = new Map();
  for (const pick of picks) {
    const move = movesFor(pick).find((mv) => legalSet.has(mv));
    if (move) out.set(pick, move);
  }
  return out;
}

export function isMarkerMove(move) {
  return /^[A-Z][+-]\d+( [A-Z][+-]\d+)*$/.test(move);
}

/** `R+1 G-2` written with the marker names, a true minus sign and the page's digits. */
export function markerSteps(move) {
  return move
    .split(" ")
    .map((step) => {
      const name = step[0] === "R" ? t("ui.hl.red_short") : step[0] === "G" ? t("ui.hl.green_short") : step[0];
      return `${name} ${step[1] === "-" ? "−" : "+"}${number(Number(step.slice(2)))}`;
    })
    .join(t("ui.list.sep"));
}

/** The discard move of exactly the `selected` cards, when it is legal (order does not matter). */
export function discardMove(selected, legal) {
  if (!selected.length) return null;
  const want = [...selected].sort().join(" ");
  return legal.find((m) => m.startsWith("discard ") && m.slice(8).split(" ").sort().join(" ") === want) || null;
}

/** The setup move keeping `keep` face down and discarding `drop`, when legal. */
export function setupMove(keep, drop, legal) {
  const move = `keep ${keep} discard ${drop}`;
  return legal.includes(move) ? move : null;
}
