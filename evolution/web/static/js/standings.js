// A tournament's standings table (the "standings" of TournamentRecord.to_json()).

import { h, nameOf, ordinal } from "./dom.js";

export function standingsTable(tournament, { compact = false } = {}) {
  const swiss = tournament.format === "swiss";
  const winners = new Set(tournament.winners);
  const failed = new Map(tournament.failures.map((failure) => [failure.name, failure]));
  const head = ["#", "Player", "Points"];
  if (swiss) head.push("Rating μ ± σ");
  if (!compact) head.push("");
  return h("div", { class: "scroll" }, h("table", { class: compact ? "grid compact" : "grid" },
    h("thead", {}, h("tr", {}, head.map((title) => h("th", {}, title)))),
    h("tbody", {}, tournament.standings.map((row) => {
      const failure = failed.get(row.name);
      return h("tr", { class: winners.has(row.name) ? "winner" : failure ? "out" : "" },
        h("td", {}, row.rank ? ordinal(row.rank) : "—"),
        h("td", {}, nameOf(row.name), winners.has(row.name) ? h("span", { class: "trophy", title: "winner" }, " ★") : null),
        h("td", {}, row.points),
        swiss ? h("td", {}, row.rating === null ? "—" : `${row.rating.toFixed(2)} ± ${row.rating_sigma.toFixed(2)}`) : null,
        compact ? null : h("td", { class: "muted" }, failure ? `failed in round ${failure.round}` : winners.has(row.name) ? "winner" : ""));
    }))));
}
