// What a tournament's page says before its tables: the podium once it is over, where a running one stands
// (the round being played, how many of its games are over, what the next round waits for), and its
// statistics (games, their mean length in turns and in time, removals, failures).

import { h, nameOf, ordinal, plural } from "./dom.js";

// The first three places of the standings (equal ranks share a step), drawn 2nd, 1st, 3rd.
export function podium(tournament) {
  if (tournament.status !== "finished") return null;
  const steps = [1, 2, 3].map((rank) => tournament.standings.filter((row) => row.rank === rank));
  if (!steps[0].length) return null;
  const step = (rows, rank) => rows.length ? h("li", { class: `step step-${rank}` },
    h("span", { class: "step-place" }, ordinal(rank)),
    h("span", { class: "step-names" }, rows.map((row) => nameOf(row.name))),
    h("span", { class: "step-block", "aria-hidden": "true" })) : null;
  return h("ol", { class: "podium", "aria-label": "podium" }, step(steps[1], 2), step(steps[0], 1), step(steps[2], 3));
}

function minutes(milliseconds) {
  const seconds = Math.round(milliseconds / 1000);
  return seconds < 120 ? plural(seconds, "second") : `${(seconds / 60).toFixed(1)} minutes`;
}

// The rounds its settings plan (a Swiss's), else null (a knockout's depend on who goes on).
function planned(tournament) {
  return tournament.format === "swiss" ? tournament.settings?.rounds ?? null : null;
}

// A running tournament: the round being played, its games over, what the next round waits for. The host
// starts a round as soon as the one before is over: no clock between rounds, so the page says what it
// waits for instead.
export function progress(tournament) {
  if (tournament.status !== "running") return null;
  const round = Math.max(1, ...tournament.game_summaries.map((game) => game.tournament?.round ?? 1));
  const games = tournament.game_summaries.filter((game) => (game.tournament?.round ?? 1) === round);
  const over = games.filter((game) => game.status !== "running").length;
  const of = planned(tournament);
  const left = games.length - over;
  const now = left ? `Round ${round}${of ? ` of ${of}` : ""} is being played: ${over} of ${plural(games.length, "game")} over.`
    : `Round ${round}${of ? ` of ${of}` : ""} is over (${plural(games.length, "game")}).`;
  const next = of && round >= of ? (left ? " The tournament ends when they are." : " The tournament ends now.")
    : left ? ` Round ${round + 1} begins as soon as ${left === 1 ? "the last one ends" : `the ${left} left are over`}`
      + " (the host waits for no clock between rounds)."
      : ` Round ${round + 1} begins as soon as the host has seated its tables (it waits for no clock between rounds;`
      + " after a restart, for its players to come back).";
  return h("p", { class: "progress" }, h("span", { class: "pill running" }, "live"), " ", now, next);
}

// Games (finished, aborted, running), their mean length in turns and in time, removals and failures.
export function statistics(tournament) {
  const games = tournament.game_summaries;
  const finished = games.filter((game) => game.status === "finished" && game.outcome === "finished");
  const aborted = games.filter((game) => game.status === "finished" && game.outcome !== "finished").length;
  const running = games.length - finished.length - aborted;
  const mean = (values) => values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  const turns = mean(finished.map((game) => game.turns).filter((turns) => typeof turns === "number"));
  const times = finished.map((game) => Date.parse(game.ended_at) - Date.parse(game.started_at)).filter(Number.isFinite);
  const time = mean(times);
  const removals = games.reduce((count, game) => count + game.players.filter((player) => player.removed).length, 0);
  const fact = (value, label, title) => h("div", { class: "stat", title }, h("dt", {}, label), h("dd", {}, value));
  return h("dl", { class: "stats" },
    fact(String(finished.length), "games played", [aborted ? `${aborted} aborted by the host` : null,
      running ? `${running} running` : null].filter(Boolean).join(", ") || null),
    aborted ? fact(String(aborted), "aborted") : null,
    running ? fact(String(running), "running") : null,
    fact(turns === null ? "—" : turns.toFixed(1), "turns a game (mean)"),
    fact(time === null ? "—" : minutes(time), "a game lasts (mean)"),
    fact(String(removals), "removals", "players removed from its games"),
    fact(String(tournament.failures.length), "failures", "entrants out of the tournament for good"));
}
