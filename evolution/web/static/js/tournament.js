// The page of one tournament (/tournaments/ID): its game and format, its podium once over, where it stands
// while it runs, its statistics (tournament_summary.js), the bracket (knockout) or the round-by-round table
// and each round's pairings with their results (Swiss), the standings with ratings (to download as CSV or JSON), failures
// with their reasons, the host that runs it; live while it runs.

import { clock, fill, h, hostName, nameOf, note, pageTitle, placeText, plural, runningPill, section, shown } from "./dom.js";
import { drawingOf } from "./drawings.js";
import { follow, pageSubject, status } from "./live.js";
import { standingsDownloads, standingsTable } from "./standings.js";
import { podium, progress, statistics } from "./tournament_summary.js";

const main = document.getElementById("main");

// Games by round, each round's games in id order (running games included).
function rounds(tournament) {
  const byRound = new Map();
  for (const game of tournament.game_summaries) {
    const round = game.tournament?.round ?? 0;
    if (!byRound.has(round)) byRound.set(round, []);
    byRound.get(round).push(game);
  }
  return [...byRound.entries()].sort(([a], [b]) => a - b);
}


// A knockout round's title: a round after one whose summary says a play-off follows is a play-off;
// the last other round is the final, once the tournament is over and it decided something.
function roundTitles(tournament, byRound, finished, winners) {
  const summaries = new Map(tournament.rounds.map((round) => [round.round, round.summary]));
  const playoff = byRound.map(([round]) => /play-off \d+ follows/.test(summaries.get(round - 1) ?? ""));
  const final = playoff.lastIndexOf(false);
  return byRound.map(([round], i) => playoff[i] ? `Play-off (round ${round})`
    : i === final && finished && (winners.size || i < byRound.length - 1) ? "Final" : `Round ${round}`);
}

// A column per round, each heading over its games; in each game its players best first with their score.
// mark(player): a knockout's ✓ for who went on (an array: its class, its mark, its label), a Swiss's place
// and tournament points.
function roundColumns(byRound, titles, mark, marks = "mark") {
  return h("div", { class: "bracket" }, byRound.map(([, games], i) => h("div", { class: "round" },
    h("h3", {}, titles[i]),
    h("div", { class: "round-games" }, games.map((game) => h("div", { class: `bracket-game ${game.status}` },
      h("div", { class: "bracket-title" },
        h("a", { class: "card-link", href: `/games/${game.id}` }, `Game ${game.id}`),
        game.status === "running" ? runningPill(game) : null),
      h("ol", {}, [...game.players].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99)).map((player) => {
        const [kind, sign, label] = mark(player, game, i);
        return h("li", { class: kind || (player.removed ? "out" : "") },
          h("span", { class: marks, title: label || null }, sign),
          nameOf(player.name),
          h("span", { class: "score" }, player.removed ? "removed" : player.score ?? ""));
      }))))))));
}

// Knockout: a column per round; in each game, who advanced (played in the next round, or won).
function bracket(tournament) {
  const byRound = rounds(tournament);
  const winners = new Set(tournament.winners);
  const finished = tournament.status !== "running";
  const titles = roundTitles(tournament, byRound, finished, winners);
  const advanced = byRound.map((_, i) => {
    const next = byRound[i + 1];
    return next ? new Set(next[1].flatMap((game) => game.players.map((p) => p.name))) : finished ? winners : new Set();
  });
  const columns = roundColumns(byRound, titles, (player, game, i) => advanced[i].has(player.name)
    ? ["advanced", "✓", "advanced"] : ["", "", ""]);
  return section("Bracket",
    h("p", { class: "note" }, "✓ marks who went on to the next round (a play-off's fillers too, whose result there does not count) or won."),
    byRound.length ? columns : note("No round has been played yet."));
}

// Swiss: each round's tables (who played whom) with their results in one view: place and tournament points.
function pairings(tournament) {
  const byRound = rounds(tournament);
  const titles = byRound.map(([round]) => `Round ${round}`);
  const columns = roundColumns(byRound, titles, (player, game) => [
    game.status === "running" ? "" : player.place === 1 ? "advanced" : "",
    game.status === "running" ? "" : placeText(player, game.players),
    player.points === undefined ? "" : plural(player.points, "tournament point")], "mark place-mark");
  return section("Pairings and results",
    h("p", { class: "note" }, "Each round's games: who played whom, each player's place (= shared by equal scores) and score."),
    byRound.length ? columns : note("No round has been played yet."));
}

// A round table cell's tooltip: the game, and how a shared place came about.
function placeTitle(game, player) {
  const tied = game.players.filter((other) => other.place === player.place && player.place);
  if (tied.length < 2) return `game ${game.id}`;
  return `game ${game.id}: ${tied.length} players scored ${player.score} and share the place`
    + (game.tie_break ? ` (the game's own ranking splits them by ${game.tie_break})` : "");
}

// Swiss: a row per player, its points (the total, first: never scrolled out of sight), then a column per round:
// its place (equal scores share one, marked =) and points
// in that round's game.
function roundTable(tournament) {
  const byRound = rounds(tournament);
  const cells = new Map();
  for (const [round, games] of byRound) {
    for (const game of games) {
      for (const player of game.players) cells.set(`${player.name}\u0000${round}`, { game, player });
    }
  }
  return section("Round by round",
    h("div", { class: "scroll" }, h("table", { class: "grid rounds" },
      h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Points"), byRound.map(([round]) => h("th", {}, `Round ${round}`)))),
      h("tbody", {}, tournament.standings.map((row) => h("tr", {},
        h("td", {}, nameOf(row.name)),
        h("td", {}, h("b", {}, row.points)),
        byRound.map(([round]) => {
          const cell = cells.get(`${row.name}\u0000${round}`);
          if (!cell) return h("td", { class: "muted" }, "—");
          const { game, player } = cell;
          return h("td", {}, h("a", { href: `/games/${game.id}`, title: placeTitle(game, player) },
            game.status === "running" ? "playing…" : placeText(player, game.players),
            player.points !== undefined ? h("span", { class: "muted" }, ` · ${plural(player.points, "pt", "pts")}`) : null));
        })))))));
}

function failures(tournament) {
  if (!tournament.failures.length) return null;
  return section("Failures",
    h("ul", { class: "removals" }, tournament.failures.map((failure) =>
      h("li", {}, nameOf(failure.name), ` failed in round ${failure.round}: `, h("span", { class: "reason" }, shown(failure.reason ?? ""))))));
}

async function render(tournament) {
  const { title } = await drawingOf(tournament);
  pageTitle(`Tournament ${tournament.id}`);
  const live = tournament.status === "running";
  if (!live) status.set("done");
  fill(main,
    h("div", { class: "page-head" },
      h("h1", {}, `Tournament ${tournament.id}`),
      h("span", { class: `pill ${tournament.status}` }, tournament.status),
      h("span", { class: "muted game-title" }, `${title ?? tournament.game} · ${tournament.format} · ${plural(tournament.rounds.length, "round")} · ${plural(tournament.standings.length, "player")}`),
      tournament.host ? h("span", { class: "when played-on" }, "on host ", hostName(tournament.host)) : null,
      h("span", { class: "when" }, `started ${clock(tournament.started_at)}`, tournament.ended_at ? ` · ended ${clock(tournament.ended_at)}` : "")),
    tournament.winners.length ? h("p", { class: "winners big" }, "★ ", tournament.winners.map((name, i) => [i ? ", " : "", nameOf(name)])) : null,
    progress(tournament),
    h("div", { class: "tournament-summary" }, podium(tournament), statistics(tournament)),
    (tournament.resumed ?? []).map((resumption) => h("p", { class: "muted resumed" },
      `Interrupted in round ${resumption.round}; resumed ${clock(resumption.at)} (twistd evolution --resume).`)),
    tournament.status === "interrupted" ? h("p", { class: "muted resumed" },
      `Interrupted: twistd evolution --resume ${tournament.id} goes on with it.`) : null,
    h("div", { class: "tournament-layout" },
      section("Standings", standingsTable(tournament), standingsDownloads(`/api/tournaments/${tournament.id}`)),
      tournament.format === "swiss" ? roundTable(tournament) : bracket(tournament),
      failures(tournament)),
    tournament.format === "swiss" ? pairings(tournament) : null);
}

async function start() {
  const tournament = await pageSubject(main, "Tournament", "/api/tournaments");
  if (tournament === null) return;
  await render(tournament);
  if (tournament.status === "running") {
    follow(`/api/tournaments/${tournament.id}/events`, {
      tournament: (data, source) => {
        render(data);
        if (data.status !== "running") source.close();
      },
      missing: (_, source) => source.close(),
    }, start);
  }
}

start();
