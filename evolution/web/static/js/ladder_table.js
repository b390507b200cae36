// The ladder's standings table (the rows of /api/ladder), on the overview and the ladder's page:
// each bot's rank, rating μ ± σ (a provisional one marked "?"), μ − 3σ, games, wins, removals.

import { h, host, nameOf, ordinal, plural, ratingText } from "./dom.js";

// The line under a leaderboard that says what "?" means and where those rows stand.
export function provisionalNote() {
  return [h("abbr", { class: "provisional" }, "?"),
    ` marks a provisional rating (fewer than ${plural(host.established, "game")} played to the end), ranked after`
    + " every established one; a bot removed from every game it played comes last"];
}

export function ladderTable(rows) {
  return h("div", { class: "scroll" }, h("table", { class: "grid ladder-table" },
    h("thead", {}, h("tr", {}, ["#", "Bot", "Rating μ ± σ", "μ − 3σ", "Games", "Wins", "Removals"].map((head) => h("th", {}, head)))),
    h("tbody", {}, rows.map((row) => h("tr", { class: row.provisional ? "provisional" : "" },
      h("td", {}, ordinal(row.rank)),
      h("td", {}, nameOf(row.name)),
      h("td", {}, ratingText(row)),
      h("td", {}, (row.rating - 3 * row.rating_sigma).toFixed(2)),
      h("td", {}, row.games), h("td", {}, row.wins), h("td", {}, row.removals))))));
}
