// The overview (/): the lobby with its countdown, running games, tournaments with their
// standings, recent games, the rating leaderboard and the ladder, pushed by the host as they change.

import { clock, fill, h, inSentence, nameOf, note, ordinal, plural, seatClass, section } from "./dom.js";
import { drawingOf } from "./drawings.js";
import { follow, getJSON, status } from "./live.js";
import { standingsTable } from "./standings.js";

const main = document.getElementById("main");
let countdown = null;

function ticking(line, seconds, text) {
  const deadline = performance.now() + seconds * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
    line.textContent = text(left);
  };
  tick();
  countdown = setInterval(tick, 250);
}

function gamesLobby(data, line) {
  const waiting = data.waiting;
  if (!data.open) {
    line.textContent = "Sign-ups are closed: the host has started all the games it runs.";
  } else if (data.starts_in !== null && data.starts_in !== undefined) {
    ticking(line, data.starts_in,
      (left) => `A game of ${waiting.length} starts in ${plural(left, "second")} unless someone else signs up.`);
  } else if (waiting.length < (data.min_players ?? 0)) {
    const more = data.min_players - waiting.length;
    line.textContent = `Waiting for ${plural(more, "more player")} (a game needs ${data.min_players} to ${data.max_players}).`;
  } else {
    line.textContent = "A game is about to start.";
  }
}

function tournamentLobby(data, line) {
  const waiting = data.waiting;
  if (!data.open) {
    line.textContent = "Sign-ups are closed while a tournament runs.";
  } else if (data.period_ends_in !== null && data.period_ends_in !== undefined) {
    const need = Math.max(0, data.min_signups - waiting.length);
    ticking(line, data.period_ends_in, (left) =>
      `Tournament sign-up, period ${data.period} of ${data.periods}: ${plural(left, "second")} left; ` +
      (need ? `${plural(need, "more player")} needed.` : `it starts then (or at ${data.max_signups} players).`));
  } else {
    line.textContent = "A tournament is about to start.";
  }
}

function ladderLobby(data, line) {
  const waiting = data.waiting;
  if (!data.open) {
    line.textContent = "The ladder is closed: the host is stopping.";
  } else if (data.starts_in !== null && data.starts_in !== undefined) {
    ticking(line, data.starts_in, (left) =>
      `Ladder: ${plural(data.playing, "bot")} playing; the next games form in ${plural(left, "second")} from the bots waiting.`);
  } else {
    const more = Math.max(0, data.min_players - waiting.length);
    line.textContent = `Ladder: ${plural(data.playing, "bot")} playing; bots join at any time` +
      (more ? ` (${plural(more, "more bot")} waiting needed for a game of ${data.min_players} to ${data.max_players}).` : ".");
  }
}

const LOBBIES = { tournament: tournamentLobby, ladder: ladderLobby };

function lobby(data) {
  const line = h("p", { class: "lobby-line" });
  if (countdown) clearInterval(countdown);
  countdown = null;
  (LOBBIES[data.mode] ?? gamesLobby)(data, line);
  const waiting = data.waiting;
  return section(`Lobby · ${plural(waiting.length, "player")} waiting`,
    line,
    waiting.length ? h("ul", { class: "chips" }, waiting.map((name) => h("li", {}, nameOf(name)))) : null);
}

function playersList(players, { ranked = false } = {}) {
  const order = ranked ? [...players].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat) : players;
  return h("ul", { class: "mini-players" }, order.map((player) =>
    h("li", { class: `${seatClass(player.seat)}${player.removed ? " out" : ""}${ranked && player.rank === 1 ? " winner" : ""}` },
      nameOf(player.name),
      h("span", { class: "score" }, player.removed ? "removed" : player.score === null ? "" : `${player.score}`))));
}

function gameCard(game, words) {
  const tournament = game.tournament;
  return h("a", { class: "card game-card", href: `/games/${game.id}` },
    h("div", { class: "card-head" },
      h("b", {}, `Game ${game.id}`),
      h("span", { class: "pill running" }, "live"),
      h("span", { class: "muted" }, `${inSentence(words.turn(game.turn))} · ${words.step(game.step)}`)),
    tournament ? h("div", { class: "muted" }, `Tournament ${tournament.id}, round ${tournament.round}`) : null,
    playersList(game.players));
}

function running(games, drawings) {
  return section(`Running games · ${games.length}`,
    games.length ? h("div", { class: "cards" }, games.map((game, i) => gameCard(game, drawings[i].words))) : note("No game is running."));
}

function tournamentCard(tournament) {
  const rounds = tournament.rounds.length;
  return h("div", { class: "card tournament-card" },
    h("div", { class: "card-head" },
      h("a", { href: `/tournaments/${tournament.id}` }, h("b", {}, `Tournament ${tournament.id}`)),
      h("span", { class: `pill ${tournament.status}` }, tournament.status),
      h("span", { class: "muted" }, `${tournament.format} · ${plural(rounds, "round")}`)),
    tournament.winners.length ? h("p", { class: "winners" }, "Won by ", tournament.winners.map((name, i) => [i ? ", " : "", nameOf(name)])) : null,
    standingsTable(tournament, { compact: true }));
}

function tournaments(list) {
  return section("Tournaments",
    list.length ? h("div", { class: "cards wide" }, list.map(tournamentCard)) : note("No tournament has been played on this host yet."));
}

function recent(games) {
  if (!games.length) return section("Recent games", note("No game has finished yet."));
  return section("Recent games", h("div", { class: "scroll" }, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Ended"), h("th", {}, "Turns"), h("th", {}, "Players, best first"))),
    h("tbody", {}, games.map((game) => h("tr", {},
      h("td", {}, h("a", { href: `/games/${game.id}` }, `Game ${game.id}`), game.outcome !== "finished" ? h("span", { class: "pill aborted" }, "aborted") : null),
      h("td", { class: "muted" }, clock(game.ended_at)),
      h("td", {}, game.turns),
      h("td", {}, playersList(game.players, { ranked: true }))))))));
}

function leaderboard(rows) {
  if (!rows.length) return section("Rating leaderboard", note("Ratings appear once a Swiss tournament has been played."));
  return section("Rating leaderboard",
    h("p", { class: "note" }, "Each player's openskill rating after its latest Swiss tournament, ranked by μ − 3σ."),
    h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating μ ± σ"), h("th", {}, "μ − 3σ"), h("th", {}, "Tournaments"))),
      h("tbody", {}, rows.map((row) => h("tr", {},
        h("td", {}, ordinal(row.rank)),
        h("td", {}, nameOf(row.name)),
        h("td", {}, `${row.rating.toFixed(2)} ± ${row.rating_sigma.toFixed(2)}`),
        h("td", {}, row.ordinal.toFixed(2)),
        h("td", {}, h("a", { href: `/tournaments/${row.tournament}`, title: "latest Swiss tournament" }, row.tournaments))))))));
}

function ladder(rows) {
  const panel = section("Ladder",
    h("p", { class: "note" }, "Every bot's openskill rating after its latest ladder game, ranked by μ − 3σ; all of them: ",
      h("a", { href: "/api/ladder" }, "JSON"), "."),
    rows.length ? h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["#", "Bot", "Rating μ ± σ", "μ − 3σ", "Games", "Wins", "Removals"].map((head) => h("th", {}, head)))),
      h("tbody", {}, rows.map((row) => h("tr", {},
        h("td", {}, ordinal(row.rank)),
        h("td", {}, nameOf(row.name)),
        h("td", {}, `${row.rating.toFixed(2)} ± ${row.rating_sigma.toFixed(2)}`),
        h("td", {}, (row.rating - 3 * row.rating_sigma).toFixed(2)),
        h("td", {}, row.games), h("td", {}, row.wins), h("td", {}, row.removals))))))
      : note("No ladder game has finished yet."));
  panel.id = "ladder";
  return panel;
}

let latest = 0; // the newest picture pushed: an older one still loading a game's words is dropped

async function render(data) {
  const picture = ++latest;
  const drawings = await Promise.all(data.running.map(drawingOf));
  if (picture !== latest) return;
  const ladderShown = data.lobby.mode === "ladder" || data.ladder.length;
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, "Evolution host")),
    h("div", { class: "overview" },
      lobby(data.lobby), ladderShown ? ladder(data.ladder) : null, running(data.running, drawings),
      tournaments(data.tournaments), recent(data.recent_games), leaderboard(data.leaderboard)));
}

async function start() {
  try {
    await render(await getJSON("/api/overview"));
  } catch (error) {
    fill(main, note(`The host did not answer: ${error.message}`, "warning"));
  }
  follow("/api/overview/events", { overview: render }, start);
}

status.set("reconnecting", "connecting…");
start();
