// What every game's page shows besides its table: the lines said about a game, and its removals.
// A line (each game's narrator, e.g. evolution/games/evolution/web/tables.py) is
// {turn, step, seat or null, text}; a removal {seat, name, turn, step, reason}. `words` are the
// game's (drawings.js): how its turns and steps read.

import { clock, h, inSentence, nameOf, nameClass, shown } from "./dom.js";
import { drawingOf, wordsOf } from "./drawings.js";

// When a player was removed, in words: "in turn 3 (feeding)".
export function removedWhen(removal, given) {
  const words = wordsOf(given);
  return `in ${inSentence(words.turn(removal.turn))} (${words.step(removal.step)})`;
}

export function removals(removed, words) {
  if (!removed.length) return null;
  return h(
    "ul",
    { class: "removals" },
    removed.map((r) => h("li", {}, nameOf(r.name), ` removed ${removedWhen(r, words)}: `, h("span", { class: "reason" }, shown(r.reason)))),
  );
}

// Removals across games (a ladder's, a player's: /api/ladder/removals, /api/players/NAME), newest first:
// the game, who (unless names: false), when in the game in its words, and the exact reason.
export async function removalsAcross(rows, { names = true } = {}) {
  const kinds = [...new Set(rows.map((row) => row.game))];
  const words = new Map(await Promise.all(kinds.map(async (kind) => [kind, (await drawingOf({ game: kind })).words])));
  return h("ul", { class: "removals across" }, rows.map((row) => h("li", {},
    h("a", { href: `/games/${row.id}` }, `Game ${row.id}`), " · ",
    names ? [nameOf(row.name), " "] : null,
    `removed ${removedWhen(row, words.get(row.game))}: `, h("span", { class: "reason" }, shown(row.reason)),
    h("span", { class: "muted" }, ` · ${clock(row.ended_at)}`))));
}

// What the players answered, turn markers, removals; newest first unless told. A line is in its bot's colour
// (nameClass), unless its game gives seats colours of their own (Fish's penguins: its .seat-N rules).
export function lines(list, names, { newestFirst = true, words: given } = {}) {
  const words = wordsOf(given);
  const items = (newestFirst ? [...list].reverse() : list).map((line) =>
    h("li", { class: line.seat ? `line ${nameClass(names[line.seat - 1] ?? `seat ${line.seat}`)} seat-${line.seat}` : "line marker" },
      h("span", { class: "when" }, words.when(line.turn)),
      line.seat ? nameOf(names[line.seat - 1] ?? `seat ${line.seat}`) : null,
      line.seat ? " " : null,
      h("span", { class: "what" }, line.text)));
  return items.length ? h("ol", { class: "lines" }, items) : h("p", { class: "note" }, "Nothing yet.");
}
