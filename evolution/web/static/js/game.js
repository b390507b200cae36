// The page of one game (/games/ID): live while it runs, then its result and its replay; the host that
// played it. A game another host of the store is playing: who plays it, and where its live picture is.

import { clock, fill, h, hostName, nameOf, note, ordinal, pageTitle, placeText, plural, runningPill, section, shown } from "./dom.js";
import { drawingOf } from "./drawings.js";
import { lines, removedWhen } from "./lines.js";
import { follow, getJSON, pageSubject, status } from "./live.js";
import { Replay } from "./replay.js";

const main = document.getElementById("main");

function heading(game) {
  const tournament = game.tournament;
  pageTitle(`Game ${game.id}`);
  return h("div", { class: "page-head" },
    h("h1", {}, `Game ${game.id}`),
    game.status === "running" ? runningPill(game) : h("span", { class: `pill ${game.status}` }, game.outcome === "finished" ? "finished" : "aborted"),
    tournament ? h("a", { class: "pill link", href: `/tournaments/${tournament.id}` }, `Tournament ${tournament.id}, round ${tournament.round}`) : null,
    game.ladder ? h("a", { class: "pill link", href: "/ladder" }, "Ladder") : null,
    game.host ? h("span", { class: "when played-on" }, "on host ", hostName(game.host)) : null,
    h("span", { class: "when" }, `started ${clock(game.started_at)}`));
}

// A game another host is playing: its live picture is on that host's own web view; this page looks
// again every few seconds, and shows the result once the store holds it.
let again = null;

function showElsewhere(game) {
  status.set("done");
  fill(main,
    heading(game),
    section("Playing on another host",
      h("p", { class: "note elsewhere-note" }, "This game is being played on host ", hostName(game.host),
        ". Its live picture is on that host's own web view; this page shows its result once it is over and stored."),
      h("ul", { class: "chips" }, game.players.map((player) => h("li", {}, nameOf(player.name))))));
  clearTimeout(again);
  again = setTimeout(start, 5000);
}

async function showLive(game) {
  const names = game.players.map((player) => player.name);
  const { table, words } = await drawingOf(game);
  fill(main,
    heading(game),
    h("div", { class: "game-layout" },
      table(game.table),
      h("aside", { class: "side" }, h("h2", {}, "Last actions"), lines(game.lines, names, { words }))),
  );
}

// Where a player's place is shared, what its rank says: "ranked 4th by the reverse of the final turn order".
function splitTie(player, game) {
  const shared = game.players.some((other) => other !== player && other.place === player.place);
  if (!shared || !game.tie_break || !player.rank || player.rank === player.place) return null;
  return h("span", { class: "tie muted" }, `ranked ${ordinal(player.rank)} by ${game.tie_break}`);
}

// Each player, best first: its place as its score gives it (equal scores share one, "=3rd"; the
// game's own ranking, where it splits them, named beside it), score or removal, and in a Swiss the
// tournament points the place gave.
function result(game, drawing) {
  const words = drawing.words;
  const order = [...game.players].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat);
  const tied = game.players.some((player) => placeText(player, game.players).startsWith("="));
  return section("Result",
    game.outcome !== "finished" ? note(`This game was ${game.outcome}.`, "warning") : null,
    h("ol", { class: "result" }, order.map((player) =>
      h("li", { class: player.place === 1 ? "winner" : player.removed ? "out" : "" },
        h("span", { class: "place" }, placeText(player, game.players) || "—"),
        nameOf(player.name),
        player.removed
          ? h("span", { class: "reason" }, `removed ${removedWhen(player.removed, words)}: ${shown(player.removed.reason)}`)
          : h("span", { class: "score" }, words.score(player.score)),
        splitTie(player, game),
        player.points !== undefined ? h("span", { class: "points" }, `${plural(player.points, "tournament pt", "tournament pts")}`) : null))),
    tied ? note("= a place shared by equal scores, as tournament points and ratings count it.") : null,
    h("p", { class: "note" }, `${plural(game.turns, "turn")} · ${drawing.dealt(game)} · ended ${clock(game.ended_at)}`),
    downloads(game));
}

// What a bot author debugs a loss with: every message each seat received and sent, and the replay's frames.
function downloads(game) {
  const transcript = `/api/games/${game.id}/transcript`;
  return h("p", { class: "note downloads" },
    "Download: ",
    h("a", { href: transcript, download: `game-${game.id}-transcript.json` }, "transcript (JSON)"),
    " · by seat: ",
    game.players.map((player, i) => [i ? ", " : "",
      h("a", { href: `${transcript}?seat=${player.seat}`, download: `game-${game.id}-transcript-seat-${player.seat}.json`,
        title: shown(player.name) }, `${player.seat}`)]),
    game.replay ? [" · ", h("a", { href: game.replay }, "replay (JSON)")] : null);
}

async function showFinished(game) {
  status.set("done");
  const drawing = await drawingOf(game);
  const replayRoot = h("div", { class: "replay" }, note("Loading the replay…"));
  fill(main, heading(game), result(game, drawing), section("Replay", replayRoot));
  if (!game.replay) {
    fill(replayRoot, note("This game has no stored message log to replay."));
    return;
  }
  try {
    const replay = await getJSON(game.replay);
    if (!replay.frames.length) {
      fill(replayRoot, note("The replay has no steps: the game ended before its first turn."));
      return;
    }
    const places = new Map(game.players.filter((p) => p.place).map((p) => [p.seat, p.place]));
    new Replay(replayRoot, replay, game.players.map((p) => p.name), places, drawing);
    if (!replay.reproduced) {
      replayRoot.prepend(h("div", { class: "warning" },
        h("p", {}, "The replay does not reproduce the stored game exactly:"),
        h("ul", {}, replay.differences.map((text) => h("li", {}, text)))));
    }
  } catch (error) {
    fill(replayRoot, note(`No replay: ${error.message}`, "warning"));
  }
}

async function start() {
  const game = await pageSubject(main, "Game", "/api/games");
  if (game === null) return;
  if (game.status !== "running") {
    await showFinished(game);
    return;
  }
  if (game.live === false) {
    showElsewhere(game);
    return;
  }
  await showLive(game);
  follow(`/api/games/${game.id}/events`, {
    game: (data) => showLive(data),
    over: (data, source) => {
      source.close();
      showFinished(data);
    },
  }, start);
}

start();
