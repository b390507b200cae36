# -*- test-case-name: tests.host.console.test_operator_port -*-
"""The host's figures for Prometheus (``/metrics`` of the operator port), through ``prometheus_client``.

Offers ``HostFigures(host, writer, clock, game, reserve_mib)``: a registry of
its own (``registry``), its counters at 0 from the start, fed by what the
main process hears already (the game runner tells it of every game's begin
and end, those played in workers too: a worker's report of a game comes back
over its channel), and by a look at the host's parts at each scrape
(connections, sign-ups, the ladder's lobby, tournaments, the store's journal,
workers); ``start()``/``stop()`` a look four times a second at the ladder's lobby and
the journal (the longest wait, the oldest write's age); ``store_overdue`` (writes
waiting beyond the journal's promise). Each metric: docs/operations.md.
"""

from __future__ import annotations

import platform
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from twisted.internet.task import LoopingCall

from evolution import __version__
from evolution.net.host_connection import IN_LOBBY
from evolution.net.remote_seat import REPLY_SECONDS

KINDS = ("single", "tournament", "ladder")
REMOVALS = ("timeout", "invalid", "malformed", "disconnected", "unasked", "other")
GAME_SECONDS = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600)  # a game of Evolution: seconds to minutes
WAIT_SECONDS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)  # a ladder's --signup-window is 0.1 s by default
GAMES_PER_MIB = 50  # the journal's reserve keeps about 50 games of 8 players per MiB (--journal-reserve)
LOOK_EVERY = 0.25


def removal_kind(reason: str) -> str:
    """The kind of a removal's reason, a label of few values (the reason itself is in the store)."""
    for kind, words in (("timeout", ("no reply",)), ("malformed", ("malformed",)), ("invalid", ("invalid",)),
                        ("disconnected", ("disconnected",)), ("unasked", ("nobody asked",))):
        if any(word in reason for word in words):
            return kind
    return "other"


class HostFigures:
    """The registry ``/metrics`` shows, and what keeps it current."""

    def __init__(self, host: Any, writer: Any, clock: Any, game: str, reserve_mib: int) -> None:
        self.host, self.writer, self.clock, self.game = host, writer, clock, game
        self.promised = reserve_mib * GAMES_PER_MIB
        self.draining = False
        disable_created_metrics()  # no *_created series: Prometheus does without them
        self.registry = CollectorRegistry()
        registry = self.registry
        self.begun = Counter("evolution_games_begun", "Games begun", ["game", "kind"], registry=registry)
        self.finished = Counter("evolution_games_finished", "Games played to their end", ["game", "kind"],
                                registry=registry)
        self.aborted = Counter("evolution_games_aborted", "Games stored as aborted (the host stopped, a worker died)",
                               ["game", "kind"], registry=registry)
        self.duration = Histogram("evolution_game_duration_seconds", "How long games took, begin to end",
                                  ["game", "kind"], buckets=GAME_SECONDS, registry=registry)
        self.removals = Counter("evolution_removals", "Players removed from games, by kind of reason", ["reason"],
                                registry=registry)
        self.waited = Histogram("evolution_ladder_wait_seconds", "How long a ladder's bots waited for their games",
                                buckets=WAIT_SECONDS, registry=registry)
        self.oldest_wait = Gauge("evolution_ladder_longest_wait_seconds", "How long the longest-waiting bot of the "
                                 "ladder's lobby has waited", registry=registry)
        self.store_age = Gauge("evolution_store_oldest_write_age_seconds", "How long the store's oldest waiting write "
                               "has waited (0: none waits)", registry=registry)
        Info("evolution_build", "The host's version", registry=registry).info(
            {"version": __version__, "python": platform.python_version()})
        for kind in KINDS:
            for family in (self.begun, self.finished, self.aborted, self.duration):
                family.labels(game, kind)
        for reason in REMOVALS:
            self.removals.labels(reason)
        registry.register(_Looked(self))
        self._began: dict[int, float] = {}
        self._writes_since: float | None = None
        self._look = LoopingCall(self.look)
        self._look.clock = clock
        host.runner.watch(self._heard)

    def start(self) -> None:
        self._look.start(LOOK_EVERY)

    def stop(self) -> None:
        if self._look.running:
            self._look.stop()

    # -- what the game runner tells ------------------------------------------------------

    def _kind(self, game: Any) -> str:
        seating = getattr(game, "seating", None)
        if seating is None:
            return "single"
        return "tournament" if seating.tournament_id is not None else "ladder"

    def _heard(self, event: str, game: Any) -> None:
        kind = self._kind(game)
        if event == "begin":
            now = self.clock.seconds()
            self.begun.labels(self.game, kind).inc()
            self._began[game.id] = now
            if kind == "ladder":  # each bot's wait, from its coming into the lobby to its game (however short)
                for connection in game.connections:
                    if connection.waiting_since is not None:
                        self.waited.observe(now - connection.waiting_since)
            return
        if event != "over":
            return
        began = self._began.pop(game.id, None)
        record = self.host.runner.records[-1] if self.host.runner.records else None
        if record is None or record.id != game.id:
            return
        (self.finished if record.finished else self.aborted).labels(self.game, kind).inc()
        if began is not None:
            self.duration.labels(self.game, kind).observe(self.clock.seconds() - began)
        for seat in record.players:
            if seat.removed_reason is not None:
                self.removals.labels(removal_kind(seat.removed_reason)).inc()

    # -- looked at once a second ---------------------------------------------------------

    def look(self) -> None:
        now = self.clock.seconds()
        waiting = [c for c in self.host.factory.lobby if c.state == IN_LOBBY] if self.host.ladder else []
        self.oldest_wait.set(max((now - c.waiting_since for c in waiting if c.waiting_since is not None), default=0.0))
        if self.writer.waiting == 0:
            self._writes_since = None
        elif self._writes_since is None:
            self._writes_since = now
        self.store_age.set(0.0 if self._writes_since is None else now - self._writes_since)

    @property
    def store_overdue(self) -> bool:
        """More writes wait than the journal's reserve promises to keep (--journal-reserve): the store is away."""
        return self.writer.waiting > self.promised


class _Looked:
    """The figures read from the host's parts at each scrape."""

    def __init__(self, figures: HostFigures) -> None:
        self.figures = figures

    def collect(self) -> Any:
        figures = self.figures
        host, runner = figures.host, figures.host.runner
        playing = sum(len(getattr(game, "connections", ())) for game in list(runner.running.values()))
        waiting = len(host.factory.lobby)
        states = GaugeMetricFamily("evolution_connections", "Bots' connections, by state", labels=["state"])
        states.add_metric(["waiting"], waiting)
        states.add_metric(["playing"], playing)
        states.add_metric(["other"], max(0, host.factory.open_connections - waiting - playing))  # signing up, between
        yield states
        signups = CounterMetricFamily("evolution_signups", "Sign-ups, by result", labels=["result"])
        for result in ("accepted", "refused", "full"):
            signups.add_metric([result], host.factory.signups[result])
        yield signups
        replies = runner.deadlines.replies
        if replies is not None:
            buckets, running = [], 0
            for bound, count in zip([*map(str, REPLY_SECONDS), "+Inf"], replies.counts):
                running += count
                buckets.append((bound, running))
            yield HistogramMetricFamily("evolution_reply_seconds", "How long bots took to answer the host's questions "
                                        "(all games, workers' too: each worker's report of a game brings its "
                                        "counts)", buckets=buckets, sum_value=replies.total)
        yield GaugeMetricFamily("evolution_games_running", "Games running now", value=len(runner.running))
        ladder = host.ladder
        yield GaugeMetricFamily("evolution_ladder_waiting_bots", "Bots waiting in the ladder's lobby",
                                value=waiting if ladder is not None else 0)
        yield GaugeMetricFamily("evolution_ladder_paused", "1 while the ladder is paused (no new games form)",
                                value=1 if ladder is not None and getattr(ladder, "paused", False) else 0)
        tournaments = host.tournaments
        yield GaugeMetricFamily("evolution_tournaments_running", "Tournaments running now",
                                value=1 if tournaments is not None and tournaments.current is not None else 0)
        yield GaugeMetricFamily("evolution_store_writes_waiting", "Writes the store's database has not taken yet "
                                "(kept in the journal)", value=figures.writer.waiting)
        pool = getattr(runner, "pool", None)
        yield GaugeMetricFamily("evolution_workers_up", "Worker processes ready to play",
                                value=sum(worker.is_ready for worker in pool.workers) if pool is not None else 0)
        yield GaugeMetricFamily("evolution_draining", "1 while the host drains (no new games or sign-ups)",
                                value=1 if figures.draining else 0)
