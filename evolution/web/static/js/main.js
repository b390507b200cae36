// The one script of the one page shell: draws the page its address names, and marks its link in the header.
//   /                  the overview       (overview.js)
//   /games/ID          one game           (game.js)
//   /games             every game, running ones first, a page at a time (games.js)
//   /tournaments/ID    one tournament     (tournament.js)
//   /tournaments       every tournament   (tournaments.js)
//   /ladder            the ladder         (ladder.js)
//   /players/NAME      one player         (player.js)
//   /players           every player, with a search (players.js)

import { followAnnouncements } from "./live.js";

const PAGES = { "": "overview", games: "game", tournaments: "tournament", ladder: "ladder", players: "player" };
const LISTS = { games: "games", tournaments: "tournaments", players: "players" };
const [kind = "", item] = location.pathname.split("/").filter(Boolean);
const page = item === undefined && kind in LISTS ? LISTS[kind] : PAGES[kind] ?? "overview";
for (const link of document.querySelectorAll("nav.site a")) {
  if (link.getAttribute("href") === `/${kind}`) link.setAttribute("aria-current", "page");
}
import(`./${page}.js`);
// The organiser's announcement on every page: its own stream until the page follows one of its own.
followAnnouncements();
