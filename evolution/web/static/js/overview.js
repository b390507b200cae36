// The overview (/): the lobby with its countdown (its line saying what the host does now), running
// games, tournaments with their standings, recent games, the rating leaderboard and the ladder's top
// (provisional ratings marked; the whole at /ladder), pushed by the host as they change. A host that
// plays no tournaments shows no empty tournament panels. Over a store several hosts share: the hosts
// (which one this web view is), the games the others are playing (their live pictures are on their own
// web views), and which host played each game. A web view that plays no games (--view-only) has no lobby.

import { clock, fill, h, host, hostName, inSentence, nameOf, note, ordinal, plural, ratingText, runningPill, nameClass, section, shown } from "./dom.js";
import { drawingOf } from "./drawings.js";
import { ladderTable, provisionalNote } from "./ladder_table.js";
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

// "4 players", "3 to 8 players"
function sizes(least, most, word) {
  return least === most ? plural(least, word) : `${least} to ${most} ${word}s`;
}

function gamesLobby(data, line, overview) {
  const waiting = data.waiting;
  if (!data.open) {
    line.textContent = overview.running.length
      ? "Sign-ups are closed: the host has started all the games it runs."
      : "Sign-ups are closed: the host has played all the games it runs.";
  } else if (data.starts_in !== null && data.starts_in !== undefined) {
    ticking(line, data.starts_in,
      (left) => `A game of ${waiting.length} starts in ${plural(left, "second")} unless someone else signs up.`);
  } else if (waiting.length < (data.min_players ?? 0)) {
    const more = data.min_players - waiting.length;
    line.textContent = `Waiting for ${plural(more, "more player")} (a game needs ${sizes(data.min_players, data.max_players, "player")}).`;
  } else {
    line.textContent = "A game is about to start.";
  }
}

// Closed: while a tournament runs, or once the host has played them all (it lingers to show them).
function closedTournamentLobby(overview) {
  const running = overview.tournaments.find((tournament) => tournament.status === "running");
  if (running) {
    return `Sign-ups are closed while tournament ${running.id} runs (${running.format}, round ${Math.max(1, running.rounds.length)}).`;
  }
  const last = overview.tournaments.find((tournament) => tournament.status !== "running");
  if (!last) return "Sign-ups are closed: the host is stopping.";
  const won = last.winners.length ? `, won by ${last.winners.map(shown).join(", ")}` : "";
  const how = last.status === "empty" ? " had too few sign-ups" : ` is ${last.status === "finished" ? "over" : last.status}${won}`;
  return `Tournament ${last.id}${how}. The host takes no more sign-ups; this page stays up to show the results.`;
}

function tournamentLobby(data, line, overview) {
  const waiting = data.waiting;
  if (!data.open) {
    line.textContent = closedTournamentLobby(overview);
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
    line.textContent = `Ladder: ${plural(data.playing, "bot")} playing; bots join at any time.` +
      (more ? ` A game takes ${sizes(data.min_players, data.max_players, "bot")} waiting: ${more} more to come.` : "");
  }
}

const LOBBIES = { tournament: tournamentLobby, ladder: ladderLobby };

function noGames(overview) {
  const name = overview.view.host;
  return section("This web view plays no games",
    h("p", { class: "lobby-line" }, "It shows what the hosts of its store have stored, and the games they are playing now; ",
      "each game's live picture is on its host's own web view", name ? [" (this view is ", hostName(name), ")"] : null, "."));
}

function lobby(overview) {
  const data = overview.lobby;
  if (data === null) return noGames(overview);
  const line = h("p", { class: "lobby-line" });
  if (countdown) clearInterval(countdown);
  countdown = null;
  (LOBBIES[data.mode] ?? gamesLobby)(data, line, overview);
  const waiting = data.waiting;
  return section(`Lobby · ${plural(waiting.length, "player")} waiting`,
    line,
    waiting.length ? h("ul", { class: "chips" }, waiting.map((name) => h("li", {}, nameOf(name)))) : null);
}

function playersList(players, { ranked = false } = {}) {
  const order = ranked ? [...players].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat) : players;
  return h("ul", { class: "mini-players" }, order.map((player) =>
    h("li", { class: `${nameClass(player.name)}${player.removed ? " out" : ""}${ranked && player.rank === 1 ? " winner" : ""}` },
      nameOf(player.name),
      h("span", { class: "score" }, player.removed ? "removed" : player.score === null ? "" : `${player.score}`))));
}

// A card the whole of which leads to the game (its title's link stretched over it), with each name
// a link of its own above it. A game another host plays has no turn or scores here: who plays, since when.
function gameCard(game, words, many) {
  const tournament = game.tournament;
  const where = game.live === false
    ? h("span", { class: "muted" }, "on ", hostName(game.host), ` since ${clock(game.started_at)}`)
    : h("span", { class: "muted" }, `${inSentence(words.turn(game.turn))} · ${words.step(game.step)}`, many ? " · on this host" : "");
  return h("div", { class: `card game-card${game.live === false ? " elsewhere" : ""}` },
    h("div", { class: "card-head" },
      h("a", { class: "card-link", href: `/games/${game.id}` }, h("b", {}, `Game ${game.id}`)),
      runningPill(game), where),
    tournament ? h("div", { class: "muted" }, `Tournament ${tournament.id}, round ${tournament.round}`) : null,
    playersList(game.players));
}

function running(games, drawings, elsewhere, many) {
  const count = games.length + elsewhere.length;
  return section(`Running games · ${count}`,
    count ? h("div", { class: "cards" },
      games.map((game, i) => gameCard(game, drawings[i].words, many)),
      elsewhere.map((game) => gameCard(game, null, many))) : note("No game is running."),
    elsewhere.length ? note("Games running elsewhere are as the shared store noted them a few seconds ago; each one's live picture is on its host's own web view.") : null);
}

// The hosts whose games the store holds: games stored, running now, its last game; this web view's marked.
function hosts(data) {
  const view = data.view;
  const mine = view.plays_games && view.host;
  return section(`Hosts · ${data.hosts.length}`,
    h("p", { class: "note" }, view.plays_games
      ? ["This web view belongs to ", mine ? ["host ", hostName(view.host)] : "its host",
        ": its running games are live here; the other hosts' are on their own web views."]
      : ["This web view plays no games", view.host ? [" (", hostName(view.host), ")"] : null, ": it shows the store's hosts."]),
    data.hosts.length ? h("div", { class: "scroll" }, h("table", { class: "grid hosts" },
      h("thead", {}, h("tr", {}, ["Host", "Games stored", "Running now", "Last game ended"].map((head) => h("th", {}, head)))),
      h("tbody", {}, data.hosts.map((row) => h("tr", { class: mine && row.host === view.host ? "this-host" : "" },
        h("td", {}, row.host === null ? h("span", { class: "muted" }, "(none: before hosts had names)") : hostName(row.host),
          mine && row.host === view.host ? h("span", { class: "muted" }, " · this web view") : null),
        h("td", {}, row.games),
        h("td", {}, row.running),
        h("td", { class: "muted" }, clock(row.last_ended))))))) : note("The store holds no game yet."));
}

function tournamentCard(tournament, many) {
  const rounds = tournament.rounds.length;
  return h("div", { class: "card tournament-card" },
    h("div", { class: "card-head" },
      h("a", { href: `/tournaments/${tournament.id}` }, h("b", {}, `Tournament ${tournament.id}`)),
      h("span", { class: `pill ${tournament.status}` }, tournament.status),
      h("span", { class: "muted" }, `${tournament.format} · ${plural(rounds, "round")}`,
        many && tournament.host ? [" · on ", hostName(tournament.host)] : null)),
    tournament.winners.length ? h("p", { class: "winners" }, "Won by ", tournament.winners.map((name, i) => [i ? ", " : "", nameOf(name)])) : null,
    standingsTable(tournament, { compact: true }));
}

function tournaments(list, many) {
  return section("Tournaments",
    list.length ? h("div", { class: "cards wide" }, list.map((tournament) => tournamentCard(tournament, many)))
      : note("No tournament has been played on this host yet."));
}

// A host that plays no tournaments shows their panels only when its store holds some.
function tournamentPanels(data, many) {
  const ours = data.lobby?.mode === "tournament";
  return [
    ours || data.tournaments.length ? tournaments(data.tournaments, many) : null,
    ours || data.leaderboard.length ? leaderboard(data.leaderboard) : null,
  ];
}

function recent(games, many) {
  if (!games.length) return section("Recent games", note("No game has finished yet."));
  return section("Recent games", h("div", { class: "scroll" }, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Ended"), many ? h("th", {}, "Host") : null, h("th", {}, "Turns"), h("th", {}, "Players, best first"))),
    h("tbody", {}, games.map((game) => h("tr", {},
      h("td", {}, h("a", { href: `/games/${game.id}` }, `Game ${game.id}`), game.outcome !== "finished" ? h("span", { class: "pill aborted" }, "aborted") : null),
      h("td", { class: "muted" }, clock(game.ended_at)),
      many ? h("td", {}, game.host === null ? "" : hostName(game.host)) : null,
      h("td", {}, game.turns),
      h("td", {}, playersList(game.players, { ranked: true }))))))));
}

function leaderboard(rows) {
  if (!rows.length) return section("Rating leaderboard", note("Ratings appear once a Swiss tournament has been played."));
  return section("Rating leaderboard",
    h("p", { class: "note" }, "Each player's openskill rating after its latest Swiss tournament, ranked by μ − 3σ; ",
      provisionalNote(), "."),
    h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating μ ± σ"), h("th", {}, "μ − 3σ"), h("th", {}, "Games"), h("th", {}, "Tournaments"))),
      h("tbody", {}, rows.map((row) => h("tr", { class: row.provisional ? "provisional" : "" },
        h("td", {}, ordinal(row.rank)),
        h("td", {}, nameOf(row.name)),
        h("td", {}, ratingText(row)),
        h("td", {}, row.ordinal.toFixed(2)),
        h("td", {}, row.games),
        h("td", {}, h("a", { href: `/tournaments/${row.tournament}`, title: "latest Swiss tournament" }, row.tournaments))))))));
}

function ladder(rows) {
  const panel = section("Ladder",
    h("p", { class: "note" }, "Every bot's openskill rating after its latest ladder game, ranked by μ − 3σ; ",
      provisionalNote(), ". The whole ladder, its removals and its standings to download: ",
      h("a", { href: "/ladder" }, "the ladder's page"), "."),
    rows.length ? ladderTable(rows) : note("No ladder game has finished yet."));
  panel.id = "ladder";
  return panel;
}

let latest = 0; // the newest picture pushed: an older one still loading a game's words is dropped

async function render(data) {
  const picture = ++latest;
  const drawings = await Promise.all(data.running.map(drawingOf));
  if (picture !== latest) return;
  const ladderShown = data.lobby?.mode === "ladder" || data.ladder.length;
  const many = data.hosts.length > 1; // the store holds more than one host's games: each says which host
  const [tournamentsPanel, leaderboardPanel] = tournamentPanels(data, many);
  fill(main,
    h("div", { class: "page-head" }, h("h1", {}, host.title)),
    h("div", { class: "overview" },
      lobby(data), many || !data.view.plays_games ? hosts(data) : null, ladderShown ? ladder(data.ladder) : null,
      running(data.running, drawings, data.running_elsewhere, many),
      tournamentsPanel, recent(data.recent_games, many), leaderboardPanel));
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
