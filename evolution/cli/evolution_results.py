"""``evolution-results --db PATH [--json]``: the games and tournaments in a results store.

Prints a table per game (rank, seat, name, score, or why the player was
removed), or with ``--json`` a JSON list of games, each with a ``players``
list. ``--tournaments`` lists the tournaments instead, one line each (with
``--json``: a list of objects with ``id``, ``format``, ``status``
finished|interrupted|empty|running, ``winners`` (names), ``failures``
(``name``, ``reason``), ``games`` (ids), ``ranked_by`` (what the standings
compare, in order), ``standings`` (``name``, ``rank``, and in Swiss
``points``, ``rating``, ``rating_sigma``, ``ordinal``; in a knockout
``reached``, ``place``, ``score``), as ``TournamentRecord.to_json`` makes
them); ``--tournament ID`` prints one as a table: its rounds with their
summaries, then what ranks the standings, then the standings.
``--ladder [--game NAME]`` prints the game's ladder (``twistd evolution
--ladder``): each bot's rank, rating mu +- sigma (``?``: provisional), mu - 3
sigma (what ranks it, after whether it is established), games, wins and
removals; with ``--json`` a list of objects with ``name``, ``rank``,
``rating``, ``rating_sigma``, ``games``, ``wins``, ``removals``,
``provisional`` (``evolution.tournament.ladder_standings.Standing.to_json``);
with bot accounts (``evolution-accounts``) each bot's owner and BANNED (JSON:
``owner``, ``banned``); a host's guests are never on the ladder.
``--hosts`` lists the hosts whose games the store holds (a PostgreSQL store
several hosts share, or one host under several names): each host's name
(``twistd evolution --host-name``; games from before hosts had names have
none), its games stored, those it is playing now, and when its last stored
game ended; with ``--json`` a list of objects with ``host``, ``games``,
``running``, ``last_ended`` (``ResultsStore.hosts``), ``last_heard`` (the host's
last heartbeat, about once a minute while it runs: ``evolution.store.heartbeats``)
and ``silent_s`` (seconds since). Each game's header and
each tournament's line name the host that played it ("on lab3:45678").
A game's table shows each seat's rank (the game's own) and place (equal
scores share one, marked ``=``); ``--json`` adds ``place`` to each seat and
``tie_break`` to each game.

Names and reasons are stored as the bots sent them; the tables show them
through ``evolution.text`` (escaped, names cut to 20 characters) and the
JSON is pure ASCII, so neither can drive the reader's terminal.
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

from evolution.cli.arguments import ArgumentParser, add_game, quiet_broken_pipe
from evolution.games import DEFAULT_GAME, UnknownGame
from evolution.games import game as game_named
from evolution.store.accounts import Accounts
from evolution.store.database import StoreError
from evolution.store.heartbeats import RECENT, last_heard, silent_for
from evolution.store.records import EntrantRecord, GameRecord, SeatRecord, TournamentRecord, seat_places, tie_break
from evolution.store.results_store import ResultsStore, reading
from evolution.text import escape, plural, short
from evolution.tournament.ladder_standings import Standing
from evolution.tournament.ratings import ESTABLISHED

NAME_WIDTH = 20
HOST_WIDTH = 40


def format_seats(seats: Sequence[SeatRecord], game: str = DEFAULT_GAME) -> str:
    """A ranking table: ranked seats first, with each one's place (equal scores share one, marked =), then removed
    ones with the reason; when scores are equal, a line says how the places and the game's ranks treat them."""
    placed = seat_places(seats)
    shared = {place for place in placed.values() if list(placed.values()).count(place) > 1}
    lines = ["  rank  place  seat  name                  score"]
    for p in sorted(seats, key=lambda p: (p.rank is None, p.rank or 0, p.seat)):
        rank = "-" if p.rank is None else str(p.rank)
        place = "-" if p.seat not in placed else ("=" if placed[p.seat] in shared else "") + str(placed[p.seat])
        score = "-" if p.score is None else str(p.score)
        reason = escape(p.removed_reason) if p.removed_reason else ""
        removed = f"  removed in turn {p.removed_turn} ({escape(p.removed_step or '')}): {reason}" if reason else ""
        lines.append(
            f"  {rank:>4}  {place:>5}  {p.seat:>4}  {short(p.name, NAME_WIDTH):<{NAME_WIDTH}}  {score:>5}{removed}"
        )
    if shared:
        split = tie_break(seats, game)
        lines.append("  = equal scores share a place, as tournament points and ratings count them"
                     + (f"; the game's ranks split them by {split}" if split else ""))
    return "\n".join(lines)


def deal_text(game: GameRecord) -> str:
    """How the game was dealt, in its game's words (``seed 5``, ``sorted deck``)."""
    try:
        return game_named(game.game).deal_text(game.deck, game.seed)
    except UnknownGame:
        return f"{escape(game.deck)}, seed {game.seed}"


def played_on(host: str | None) -> str:
    """Where a game or tournament was played, for its line: ``on lab3:45678  `` (nothing when it has no host)."""
    return "" if host is None else f"on {short(host, HOST_WIDTH)}  "


def format_game(game: GameRecord) -> str:
    kind = "" if game.game == DEFAULT_GAME else f"{escape(game.game)}  "
    kind += "ladder  " if game.ladder else ""
    header = (
        f"game #{game.id}  {kind}{escape(game.started_at)}  {played_on(game.host)}{deal_text(game)}"
        f"  {plural(game.turns, 'turn')}  {escape(game.outcome)}"
    )
    return header + "\n" + format_seats(game.players, game.game)


def game_json(game: GameRecord) -> dict:
    """A game as ``--json`` prints it: its record, each seat with its ``place`` (equal scores share the best; null
    when removed), and ``tie_break``: how the game's ranks split equal scores, when they did, else null."""
    data = game.to_json()
    placed = game.places()
    data["players"] = [seat | {"place": placed.get(seat["seat"])} for seat in data["players"]]
    data["tie_break"] = game.tie_break()
    return data


def _winners(tournament: TournamentRecord) -> str:
    names = [short(entrant.name, NAME_WIDTH) for entrant in tournament.winners]
    return ", ".join(names) if names else "-"


def format_tournament_line(tournament: TournamentRecord) -> str:
    """One line of ``--tournaments``."""
    kind = "" if tournament.game == DEFAULT_GAME else f"{escape(tournament.game)}  "
    return (
        f"tournament #{tournament.id}  {kind}{tournament.format:<8}  {tournament.status:<11}  "
        f"{escape(tournament.started_at)}  {played_on(tournament.host)}{plural(len(tournament.entrants), 'player')}  "
        f"{plural(len(tournament.rounds), 'round')}  {plural(len(tournament.games), 'game')}  winners: {_winners(tournament)}"
    )


def ranked_by(tournament: TournamentRecord) -> str:
    """The line that says what the standings compare, in order."""
    return f"ranked by {', then '.join(tournament.ranked_by)}; equal ranks are ties; failures last, unranked"


def _knockout_columns(entrant: EntrantRecord) -> str:
    reached = "-" if entrant.reached is None else f"round {entrant.reached}"
    place, score = ("-" if value is None else str(value) for value in (entrant.place, entrant.score))
    return f"  {reached:>8}  {place:>5}  {score:>5}"


def _swiss_columns(entrant: EntrantRecord) -> str:
    if entrant.rating_mu is None or entrant.rating_sigma is None:
        return f"  {entrant.points:>6}"
    mu, sigma = entrant.rating_mu, entrant.rating_sigma
    return f"  {entrant.points:>6}  {mu:6.2f} +- {sigma:4.2f}  {mu - 3 * sigma:9.2f}"


COLUMNS = {"knockout": ("   reached  place  score", _knockout_columns),
           "swiss": ("  points  rating          mu-3sigma", _swiss_columns)}


def format_tournament(tournament: TournamentRecord) -> str:
    """``--tournament ID``: the header, each round's summary, the standings with what ranks them."""
    lines = [format_tournament_line(tournament)]
    lines += [f"  interrupted in round {r.round}, resumed {escape(r.resumed_at)} (twistd evolution --resume)"
              for r in tournament.resumptions]
    if tournament.status == "interrupted":
        lines.append(f"  interrupted: twistd evolution --resume {tournament.id} goes on with it")
    lines.append("")
    for round in tournament.rounds:
        games = ", ".join(f"#{game}" for game in round.games)
        lines.append(f"  round {round.round}: {escape(round.summary)}  (games {games or '-'})")
    return "\n".join(lines + ["", format_standings(tournament)])


def format_standings(tournament: TournamentRecord) -> str:
    """The standings table, with the line that says what ranks it; winners and failures marked."""
    heading, columns = COLUMNS.get(tournament.format, COLUMNS["knockout"])
    lines = [f"  {ranked_by(tournament)}", f"  rank  {'name':<{NAME_WIDTH}}{heading}"]
    for entrant in tournament.standings():
        rank = "-" if entrant.rank is None else str(entrant.rank)
        row = f"  {rank:>4}  {short(entrant.name, NAME_WIDTH):<{NAME_WIDTH}}{columns(entrant)}"
        if entrant.winner:
            row += "  winner"
        if entrant.failure is not None:
            row += f"  failed in round {entrant.failed_round}: {escape(entrant.failure)}"
        lines.append(row)
    return "\n".join(lines)


def format_ladder(rows: list[tuple[int, Standing]], game: str, marks: dict[str, dict] | None = None) -> str:
    """The ladder as a table, with the lines that say what ranks it and what ``?`` marks; with bot accounts
    (``marks``), each bot's owner, and BANNED."""
    marks = marks or {}
    lines = [f"  ladder of {escape(game)}: {plural(len(rows), 'bot')}, ranked by the rating mu - 3 sigma;"
             " equal values share a rank",
             f"  ? marks a provisional rating (fewer than {plural(ESTABLISHED, 'game')} played to the end), ranked"
             " after every established one; a bot removed from every game it played comes last",
             f"  rank  {'name':<{NAME_WIDTH}}  rating           mu-3sigma  games   wins  removals"
             + ("  owner" if marks else "")]
    for rank, standing in rows:
        mark = "?" if standing.provisional else " "
        lines.append(
            f"  {rank:>4}  {short(standing.name, NAME_WIDTH):<{NAME_WIDTH}}  {standing.rating_mu:6.2f} +- "
            f"{standing.rating_sigma:4.2f}{mark}  {standing.ordinal:9.2f}  {standing.games:>5}  {standing.wins:>5}"
            f"  {standing.removals:>8}" + _owner(marks.get(standing.name))
        )
    return "\n".join(lines)


def with_heartbeats(store: ResultsStore) -> list[dict]:
    """``store.hosts()``, each with ``last_heard`` (its store process's last heartbeat, or None) and
    ``silent_s`` (seconds since), and the hosts heard from that stored no game yet."""
    heard = last_heard(store)
    hosts = {row["host"]: row for row in store.hosts()}
    for host in heard.keys() - hosts.keys():
        hosts[host] = {"host": host, "games": 0, "running": 0, "last_ended": None}
    for host, row in hosts.items():
        seen = heard.get(host)
        row["last_heard"], row["silent_s"] = seen, None if seen is None else round(silent_for(seen), 1)
    return sorted(hosts.values(), key=lambda row: (row["host"] is None, row["host"] or ""))


def _ago(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds < 120:
        return f"{max(0, round(seconds))} s ago"
    return f"{round(seconds / 60)} min ago" if seconds < 7200 else f"{seconds / 3600:.1f} h ago"


def _owner(mark: dict | None) -> str:
    if mark is None:
        return ""
    return f"  {short(mark['owner'], NAME_WIDTH)}{' BANNED' if mark['banned'] else ''}"


def format_hosts(hosts: list[dict]) -> str:
    """``--hosts``: a line per host, with its games stored, running now, when its last one ended and when it was
    last heard from."""
    names = ["(none)" if row["host"] is None else short(row["host"], HOST_WIDTH) for row in hosts]
    width = max(len(name) for name in names + ["host"])
    lines = [f"  {'host':<{width}}  games  running  {'last game ended':<25}  last heard from"]
    for name, row in zip(names, hosts):
        lines.append(f"  {name:<{width}}  {row['games']:>5}  {row['running']:>7}  "
                     f"{escape(row['last_ended'] or '-'):<25}  {_ago(row.get('silent_s'))}")
    if any(row["host"] is None for row in hosts):
        lines.append("  (none): games stored before hosts had names (a store older than version 7)")
    silent = [row["host"] for row in hosts if row["running"] and (row.get("silent_s") or 0) > RECENT]
    for host in silent:
        lines.append(f"  {escape(host)} plays games but has not been heard from for a while: if it is gone for good, "
                     f"evolution-admin --db DB abort-host {escape(host)} stores them as aborted")
    return "\n".join(lines)


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="evolution-results",
                       description="List the games, tournaments or ladder of a results store.")
    p.add_argument("--db", default="evolution.sqlite", help="the results database: an SQLite file (default evolution.sqlite), or postgresql://USER@HOST:PORT/NAME")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--tournaments", action="store_true", help="list the tournaments instead of the games")
    what.add_argument("--tournament", type=int, metavar="ID", help="show one tournament: its rounds and standings")
    what.add_argument("--ladder", action="store_true", help="show the ladder: every bot's rating, games, wins and "
                      "removals, best first")
    what.add_argument("--hosts", action="store_true", help="list the hosts that played the stored games (a store "
                      "several hosts share): each one's games stored, running now, and its last game's end")
    add_game(p, f"with --ladder: whose ladder (default {DEFAULT_GAME})", default=None)
    return p


def _dump(value: object) -> str:
    return json.dumps(value, indent=1, ensure_ascii=True)


def show(store: ResultsStore, args: object) -> tuple[int, str]:
    """(exit status, what to print) for the parsed arguments."""
    if args.ladder:
        game = args.game or DEFAULT_GAME
        rows = store.ladder(game)
        marks = Accounts(store.connection).marks()
        if args.json:
            return 0, _dump([standing.to_json(rank) | marks.get(standing.name, {}) for rank, standing in rows])
        return 0, format_ladder(rows, game, marks) if rows else f"no ladder of {game} in {args.db}"
    if args.hosts:
        hosts = with_heartbeats(store)
        if args.json:
            return 0, _dump(hosts)
        return 0, format_hosts(hosts) if hosts else f"no games in {args.db}"
    if args.tournament is not None:
        tournament = store.tournament(args.tournament)
        if tournament is None:
            return 1, f"no tournament #{args.tournament} in {args.db}"
        return 0, _dump(tournament.to_json()) if args.json else format_tournament(tournament)
    if args.tournaments:
        tournaments = store.tournaments()
        if args.json:
            return 0, _dump([tournament.to_json() for tournament in tournaments])
        return 0, "\n".join(map(format_tournament_line, tournaments)) or f"no tournaments in {args.db}"
    games = store.games()
    if args.json:
        return 0, _dump([game_json(game) for game in games])
    return 0, "\n\n".join(format_game(game) for game in games) or f"no finished games in {args.db}"


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.game is not None and not args.ladder:
        parser().error("--game goes with --ladder")
    try:
        status, text = reading(args.db, lambda store: show(store, args))
    except StoreError as error:
        print(f"evolution-results: {error}", file=sys.stderr)
        return 1
    if status:
        print(f"evolution-results: {text}", file=sys.stderr)
    else:
        print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
