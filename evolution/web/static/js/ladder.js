// The ladder's page (/ladder): every bot's standing (provisional ratings marked), 50 a page (?page=N), each
// with its rank's change since the standings this browser showed before and when it was last seen; the
// newest removals with their reasons, and the standings to download; pushed by the host as its games are stored.

import { fill, h, note, pageTitle, paged, plural, section } from "./dom.js";
import { ladderTable, provisionalNote } from "./ladder_table.js";
import { removalsAcross } from "./lines.js";
import { follow, getJSON, status } from "./live.js";
import { standingsDownloads } from "./standings.js";

const main = document.getElementById("main");

let latest = 0; // the newest picture: an older one still loading its games' words is dropped
const SEEN = `ladder-ranks ${location.host} ${document.title}`; // this browser's picture before, for the rank arrows

// The ranks of the picture this browser saw before (on this page, or on its last visit), and when; this one
// kept in their place for the next.
function ranksBefore(standings) {
  let before = null;
  try {
    before = JSON.parse(localStorage.getItem(SEEN) ?? "null");
  } catch {
    before = null; // storage refused or spoiled: no arrows
  }
  const ranks = Object.fromEntries(standings.map((row) => [row.name, row.rank]));
  const changed = !before || JSON.stringify(before.ranks) !== JSON.stringify(ranks);
  try {
    const kept = before && { at: before.at, ranks: before.ranks }; // one picture back, no further
    if (changed) localStorage.setItem(SEEN, JSON.stringify({ at: new Date().toISOString(), ranks, before: kept }));
  } catch {
    // storage refused: the arrows show nothing next time
  }
  // an unchanged picture keeps the arrows of the change before it
  const shown = changed ? before : before.before;
  return shown ? { before: shown.ranks, since: shown.at } : {};
}

async function render(data) {
  const picture = ++latest;
  const removed = data.removals.length ? await removalsAcross(data.removals) : note("No bot has been removed from a ladder game.");
  if (picture !== latest) return;
  pageTitle("Ladder");
  const page = paged(data.standings);
  const moves = ranksBefore(data.standings);
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Ladder"),
      h("span", { class: "muted" }, plural(data.standings.length, "bot"))),
    section("Standings",
      h("p", { class: "note" }, "Every bot's openskill rating after its latest ladder game, ranked by μ − 3σ; ",
        provisionalNote(), "."),
      standingsDownloads("/api/ladder"),
      h("p", { class: "note" }, "▲ and ▼: places gained and lost since the standings this browser showed before",
        moves.since ? ` (${new Date(moves.since).toLocaleString()})` : "", "; last seen: when its newest ladder game ended."),
      data.standings.length ? ladderTable(page.rows, moves) : note("No ladder game has finished yet."),
      page.nav),
    section("Removals", h("p", { class: "note" }, "The newest, with their exact reasons; each bot's page lists all of its own."),
      removed));
}

async function start() {
  try {
    const [standings, removals] = await Promise.all([getJSON("/api/ladder"), getJSON("/api/ladder/removals")]);
    await render({ standings, removals });
  } catch (error) {
    fill(main, note(`The host did not answer: ${error.message}`, "warning"));
  }
  follow("/api/ladder/events", { ladder: render }, start);
}

status.set("reconnecting", "connecting…");
start();
