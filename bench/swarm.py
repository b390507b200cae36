"""The bots of the load benchmark: many silly players in one asyncio process.

``python -m bench.swarm --port P --first I --count N --window T0 T1 --stop T --out FILE [--think S]``
runs bots number I .. I+N-1 against a host on 127.0.0.1:P. Each bot is one TCP
connection and a few attributes, nothing more: it signs up with a name of its
own (``L<bot>.<game>``, unique for every game of every bot), answers every
question at once (or ``--think`` seconds later) with the reference ("silly") strategy, and when its game ends
(the host hangs up after a start) it connects and signs up again, so the load
stays steady. After the time ``--stop`` no bot signs up again: running games
play to their end, and the bots still waiting in the lobby are closed by the
host when it stops.

Kept light on purpose, so that the host, not the bots, sets the pace:

- framing is a split on newlines (the host writes one compact JSON value and a
  newline per message: ``evolution.jsonwire.framing.encode_message``), then
  ``json.loads``; no schema checks (the host's messages are trusted here);
- the strategy is the project's own (``evolution.games.evolution.rules.silly``) on values
  decoded with the project's codec, but only what the answer depends on is
  decoded: the hand (from start) for choose; the own boards for feed-next,
  and the other players' boards only when a hungry carnivore must pick a
  target (fat-tissue and vegetarian choices never look at them).

What it records, written as JSON to ``--out`` when every bot is done:

- ``window``: messages sent and received by all bots (sign-ups and their
  replies included), and how many bots were connecting, in a lobby, playing
  or done, at the wall-clock times T0 and T1;
- ``signups``: ``[when, seconds]`` for every sign-up the host answered
  "ok": from the bot starting to connect to reading the "ok" (a connect the
  host's full listen queue dropped is retried by the kernel after a second);
- ``replies``: for every name (one game of one bot), the wall-clock times
  (``time.time()``) at which the bot read each question and wrote its reply,
  in order, as ``[read, written]``; the load benchmark matches the k-th of
  them with the k-th reply the host's log shows it read from that seat
  (and so with the question before it);
- ``ended``: ``[name, time]`` of every game a bot saw end (EOF after at least
  one start);
- ``lag``: the event loop's lateness in ms (a 10 ms timer), max and p99 in
  the window: whether this process kept up;
- ``gave_up``: the names whose strategy had no answer (the silly strategy
  needs 3 cards in hand; a deck run short can leave fewer), which then hung
  up, as ``evolution-client`` does;
- ``errors``: anything an honest bot should never see (refused connects, a
  hang-up before or without a game, a message of no known shape), by kind.

While running it prints one JSON status line a quarter of a second after
``--stop`` and every quarter second on: bots signing up, in a lobby, playing,
done.

With ``--ladder`` (a host run with ``--ladder --send-scores``) each bot
keeps one connection and one name, ``L<bot>``, for game after game: a game
ends for it with the score message, after which it waits for the next
``start``; ``ended`` lists one ``[name, time]`` per game it saw end (so a
name repeats), ``replies`` is left empty, and a bot the host hangs up on
before ``--stop`` counts an error and signs up again under its name. A ladder bot asks to be told the name
it gets (``["sign-up", "L<bot>"]``, answered ``["ok", name]``) and counts its games under that name: one
that comes back while the host still holds its name in the game it left plays as ``L<bot>#2``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import sys
import time
from collections import Counter
from typing import Any

from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.player import FeedingState
from evolution.games.evolution.rules.silly import silly_action, silly_feeding_choice
from evolution.games.evolution.wire import codec
from evolution.net.identity import ASK_NAME

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_loads = json.loads

CONNECTING, LOBBY, PLAYING, DONE = "connecting", "lobby", "playing", "done"


class Swarm:
    """The bots of this process, their shared counters and their schedule."""

    def __init__(self, args: argparse.Namespace, loop: asyncio.AbstractEventLoop) -> None:
        self.args = args
        self.loop = loop
        self.sent = 0
        self.received = 0
        self.window: dict[str, dict[str, int]] = {}
        self.replies: dict[str, list[tuple[float, float]]] = {}
        self.ended: list[tuple[str, float]] = []
        self.gave_up: list[str] = []
        self.signups: list[tuple[float, float]] = []  # (when "ok" came, seconds since the connect began)
        self.errors: Counter[str] = Counter()
        self.states: Counter[str] = Counter()
        self.stopping = False
        self.lags: list[float] = []
        self.bots: list[Bot] = []
        self.finished = loop.create_future()

    def at(self, wall: float, callback: Any, *args: Any) -> None:
        """Call ``callback`` at the wall-clock time ``wall``."""
        self.loop.call_at(self.loop.time() + (wall - time.time()), callback, *args)

    def snapshot(self, label: str) -> None:
        self.window[label] = {
            "sent": self.sent, "received": self.received, "at": time.time(),
            **{state: self.states[state] for state in (CONNECTING, LOBBY, PLAYING, DONE)},
        }

    def stop_signing_up(self) -> None:
        self.stopping = True
        self.status()
        self.check_done()

    def status(self) -> None:
        line = {state: self.states[state] for state in (CONNECTING, LOBBY, PLAYING, DONE)}
        print(json.dumps(line), flush=True)
        if not self.finished.done():
            self.loop.call_later(0.25, self.status)

    def check_done(self) -> None:
        if self.stopping and self.states[DONE] == len(self.bots) and not self.finished.done():
            self.finished.set_result(None)

    def watch_lag(self, t0: float, t1: float, period: float = 0.01) -> None:
        expected = self.loop.time() + period

        def tick() -> None:
            nonlocal expected
            now = self.loop.time()
            wall = time.time()
            if t0 <= wall <= t1:
                self.lags.append((now - expected) * 1000)
            expected = now + period
            if wall <= t1:
                self.loop.call_at(expected, tick)

        self.loop.call_at(expected, tick)

    def result(self) -> dict[str, Any]:
        lags = sorted(self.lags)
        return {
            "window": self.window,
            "replies": self.replies,
            "ended": self.ended,
            "gave_up": self.gave_up,
            "signups": self.signups,
            "errors": dict(self.errors),
            "lag": {
                "max": lags[-1] if lags else None,
                "p99": lags[int(0.99 * (len(lags) - 1))] if lags else None,
                "samples": len(lags),
            },
        }


class Bot(asyncio.Protocol):
    """One bot: one connection at a time, one game per connection."""

    def __init__(self, swarm: Swarm, index: int) -> None:
        self.swarm = swarm
        self.index = index
        self.games = 0
        self.name = ""
        self.state = DONE
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.hand: list = []
        self.board_count = 0
        self.sends: list[tuple[float, float]] = []
        self.read_at = 0.0
        self.connect_at = 0.0

    def _move(self, state: str) -> None:
        states = self.swarm.states
        states[self.state] -= 1
        states[state] += 1
        self.state = state

    def connect(self) -> None:
        swarm = self.swarm
        if swarm.stopping:
            self._move(DONE)
            swarm.check_done()
            return
        self.games += 1
        if swarm.args.ladder:
            self.name, self.sends = f"L{self.index}", []
        else:
            self.name = f"L{self.index}.{self.games}"
            self.sends = swarm.replies[self.name] = []
        self.buffer = b""
        self._move(CONNECTING)
        self.connect_at = time.time()
        task = swarm.loop.create_task(swarm.loop.create_connection(lambda: self, "127.0.0.1", swarm.args.port))
        task.add_done_callback(self._connected)

    def _connected(self, task: asyncio.Task) -> None:
        if task.cancelled() or task.exception() is not None:
            error = task.exception() if not task.cancelled() else None
            self.swarm.errors[f"connect: {type(error).__name__}"] += 1
            self.swarm.replies.pop(self.name, None)
            self._move(DONE)
            self.swarm.loop.call_later(0.5, self.connect)

    # -- asyncio.Protocol ---------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        signup = [ASK_NAME, self.name] if self.swarm.args.ladder else self.name
        transport.write(_dumps(signup).encode() + b"\n")  # type: ignore[attr-defined]
        self.swarm.sent += 1

    def data_received(self, data: bytes) -> None:
        self.read_at = time.time()
        buffer = self.buffer + data if self.buffer else data
        end = buffer.rfind(b"\n")
        if end < 0:
            self.buffer = buffer
            return
        self.buffer = buffer[end + 1:]
        for line in buffer[:end].split(b"\n"):
            self.message(_loads(line))

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        swarm = self.swarm
        if swarm.args.ladder and self.state in (PLAYING, LOBBY) and not swarm.stopping:
            swarm.errors[f"hung up while {self.state}"] += 1
        elif self.state == PLAYING and not swarm.args.ladder:
            swarm.ended.append((self.name, time.time()))
        elif self.state == CONNECTING:
            swarm.errors["hung up before answering the sign-up"] += 1
        elif self.state == LOBBY and not swarm.stopping:
            swarm.errors["hung up in the lobby"] += 1
        self._move(DONE)
        self.connect()

    # -- the game -----------------------------------------------------------------

    def message(self, value: Any) -> None:
        self.swarm.received += 1
        try:
            self._answer(value)
        except RulesViolation as error:  # as evolution-client does: the player failed, hang up
            self.swarm.errors[f"the silly strategy had no answer: {error}"] += 1
            self.swarm.gave_up.append(self.name)
            self.transport.close()

    def _answer(self, value: Any) -> None:
        if self.state == CONNECTING:
            self._signed_up(value)
            return
        if type(value) is list:
            size = len(value)
            if size == 5 and type(value[0]) is int:
                self.reply(codec.feeding_choice_to_json(self.feed(value)))
                return
            if size == 4 and type(value[0]) is int:
                if self.state != PLAYING:
                    self._move(PLAYING)
                self.hand = value[3]
                self.board_count = len(value[2])
                return
            if size == 2 and not (value[0] and type(value[0][0]) is int):
                action = silly_action(codec.cards_from_json(self.hand), self.board_count)
                self.reply(codec.action4_to_json(action))
                return
            if value and all(type(entry) is list and len(entry) == 2 for entry in value):
                if self.swarm.args.ladder:  # the end of a game; the next begins on this connection
                    self.swarm.ended.append((self.name, time.time()))
                    self._move(LOBBY)
                return  # the optional score message
        self._unexpected(value)

    def _signed_up(self, value: Any) -> None:
        """"ok", or ``["ok", name]`` (the name the host gave a ladder bot): in the lobby."""
        if type(value) is list and len(value) == 2 and value[0] == "ok" and type(value[1]) is str:
            self.name = value[1]
        elif value != "ok":
            self._unexpected(value)
            return
        self._move(LOBBY)
        self.swarm.signups.append((self.read_at, self.read_at - self.connect_at))

    def _unexpected(self, value: Any) -> None:
        self.swarm.errors[f"unexpected message: {str(value)[:40]}"] += 1
        self.transport.close()

    @staticmethod
    def feed(value: list) -> Any:
        bag, boards_json, _hand, watering_hole, others_json = value
        boards = codec.boards_from_json(boards_json, "boards")
        if any(species.fat_need > 0 or (species.is_hungry and not species.is_carnivore) for species in boards):
            others = ()  # the silly choice is a fat-tissue or vegetarian one: the others do not matter
        else:
            others = codec.lob_from_json(others_json, "others")
        return silly_feeding_choice(FeedingState(bag, boards, (), watering_hole, others))

    def reply(self, value: Any) -> None:
        think = self.swarm.args.think
        if think > 0:
            self.swarm.loop.call_later(think, self._send, value, self.transport)
        else:
            self._send(value, self.transport)

    def _send(self, value: Any, transport: asyncio.Transport | None) -> None:
        if transport is None or transport is not self.transport or transport.is_closing():
            return  # the game ended for it while it thought
        self.sends.append((self.read_at, time.time()))
        transport.write(_dumps(value).encode() + b"\n")
        self.swarm.sent += 1


async def run(args: argparse.Namespace) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    swarm = Swarm(args, loop)
    t0, t1 = args.window
    swarm.at(t0, swarm.snapshot, "t0")
    swarm.at(t1, swarm.snapshot, "t1")
    swarm.at(args.stop, swarm.stop_signing_up)
    swarm.watch_lag(t0, t1)
    swarm.bots = [Bot(swarm, index) for index in range(args.first, args.first + args.count)]
    swarm.states[DONE] = len(swarm.bots)
    for k, bot in enumerate(swarm.bots):  # ramp up: --rate connections a second
        swarm.at(args.begin + k / args.rate, bot.connect)
    loop.add_signal_handler(signal.SIGTERM, lambda: swarm.finished.done() or swarm.finished.set_result(None))
    try:
        await asyncio.wait_for(swarm.finished, max(args.deadline - time.time(), 1.0))
    except asyncio.TimeoutError:
        swarm.errors["still running at the deadline"] += len(swarm.bots) - swarm.states[DONE]
    for bot in swarm.bots:
        if bot.transport is not None:
            bot.transport.abort()
    return swarm.result()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.swarm", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--first", type=int, default=0, help="number of the first bot")
    parser.add_argument("--count", type=int, required=True, help="bots in this process")
    parser.add_argument("--begin", type=float, required=True, help="wall-clock time of the first connect")
    parser.add_argument("--rate", type=float, default=1000.0, help="connects a second while ramping up")
    parser.add_argument("--window", type=float, nargs=2, required=True, metavar=("T0", "T1"))
    parser.add_argument("--stop", type=float, required=True, help="wall-clock time after which no bot signs up")
    parser.add_argument("--deadline", type=float, required=True, help="wall-clock time to give up waiting")
    parser.add_argument("--out", required=True)
    parser.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                        help="wait this long before each answer (longer games; default: answer at once)")
    parser.add_argument("--ladder", action="store_true",
                        help="one connection and name per bot for every game (a host with --ladder --send-scores)")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < args.count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    outcome = asyncio.run(run(args))
    with open(args.out, "w") as out:
        json.dump(outcome, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
