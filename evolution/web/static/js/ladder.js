// The ladder's page (/ladder): every bot's standing (provisional ratings marked), the newest removals
// with their reasons, and the standings to download; pushed by the host as its games are stored.

import { fill, h, note, pageTitle, plural, section } from "./dom.js";
import { ladderTable, provisionalNote } from "./ladder_table.js";
import { removalsAcross } from "./lines.js";
import { follow, getJSON, status } from "./live.js";
import { standingsDownloads } from "./standings.js";

const main = document.getElementById("main");

let latest = 0; // the newest picture: an older one still loading its games' words is dropped

async function render(data) {
  const picture = ++latest;
  const removed = data.removals.length ? await removalsAcross(data.removals) : note("No bot has been removed from a ladder game.");
  if (picture !== latest) return;
  pageTitle("Ladder");
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Ladder"),
      h("span", { class: "muted" }, plural(data.standings.length, "bot"))),
    section("Standings",
      h("p", { class: "note" }, "Every bot's openskill rating after its latest ladder game, ranked by μ − 3σ; ",
        provisionalNote(), "."),
      standingsDownloads("/api/ladder"),
      data.standings.length ? ladderTable(data.standings) : note("No ladder game has finished yet.")),
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
