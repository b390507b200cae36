// What every game's page shows besides its table: the lines said about a game, and its removals.
// A line (each game's narrator, e.g. evolution/games/evolution/web/tables.py) is
// {turn, step, seat or null, text}; a removal {seat, name, turn, step, reason}.

import { h, nameOf, seatClass, shown, stepName } from "./dom.js";

export function removals(removed) {
  if (!removed.length) return null;
  return h(
    "ul",
    { class: "removals" },
    removed.map((r) => h("li", {}, nameOf(r.name), ` removed in turn ${r.turn} (${stepName(r.step)}): `, h("span", { class: "reason" }, shown(r.reason)))),
  );
}

// What the players answered, turn markers, removals; newest first unless told.
export function lines(list, names, { newestFirst = true } = {}) {
  const items = (newestFirst ? [...list].reverse() : list).map((line) =>
    h("li", { class: line.seat ? `line ${seatClass(line.seat)}` : "line marker" },
      h("span", { class: "when" }, `T${line.turn}`),
      line.seat ? nameOf(names[line.seat - 1] ?? `seat ${line.seat}`) : null,
      line.seat ? " " : null,
      h("span", { class: "what" }, line.text)));
  return items.length ? h("ol", { class: "lines" }, items) : h("p", { class: "note" }, "Nothing yet.");
}
