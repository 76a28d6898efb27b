// The move list a table shows, kept by ply: moves pushed live and the record fetched on (re)connect are
// merged, so that a move pushed while the fetch is in flight is not lost when the older record arrives.

/**
 * The list up to `ply`, by ply (entry i is the move that made ply i + 1; a ply neither side knows stays a
 * hole until a later refresh). The fetched record is the truth for the plies it covers; the entries known
 * beyond it (pushed while it was fetched) are kept.
 * @param {Array} fetched the record's moves, from ply 1 (may have holes)
 * @param {Array} known what the page holds (may have holes)
 * @param {number} ply the page's current ply
 */
export function mergeByPly(fetched, known, ply) {
  const out = [];
  for (let i = 0; i < ply; i += 1) {
    const record = i < fetched.length ? fetched[i] : undefined;
    out.push(record !== undefined && record !== null ? record : known[i]);
  }
  while (out.length && (out[out.length - 1] === undefined || out[out.length - 1] === null)) out.pop();
  return out;
}

/** `list` with `entry` as the move of ply `ply`, cut there (a takeback shortens it). */
export function putAt(list, ply, entry) {
  const out = list.slice(0, ply - 1);
  while (out.length < ply - 1) out.push(undefined);
  out.push(entry);
  return out;
}
