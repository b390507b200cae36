// The ladder's standings table (the rows of /api/ladder), on the overview and the ladder's page:
// each bot's rank (with its change since the picture before, where told), rating μ ± σ (a provisional one
// marked "?"), μ − 3σ, games, wins, removals, and when it was last seen (its newest ladder game's end).

import { ago, clock, h, host, nameOf, ordinal, plural, ratingText } from "./dom.js";

// The line under a leaderboard that says what "?" means and where those rows stand.
export function provisionalNote() {
  return [h("abbr", { class: "provisional" }, "?"),
    ` marks a provisional rating (fewer than ${plural(host.established, "game")} played to the end), ranked after`
    + " every established one; a bot removed from every game it played comes last"];
}

// Rank changes: ▲2 (up two places), ▼1, "new"; nothing where the rank held. before: {name: rank} of the
// picture before, seen at `since` (an ISO time).
function move(row, before, since) {
  if (!before) return null;
  const was = before[row.name];
  const when = since ? ` since ${clock(since)}` : "";
  if (was === undefined) return h("span", { class: "move new", title: `new on the ladder${when}` }, "new");
  if (was === row.rank) return null;
  const up = was > row.rank;
  const places = plural(Math.abs(was - row.rank), "place");
  return h("span", { class: `move ${up ? "up" : "down"}`, title: `${up ? "up" : "down"} ${places}${when} (was ${ordinal(was)})`,
    "aria-label": `${up ? "up" : "down"} ${places}` }, `${up ? "▲" : "▼"}${Math.abs(was - row.rank)}`);
}

export function ladderTable(rows, { before = null, since = null, now = Date.now() } = {}) {
  return h("div", { class: "scroll" }, h("table", { class: "grid ladder-table" },
    h("thead", {}, h("tr", {}, ["#", "Bot", "Rating μ ± σ", "μ − 3σ", "Games", "Wins", "Removals", "Last seen"].map((head) => h("th", {}, head)))),
    h("tbody", {}, rows.map((row) => h("tr", { class: row.provisional ? "provisional" : "" },
      h("td", {}, ordinal(row.rank), move(row, before, since)),
      h("td", {}, nameOf(row.name)),
      h("td", {}, ratingText(row)),
      h("td", {}, (row.rating - 3 * row.rating_sigma).toFixed(2)),
      h("td", {}, row.games), h("td", {}, row.wins), h("td", {}, row.removals),
      h("td", { class: "muted" }, ago(row.last_seen, now)))))));
}
