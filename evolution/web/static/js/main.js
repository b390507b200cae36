// The one script of the one page shell: draws the page its address names.
//   /                  the overview       (overview.js)
//   /games/ID          one game           (game.js)
//   /tournaments/ID    one tournament     (tournament.js)
//   /ladder            the ladder         (ladder.js)
//   /players/NAME      one player         (player.js)

const PAGES = { "": "overview", games: "game", tournaments: "tournament", ladder: "ladder", players: "player" };
const kind = location.pathname.split("/").filter(Boolean)[0] ?? "";
import(`./${PAGES[kind] ?? "overview"}.js`);
