// The page of one player (/players/NAME, ?before=ID for older games): its games in the store,
// newest first, a page at a time (place, score, game, tournament, its removal with the reason), its
// newest removals, its standing in the ladder, its place and points in each tournament, each game's
// opponents, and its rating over time (ladder and Swiss) as charts.

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

// Whom it played in that game, in seat order, each with its place there (or "out").
function opponents(row) {
  return h("span", { class: "opponents" }, (row.opponents ?? []).map((other) => h("span", { class: "opponent" },
    nameOf(other.name), h("span", { class: "muted" }, other.place ? ` ${ordinal(other.place)}` : " out"))));
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
    h("td", { class: "opponents-cell" }, opponents(row)),
    points ? h("td", {}, row.points === undefined ? "" : String(row.points)) : null,
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
      h("thead", {}, h("tr", {}, ["Game", "Ended", hosts ? "Host" : null, "Where", "Place", "Score", "Opponents (their place)",
        points ? "Tournament points" : null, "Removed"]
        .filter(Boolean).map((head) => h("th", {}, head)))),
      h("tbody", {}, data.games.map((row) => gameRow(row, words.get(row.game), points, hosts))))) : note("No game here."),
    paging);
}

// Its place and points in each tournament it entered, newest first (points: a Swiss's; a knockout gives none).
function tournaments(data) {
  const rows = data.tournaments ?? [];
  if (!rows.length) return null;
  return section("Tournaments", h("div", { class: "scroll" }, h("table", { class: "grid player-tournaments" },
    h("thead", {}, h("tr", {}, ["Tournament", "Started", "Format", "Place", "Tournament points", ""].map((head) => h("th", {}, head)))),
    h("tbody", {}, rows.map((row) => h("tr", { class: row.winner ? "winner" : row.failure ? "out" : "" },
      h("td", {}, h("a", { href: `/tournaments/${row.tournament}` }, `Tournament ${row.tournament}`),
        row.status !== "finished" ? h("span", { class: `pill ${row.status}` }, row.status) : null),
      h("td", { class: "muted" }, clock(row.started_at)),
      h("td", {}, row.format),
      h("td", {}, row.rank ? ordinal(row.rank) : "—", h("span", { class: "muted" }, ` of ${row.entrants}`)),
      h("td", {}, row.points === null ? "—" : String(row.points)),
      h("td", { class: row.failure ? "reason" : "muted" }, row.winner ? "★ winner" : row.failure ? shown(row.failure) : "")))))));
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
        + (ladder.length > 1 ? `, ${ladder.length} points spread over them all.` : ", from where every bot starts (25 ± 8.33) to after its one game so far."),
      start: ladder.length === 1 ? { rating: 25, rating_sigma: 25 / 3 } : null,
    }));
  }
  if (swiss.length) {
    const first = swiss[0];
    drawn.push(ratingChart(swiss, {
      label: (point) => `tournament ${point.tournament}${point.rank ? `, ${ordinal(point.rank)}` : ""}`,
      ends: swiss.length > 1 ? [`tournament ${first.tournament}`, `tournament ${swiss.at(-1).tournament}`] : [`tournament ${first.tournament}`],
      caption: swiss.length > 1
        ? `Swiss: μ (the line) and μ ± σ (the band) at the end of each of its ${swiss.length} Swiss tournaments`
          + " (each starts again at 25 ± 8.33)."
        : `Swiss: its one tournament so far (tournament ${first.tournament}${first.rank ? `, ${ordinal(first.rank)}` : ""}):`
          + ` it started at 25 ± 8.33, as every entrant does, and ended at μ ${first.rating.toFixed(2)} ± ${first.rating_sigma.toFixed(2)}`
          + " (the band: where its true strength likely lies). A line over time appears after a second tournament.",
      start: swiss.length === 1 ? { rating: 25, rating_sigma: 25 / 3 } : null,
    }));
  }
  const standing = ladderStanding(data);
  if (drawn.length) return section("Rating over time", standing, drawn);
  return standing && section("Rating", standing);
}

// Whose bot it is, on a host with accounts (docs/accounts.md): its owner, banned, or a guest (unrated).
function account(mark) {
  if (!mark) return null;
  if (mark.guest) return h("span", { class: "account guest", title: "a bot that proved no account: it keeps no rating" }, "guest");
  return h("span", { class: mark.banned ? "account banned" : "account" },
    `owned by ${mark.owner}`, mark.banned ? " · banned (its games stay, marked)" : "");
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
      h("span", { class: "muted" }, `${plural(data.counts.games, "game")} stored · ${plural(data.counts.removals, "removal")}`),
      account(data.account)),
    charts(data),
    tournaments(data),
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
