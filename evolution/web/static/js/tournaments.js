// Every tournament (/tournaments), newest first, 50 a page (?page=N): its status, game, format, rounds,
// players, winners and host; each a link to its page.

import { clock, fill, h, hostName, manyHosts, nameOf, note, pageTitle, paged, plural, section } from "./dom.js";
import { drawingOf } from "./drawings.js";
import { getJSON, status } from "./live.js";

const main = document.getElementById("main");

async function render(list) {
  const newest = [...list].sort((a, b) => (b.started_at ?? "").localeCompare(a.started_at ?? "") || b.id - a.id);
  const page = paged(newest);
  const titles = new Map(await Promise.all([...new Set(list.map((t) => t.game))].map(async (game) =>
    [game, (await drawingOf({ game })).title ?? game])));
  const hosts = manyHosts(list);
  pageTitle("Tournaments");
  status.set("done");
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Tournaments"), h("span", { class: "muted" }, plural(list.length, "tournament"))),
    section("Every tournament, newest first",
      newest.length ? h("div", { class: "scroll" }, h("table", { class: "grid tournaments-list" },
        h("thead", {}, h("tr", {}, ["Tournament", "Status", "Started", "Game", "Format", "Rounds", "Players", "Won by",
          hosts ? "Host" : null].filter(Boolean).map((head) => h("th", {}, head)))),
        h("tbody", {}, page.rows.map((t) => h("tr", {},
          h("td", {}, h("a", { href: `/tournaments/${t.id}` }, `Tournament ${t.id}`)),
          h("td", {}, h("span", { class: `pill ${t.status}` }, t.status)),
          h("td", { class: "muted" }, clock(t.started_at)),
          h("td", {}, titles.get(t.game)),
          h("td", {}, t.format),
          h("td", {}, t.rounds.length),
          h("td", {}, t.standings.length),
          h("td", {}, t.winners.map((name, i) => [i ? ", " : "", nameOf(name)])),
          hosts ? h("td", {}, t.host === null ? "" : hostName(t.host)) : null))))) : note("No tournament has been played on this host yet."),
      page.nav));
}

async function start() {
  try {
    await render(await getJSON("/api/tournaments"));
  } catch (error) {
    fill(main, h("h1", {}, "Tournaments"), note(`The host did not answer: ${error.message}`, "warning"));
  }
}

start();
