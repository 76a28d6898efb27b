// Turns the legal move strings the server sends (leaders.md §5.1) into click sequences. No rule lives here:
// every clickable cell comes from a listed move, and the move played is always one of the listed strings.
//
// A move becomes a list of click tokens:
//   "c3-c4-d4"        → ["c3", "c4", "d4"]              (paths: basic, Vizier, Rider, Acrobat, Royal Guard, …)
//   "c3:c4>c5"        → ["c3", "c4", "c5"]              (Bruiser, Claw pull, Manipulator, Brewmaster)
//   "c3:c6"           → ["c3", "c6"]                    (Illusionist swap)
//   "b1-b2,a1-a2"     → ["b1", "b2", "a1", "a2"]        (Hermit & Cub: both paths, first mover first)
//   "+RI@a1"          → ["+RI", "a1"]; "+HE@a1,b1" → ["+HE", "a1", "b1"]
//   "end"             → ["end"]
//   "ban NE"          → ["ban NE"]                      (Strategist mode: one click on the card)

/** Click tokens of one move string. */
export function tokens(move) {
  if (move === "end" || move.startsWith("ban ")) return [move];
  if (move.startsWith("+")) {
    const [code, cells] = move.slice(1).split("@");
    return [`+${code}`, ...cells.split(",")];
  }
  if (move.includes(":")) {
    const [from, rest] = move.split(":");
    const [target, dest] = rest.split(">");
    return dest ? [from, target, dest] : [from, target];
  }
  return move.split(",").flatMap((path) => path.split("-"));
}

/** True when `prefix` is a prefix of `list`. */
function startsWith(list, prefix) {
  if (prefix.length > list.length) return false;
  return prefix.every((item, i) => list[i] === item);
}

/**
 * The choices after the clicks made so far.
 * @param {string[]} legal the legal move strings
 * @param {string[]} clicks tokens clicked so far
 * @returns {{next: Set<string>, complete: string|null, candidates: string[]}}
 *   next: tokens that continue some legal move; complete: the legal move the clicks spell exactly (if any).
 */
export function choices(legal, clicks) {
  const next = new Set();
  let complete = null;
  const candidates = [];
  for (const move of legal) {
    const toks = tokens(move);
    if (!startsWith(toks, clicks)) continue;
    candidates.push(move);
    if (toks.length === clicks.length) {
      if (complete === null) complete = move;
    } else {
      next.add(toks[clicks.length]);
    }
  }
  return { next, complete, candidates };
}

/** Cells named in a move (for highlighting the last move on the board). */
export function cellsOf(move) {
  if (!move || move === "end" || move.startsWith("ban ")) return [];
  return tokens(move).filter((tok) => /^[a-g][1-7]$/.test(tok));
}
