// The page of one player (/players/NAME, ?before=ID for older games): its games in the store,
// newest first, a page at a time (place, score, game, tournament, its removal with the reason), its
// newest removals, its standing in the ladder, and its rating over time (ladder and Swiss) as charts.

import { clock, fill, h, hostName, manyHosts, nameOf, note, ordinal, pageTitle, playerPath, plural, ratingText, section, shown } from "./dom.js";
import { ratingChart } from "./chart.js";
import { drawingOf } from "./drawings.js";
import { removalsAcross, removedWhen } from "./lines.js";
import { getJSON, status } from "./live.js";

const main = document.getElementById("main");
const encoded = location.pathname.split("/")[2] ?? ""; // the name as the address has it, percent-encoded
const before = new URLSearchParams(location.search).get("before");

function where(row) {
  if (row.tournament) {
    return h("a", { href: `/tournaments/${row.tournament.id}` }, `Tournament ${row.tournament.id}, round ${row.tournament.round}`);
  }
  return row.ladder ? h("a", { href: "/ladder" }, "Ladder") : h("span", { class: "muted" }, "single game");
}

// "=3rd of 5", its tooltip naming how the game's own ranking split the tie
function placeCell(row) {
  if (row.place === null) return h("td", { class: "muted" }, row.removed ? "removed" : "—");
  const split = row.tied && row.tie_break && row.rank !== row.place
    ? ` (the game ranks it ${ordinal(row.rank)} by ${row.tie_break})` : "";
  return h("td", { title: row.tied ? `a place shared by equal scores${split}` : null },
    `${row.tied ? "=" : ""}${ordinal(row.place)}`, h("span", { class: "muted" }, ` of ${row.players}`));
}

function gameRow(row, words, points, hosts) {
  return h("tr", { class: row.removed ? "out" : row.place === 1 ? "winner" : "" },
    h("td", {}, h("a", { href: `/games/${row.id}` }, `Game ${row.id}`),
      row.outcome !== "finished" ? h("span", { class: "pill aborted" }, "aborted") : null),
    h("td", { class: "muted" }, clock(row.ended_at)),
    hosts ? h("td", {}, row.host === null ? "" : hostName(row.host)) : null,
    h("td", {}, where(row)),
    placeCell(row),
    h("td", {}, row.score === null ? "—" : words.score(row.score)),
    points ? h("td", {}, row.points === undefined ? "" : plural(row.points, "pt", "pts")) : null,
    h("td", { class: "reason wrap" }, row.removed ? `removed ${removedWhen(row.removed, words)}: ${shown(row.removed.reason)}` : ""));
}

async function games(data) {
  const kinds = [...new Set(data.games.map((row) => row.game))];
  const words = new Map(await Promise.all(kinds.map(async (kind) => [kind, (await drawingOf({ game: kind })).words])));
  const points = data.games.some((row) => row.points !== undefined); // Swiss games give tournament points
  const hosts = manyHosts(data.games); // played on several hosts of a shared store: each row says which
  const paging = h("p", { class: "note paging" },
    before ? h("a", { href: playerPath(data.name) }, "← newest games") : null,
    before && data.next ? " · " : null,
    data.next ? h("a", { href: `${playerPath(data.name)}?before=${data.next}` }, "older games →") : null);
  return section(before ? "Older games" : "Games, newest first",
    data.games.length ? h("div", { class: "scroll" }, h("table", { class: "grid player-games" },
      h("thead", {}, h("tr", {}, ["Game", "Ended", hosts ? "Host" : null, "Where", "Place", "Score", points ? "Points" : null, "Removed"]
        .filter(Boolean).map((head) => h("th", {}, head)))),
      h("tbody", {}, data.games.map((row) => gameRow(row, words.get(row.game), points, hosts))))) : note("No game here."),
    paging);
}

function ladderStanding(data) {
  const row = data.ladder;
  if (!row) return null;
  return h("p", { class: "standing" }, h("a", { href: "/ladder" }, "Ladder"), `: ${ordinal(row.rank)} · rating `,
    ratingText(row), ` · μ − 3σ ${(row.rating - 3 * row.rating_sigma).toFixed(2)} · ${plural(row.games, "game")},`
    + ` ${plural(row.wins, "win")}, ${plural(row.removals, "removal")}`);
}

function charts(data) {
  const { ladder, swiss } = data.ratings;
  const drawn = [];
  if (ladder.length) {
    drawn.push(ratingChart(ladder, {
      label: (point) => `after game ${point.id}`,
      ends: [`game ${ladder[0].id}`, `game ${ladder.at(-1).id}`],
      caption: "Ladder: μ (the line) and μ ± σ (the band) after its ladder games"
        + (ladder.length > 1 ? `, ${ladder.length} points spread over them all.` : "."),
    }));
  }
  if (swiss.length) {
    drawn.push(ratingChart(swiss, {
      label: (point) => `tournament ${point.tournament}${point.rank ? `, ${ordinal(point.rank)}` : ""}`,
      ends: [`tournament ${swiss[0].tournament}`, `tournament ${swiss.at(-1).tournament}`],
      caption: "Swiss: μ and μ ± σ at the end of each Swiss tournament (each starts again at 25 ± 8.33).",
    }));
  }
  const standing = ladderStanding(data);
  if (drawn.length) return section("Rating over time", standing, drawn);
  return standing && section("Rating", standing);
}

async function render(data) {
  pageTitle(shown(data.name));
  status.set("done");
  const some = data.counts.removals > data.removals.length ? ` ${data.removals.length} of ${data.counts.removals}` : "";
  const removals = data.removals.length
    ? section("Removals", h("p", { class: "note" }, `The newest${some}, with their exact reasons.`),
      await removalsAcross(data.removals, { names: false }))
    : null;
  fill(main,
    h("div", { class: "page-head" },
      h("h1", {}, nameOf(data.name, { link: false, class: "name player-title" })),
      h("span", { class: "muted" }, `${plural(data.counts.games, "game")} stored · ${plural(data.counts.removals, "removal")}`)),
    charts(data),
    await games(data),
    removals);
}

async function start() {
  const query = before && /^\d+$/.test(before) ? `?before=${before}` : "";
  try {
    await render(await getJSON(`/api/players/${encoded}${query}`));
  } catch (error) {
    fill(main, h("h1", {}, "Player"), note(error.message, "warning"));
  }
}

start();
