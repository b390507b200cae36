// A tournament's standings table (the "standings" of TournamentRecord.to_json()), with the line that
// says what ranks them ("ranked_by"). A Swiss shows the points and the rating (μ − 3σ splits equal
// points); a knockout the round each player reached and its place and score there: no points, which
// would not fall with the rank there.

import { h, nameOf, ordinal } from "./dom.js";

const dash = (value) => (value === null || value === undefined ? "—" : value);

const COLUMNS = {
  swiss: {
    head: ["Points", "Rating μ ± σ", "μ − 3σ"],
    cells: (row) => [
      row.points,
      row.rating === null ? "—" : `${row.rating.toFixed(2)} ± ${row.rating_sigma.toFixed(2)}`,
      row.ordinal === null || row.ordinal === undefined ? "—" : row.ordinal.toFixed(2),
    ],
  },
  knockout: {
    head: ["Reached", "Place", "Score"],
    cells: (row) => [row.reached ? `round ${row.reached}` : "—", row.place ? ordinal(row.place) : "—", dash(row.score)],
  },
};

// "Ranked by points, then the rating mu - 3 sigma; equal ranks are ties; failures last."
export function rankedBy(tournament) {
  const order = (tournament.ranked_by ?? []).join(", then ");
  return order ? `Ranked by ${order}; equal ranks are ties; failures last, unranked.` : "";
}

export function standingsTable(tournament, { compact = false } = {}) {
  const columns = COLUMNS[tournament.format] ?? COLUMNS.knockout;
  const winners = new Set(tournament.winners);
  const failed = new Map(tournament.failures.map((failure) => [failure.name, failure]));
  const head = ["#", "Player", ...columns.head];
  if (!compact) head.push("");
  const table = h("table", { class: compact ? "grid compact" : "grid", title: rankedBy(tournament) || null },
    h("thead", {}, h("tr", {}, head.map((title) => h("th", {}, title)))),
    h("tbody", {}, tournament.standings.map((row) => {
      const failure = failed.get(row.name);
      return h("tr", { class: winners.has(row.name) ? "winner" : failure ? "out" : "" },
        h("td", {}, row.rank ? ordinal(row.rank) : "—"),
        h("td", {}, nameOf(row.name), winners.has(row.name) ? h("span", { class: "trophy", title: "winner" }, " ★") : null),
        columns.cells(row).map((cell) => h("td", {}, cell)),
        compact ? null : h("td", { class: "muted" }, failure ? `failed in round ${failure.round}` : winners.has(row.name) ? "winner" : ""));
    })));
  return h("div", { class: "scroll" }, compact ? null : h("p", { class: "note ranked-by" }, rankedBy(tournament)), table);
}

// "Download the standings: CSV · JSON" (the host's /api/.../standings.csv and .json)
export function standingsDownloads(base) {
  return h("p", { class: "note downloads" }, "Download the standings: ",
    h("a", { href: `${base}/standings.csv`, download: true }, "CSV"), " · ",
    h("a", { href: `${base}/standings.json`, download: true }, "JSON"));
}
