"""The JavaScript example bot (examples/javascript) against the real host and the rules engine.

- its rules module agrees with the engine: the same feeding options on random states, the
  same verdict on random Action4s, the same answer on the course's xattack cases;
- every answer of its strategy passes the host's own checks (schema, then rules);
- it frames, validates and answers a scripted host that splits and joins messages, reuses
  the connection for a second game, sends the score message, refuses the sign-up, or sends
  an invalid message;
- it plays whole games as a ``node`` process on a real host on 127.0.0.1, beside the
  project's Python clients, and is never removed.

Needs ``node`` (18+) and ``examples/javascript/node_modules`` (``make test`` runs ``npm ci``).
Without them these tests are skipped, except under CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from typing import Any

import pytest
from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from evolution.games.evolution.rules.cards import ALL_CARDS
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import CarnivoreChoice, FatTissueChoice, VegetarianChoice, feeding_options
from evolution.games.evolution.rules.player import FeedingState
from evolution.games.evolution.rules.player_state import PlayerState, PlayerView
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.table import Table
from evolution.games.evolution.rules.traits import Trait
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import read_action4, read_feeding_choice
from evolution.jsonwire.wire_errors import WireError
from tests.support.bot_processes import BotProcess, ScriptedHost
from tests.support.hosting import new_host, until
from tests.support.paths import CONFORMANCE, REPO

EXAMPLE = REPO / "examples" / "javascript"
BOT = EXAMPLE / "bot.js"
NODE = shutil.which("node")


def _node_major() -> int:
    if NODE is None:
        return 0
    version = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=False).stdout
    try:
        return int(version.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed"
    if _node_major() < 18:
        return "node is older than 18"
    if not (EXAMPLE / "node_modules" / "ajv").is_dir():
        return "examples/javascript/node_modules/ajv is missing (run make test, which runs npm ci)"
    return None


MISSING = _missing()
if MISSING and os.environ.get("CI"):
    raise RuntimeError(f"the JavaScript example bot cannot be tested under CI: {MISSING}")
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"JavaScript example bot not tested: {MISSING}")


# -- the rules module against the engine ------------------------------------------------

CHECKER = """
import { pathToFileURL } from "node:url";
const dir = process.argv[1];
const rules = await import(pathToFileURL(dir + "/rules.js").href);
const strategy = await import(pathToFileURL(dir + "/strategy.js").href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input);
const rows = (lob) => lob.map((row) => row.map(rules.speciesFromJson));
const optionKey = (o) =>
  o.kind === "vegetarian" ? ["v", o.choice] :
  o.kind === "fat-tissue" ? ["f", o.choice[0], o.room] : ["a", ...o.choice];
const out = {
  feeding: job.feeding.map(([, boards, , wh, others]) => {
    const mine = boards.map(rules.speciesFromJson);
    return {
      options: rules.feedingOptions(mine, rows(others), wh).map(optionKey),
      answer: strategy.chooseFeeding(mine, rows(others), wh),
    };
  }),
  actions: job.actions.map(([, , boards, hand]) => strategy.chooseAction(boards.map(rules.speciesFromJson), hand)),
  verdicts: job.verdicts.map(([[, , boards, hand], action]) =>
    rules.checkAction4(action, boards.map(rules.speciesFromJson), hand) === null),
  attacks: job.attacks.map(([target, attacker, left, right]) => {
    const s = (x) => (x === false ? null : rules.speciesFromJson(x));
    return rules.mayAttack(s(attacker), s(target), s(left), s(right));
  }),
};
process.stdout.write(JSON.stringify(out));
"""


def run_checker(job: dict[str, Any]) -> dict[str, Any]:
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", CHECKER, str(EXAMPLE)],
        input=json.dumps(job), capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


TRAITS = list(Trait)


def random_species(rng: random.Random) -> Species:
    population = rng.randint(1, 7)
    body = rng.randint(0, 7)
    traits = rng.sample(TRAITS, rng.randint(0, 3))
    if rng.random() < 0.4 and Trait.CARNIVORE not in traits:
        traits = [Trait.CARNIVORE, *traits[:2]]
    if rng.random() < 0.2 and Trait.FAT_TISSUE not in traits:
        traits = [*traits[:2], Trait.FAT_TISSUE]
    return Species(rng.randint(0, population), body, population, tuple(traits), rng.randint(0, body))


def random_row(rng: random.Random, low: int, high: int) -> tuple[Species, ...]:
    return tuple(random_species(rng) for _ in range(rng.randint(low, high)))


def random_state(rng: random.Random) -> FeedingState:
    others = tuple(random_row(rng, 0, 4) for _ in range(rng.randint(0, 7)))
    hand = tuple(rng.sample(ALL_CARDS, rng.randint(0, 6)))
    return FeedingState(rng.randint(0, 30), random_row(rng, 1, 4), hand, rng.randint(1, 12), others)


def random_view(rng: random.Random) -> PlayerView:
    return PlayerView(rng.randint(0, 30), random_row(rng, 1, 4), tuple(rng.sample(ALL_CARDS, rng.randint(1, 12))))


def random_action(rng: random.Random, view: PlayerView) -> list:
    """An Action4 of the right shape, legal or not: small random indexes."""
    cards, boards = len(view.hand) + 1, len(view.boards) + 2
    bts = [[rng.randrange(cards) for _ in range(rng.randint(1, 4))] for _ in range(rng.randint(0, 2))]
    return [
        rng.randrange(cards),
        [[rng.randrange(boards), rng.randrange(cards)] for _ in range(rng.randint(0, 3))],
        [[rng.randrange(boards), rng.randrange(cards)] for _ in range(rng.randint(0, 3))],
        bts,
        [[rng.randrange(boards), rng.randint(0, 2), rng.randrange(cards)] for _ in range(rng.randint(0, 2))],
    ]


def engine_options(state: FeedingState) -> list:
    me = PlayerState(1, list(state.boards))
    table = Table([me, *(PlayerState(i + 2, list(row)) for i, row in enumerate(state.others))], state.watering_hole)
    keys = []
    for option in feeding_options(table, me):
        if isinstance(option, VegetarianChoice):
            keys.append(["v", option.species])
        elif isinstance(option, FatTissueChoice):
            keys.append(["f", option.species, option.tokens])
        elif isinstance(option, CarnivoreChoice):
            keys.append(["a", option.attacker, option.target_player, option.target])
    return keys


def legal(read, value, context) -> str | None:
    """None if the host accepts ``value``, else its reason."""
    try:
        read(value, context)
    except (WireError, RulesViolation) as error:
        return str(error)
    return None


def test_the_rules_module_agrees_with_the_engine():
    rng = random.Random(4500)
    # What the bot sees is the JSON, so the engine judges the decoded JSON too.
    states = [codec.feed_next_from_json(codec.feed_next_to_json(random_state(rng))) for _ in range(1500)]
    views = [random_view(rng) for _ in range(500)]
    candidates = [(view, random_action(rng, view)) for view in views for _ in range(4)]
    xattack = sorted((CONFORMANCE / "xattack").glob("*-in.json")) if (CONFORMANCE / "xattack").is_dir() else []
    job = {
        "feeding": [codec.feed_next_to_json(state) for state in states],
        "actions": [codec.start_to_json(0, view) for view in views],
        "verdicts": [[codec.start_to_json(0, view), action] for view, action in candidates],
        "attacks": [json.loads(path.read_text()) for path in xattack],
    }
    got = run_checker(job)

    asked = 0
    for state, js in zip(states, got["feeding"]):
        expected = engine_options(state)
        assert sorted(js["options"]) == sorted(expected), codec.feed_next_to_json(state)
        if len(expected) >= 2:  # the host asks only then
            asked += 1
            assert legal(read_feeding_choice, js["answer"], state) is None, (codec.feed_next_to_json(state), js["answer"])
    assert asked > 300, "too few random states with two or more options"

    for view, action in zip(views, got["actions"]):
        assert legal(read_action4, action, view) is None, (codec.start_to_json(0, view), action)

    disagreements = [
        (codec.start_to_json(0, view), action)
        for (view, action), js_legal in zip(candidates, got["verdicts"])
        if js_legal != (legal(read_action4, action, view) is None)
    ]
    assert disagreements == []
    assert 0 < sum(got["verdicts"]) < len(candidates), "the random Action4s should be both legal and illegal"

    for path, answer in zip(xattack, got["attacks"]):
        assert answer == json.loads(path.with_name(path.name.replace("-in", "-out")).read_text()), path.name


# -- a scripted host ------------------------------------------------------------------


def line(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def species(*traits: str, food: int = 0, body: int = 0, pop: int = 1, fat: int = 0) -> Species:
    return Species(food, body, pop, tuple(Trait(t) for t in traits), fat)


@pytest.fixture
def scripted():
    hosts: list[ScriptedHost] = []

    def make(name: str = "scripted") -> ScriptedHost:
        hosts.append(ScriptedHost([NODE, str(BOT)], name))
        return hosts[-1]

    yield make
    for host in hosts:
        host.kill()


@pytest.mark.parametrize("reply", ["ok", "ack"])
def test_frames_answers_and_plays_a_second_game_on_the_same_connection(scripted, reply):
    host = scripted("framing test")
    assert host.read() == "framing test"
    rng = random.Random(7)

    # Game 1: the sign-up reply one byte at a time, then start and choose in one write,
    # separated by a space and no newline.
    for byte in json.dumps(reply).encode():
        host.send(bytes([byte]))
    first = PlayerView(0, (species(),), tuple(rng.sample(ALL_CARDS, 4)))
    host.send(json.dumps(codec.start_to_json(0, first)).encode() + b" " + line(codec.choose_to_json((), (first.boards,))))
    assert legal(read_action4, host.read(), first) is None

    state = FeedingState(
        2, (species(pop=3), species("fat-tissue", body=4, pop=2, food=2)), first.hand, 5,
        ((species("carnivore", pop=2), species("warning-call")), (species("burrowing", pop=2, food=2),)),
    )
    message = line(codec.feed_next_to_json(state))
    host.send(message[:17], message[17:60], message[60:])  # one message over three reads
    assert legal(read_feeding_choice, host.read(), state) is None

    # Game 2 on the same connection: a new start (split), a choose, a feed-next.
    second = PlayerView(0, (species(),), tuple(rng.sample(ALL_CARDS, 6)))
    start = line(codec.start_to_json(3, second))
    host.send(start[:5], start[5:] + line(codec.choose_to_json(((species(pop=2),),), (second.boards, (species(),)))))
    assert legal(read_action4, host.read(), second) is None
    state = FeedingState(
        0, (species("carnivore", pop=3), species(pop=2)), second.hand, 4,
        ((species("horns"), species(pop=2)), (species("climbing", pop=4),)),
    )
    host.send(line(codec.feed_next_to_json(state)))
    answer = host.read()
    assert legal(read_feeding_choice, answer, state) is None

    host.send(line([[2, 9], [1, 4], [3, 4]]))  # the optional score message, then end of game
    status, err = host.finish()
    assert status == 0, err
    assert "after 2 turns and 2 feeding choices" in err


@pytest.mark.parametrize("sent, said", [
    ([line("game full")], "game full"),  # a refused sign-up
    ([line("ok"), line([0, 0, [], [[9, "horns"]]])], "invalid start"),  # no boards, and a card that does not exist
    ([line("ok"), line(["removed", "no reply to feed-next within 1 s"])],  # a removal the host tells
     "the host removed this bot: no reply to feed-next within 1 s"),
], ids=["refused-sign-up", "invalid-message", "told-removed"])
def test_a_refusal_an_invalid_message_or_a_removal_ends_with_its_reason_and_status_1(scripted, sent, said):
    host = scripted()
    host.read()
    host.send(*sent)
    status, err = host.finish()
    assert status == 1
    assert said in err


# -- whole games on a real host ----------------------------------------------------------


# (players, seats of JavaScript bots in sign-up order): 3 to 8 players, one to three
# JavaScript bots, signing up first, last or in between. Each is played on two seeds.
TABLES = [
    (3, [0]), (4, [3]), (5, [2]), (6, [0, 5]), (7, [1, 3, 6]), (8, [7]),
    (3, [0, 1, 2]), (4, [1, 2]), (5, [4]), (6, [3]), (7, [0]), (8, [0, 2, 4]),
]
GAMES = [(players, seats, seed) for seed0 in (100, 200) for seed, (players, seats) in enumerate(TABLES, seed0 + 1)]


class HostedGamesTests(unittest.TestCase):
    timeout = 240

    async def play(self, players: int, js_seats: list[int], seed: int) -> tuple[Any, list[BotProcess]]:
        host = new_host(self, "--players", f"{players}-{players}", "--seed", str(seed), "--timeout", "5")
        bots: list[BotProcess] = []
        clients = []
        for seat in range(players):
            waiting = len(host.factory.lobby) + 1
            if seat in js_seats:
                bot = BotProcess()
                name = f"js-{seed}-{seat}"
                reactor.spawnProcess(bot, NODE, [NODE, str(BOT), "127.0.0.1", str(host.port), name], env=dict(os.environ))
                bots.append(bot)
            else:
                clients.append(host.client(f"py-{seed}-{seat}"))
            await until(lambda: len(host.factory.lobby) >= waiting or host.runner.games_begun)
        [record] = await host.runner.when_games_over(1)
        await gatherResults(clients)
        await gatherResults([bot.ended for bot in bots])
        return record, bots

    async def test_the_bot_finishes_every_game_and_is_never_removed(self) -> None:
        feedings = 0
        for players, js_seats, seed in GAMES:
            record, bots = await self.play(players, js_seats, seed)
            js = [seat for seat in record.players if seat.name.startswith("js-")]
            assert record.outcome == "finished", (seed, record.outcome)
            assert len(js) == len(js_seats) and len(record.players) == players
            assert [(s.name, s.removed_reason) for s in js if s.removed_reason] == [], seed
            assert all(s.rank is not None for s in js), seed
            for bot in bots:
                status = await bot.ended
                err = bot.err.decode()
                assert status == 0, err
                if "feeding choices" in err:
                    feedings += int(err.split(" feeding choices")[0].rsplit(" ", 1)[1])
        assert feedings > 0, "the JavaScript bots were never asked to feed"


class AccountTests(unittest.TestCase):
    """``EVOLUTION_KEY``: the bot proves its account on a host with ``--accounts closed`` (docs/accounts.md)."""

    timeout = 120

    async def test_the_bot_signs_up_with_its_key_and_plays_under_its_public_name(self) -> None:
        from pathlib import Path

        from evolution.store.accounts import Accounts

        folder = Path(self.mktemp())
        folder.mkdir()
        accounts = Accounts.open(folder / "results.sqlite")
        accounts.add_owner("ann")
        key = accounts.add_bot("js", "ann")
        accounts.close()
        host = new_host(self, "--players", "3-3", "--games", "1", "--timeout", "5", "--accounts", "roster",
                        folder=folder)
        await host.ready()
        bot = BotProcess()
        reactor.spawnProcess(bot, NODE, [NODE, str(BOT), "127.0.0.1", str(host.port), "js"],
                             env={**os.environ, "EVOLUTION_KEY": key})
        await until(lambda: len(host.factory.lobby) == 1)
        clients = [host.client("py-1"), host.client("js")]  # with no key, each a guest
        [record] = await host.runner.when_games_over(1)
        await gatherResults(clients)
        self.assertEqual(await bot.ended, 0, bot.err.decode())
        self.assertEqual(sorted(seat.name for seat in record.players), ["guest-1", "guest-2", "js"])
