// Every game (/games): the ones running now first, then the stored ones by when they ended, newest first,
// 50 a page (?before=ID for older ones): its status, when it ended, turns, where it was played, its
// players best first.

import { clock, fill, h, hostName, manyHosts, nameOf, note, pageTitle, placeText, plural, runningPill, section } from "./dom.js";
import { getJSON, status } from "./live.js";

const main = document.getElementById("main");
const before = new URLSearchParams(location.search).get("before");
const SIZE = 50;

function where(game) {
  if (game.tournament) return h("a", { href: `/tournaments/${game.tournament.id}` }, `Tournament ${game.tournament.id}, round ${game.tournament.round}`);
  return game.ladder ? h("a", { href: "/ladder" }, "Ladder") : h("span", { class: "muted" }, "single game");
}

function players(game) {
  const order = [...game.players].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat);
  return h("span", { class: "opponents" }, order.map((player) => h("span", {},
    nameOf(player.name),
    h("span", { class: "muted" }, game.status === "running" ? "" : ` ${placeText(player, game.players) || ""} ${player.score ?? ""}`))));
}

function render(games) {
  pageTitle("Games");
  status.set("done");
  const running = games.filter((game) => game.status === "running");
  const hosts = manyHosts(games);
  const older = games.length === SIZE + 1 ? games[SIZE - 1].id : null;
  const shown = games.slice(0, SIZE);
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Games"),
      h("span", { class: "muted" }, before ? "older games" : `${plural(running.length, "game")} running`)),
    section(before ? "Older games, newest first" : "Running now, then the newest",
      shown.length ? h("div", { class: "scroll" }, h("table", { class: "grid games-list" },
        h("thead", {}, h("tr", {}, ["Game", "Ended", hosts ? "Host" : null, "Turns", "Where", "Players, best first (place, score)"]
          .filter(Boolean).map((head) => h("th", {}, head)))),
        h("tbody", {}, shown.map((game) => h("tr", {},
          h("td", {}, h("a", { href: `/games/${game.id}` }, `Game ${game.id}`), " ",
            game.status === "running" ? runningPill(game) : game.outcome !== "finished" ? h("span", { class: "pill aborted" }, "aborted") : null),
          h("td", { class: "muted" }, clock(game.ended_at)),
          hosts ? h("td", {}, game.host === null ? "" : hostName(game.host)) : null,
          h("td", {}, game.turns ?? game.turn ?? ""),
          h("td", {}, where(game)),
          h("td", { class: "opponents-cell" }, players(game))))))) : note("No game has been played yet."),
      h("p", { class: "note paging" },
        before ? h("a", { href: "/games" }, "← newest games") : null,
        before && older ? " · " : null,
        older ? h("a", { href: `/games?before=${older}` }, "older games →") : null)));
}

async function start() {
  const query = before && /^\d+$/.test(before) ? `&before=${before}` : "";
  try {
    render(await getJSON(`/api/games?limit=${SIZE + 1}${query}`));
  } catch (error) {
    fill(main, h("h1", {}, "Games"), note(`The host did not answer: ${error.message}`, "warning"));
  }
}

start();
