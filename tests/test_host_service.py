"""``twistd evolution``'s options and the service it builds."""

from __future__ import annotations

import pytest
from twisted.application.internet import StreamServerEndpointService
from twisted.internet.testing import MemoryReactorClock
from twisted.python import usage

from evolution.host.service import ListeningService, LobbyService, Options, StoreService, makeService


def parse(*args: str) -> Options:
    options = Options()
    options.parseOptions(list(args))
    return options


def test_defaults():
    options = parse()
    assert (options["min_players"], options["max_players"]) == (3, 8)
    assert options["timeout"] == 1.0 and options["signup-timeout"] == 5.0 and options["signup-window"] == 10.0
    assert options["games"] is None and options["seed"] is None and options["deck"] == "shuffled"
    assert options["db"] == "evolution.sqlite" and not options["send-scores"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "2-8"], "--players 2-8: a game needs between 3 and 8 players"),
        (["--players", "5-4"], "MIN <= MAX"),
        (["--players", "many"], "--players takes MIN-MAX, such as 3-8, not 'many'"),
        (["--timeout", "0"], "--timeout must be more than 0 seconds"),
        (["--timeout", "soon"], "--timeout takes a number of seconds, not 'soon'"),
        (["--games", "0"], "--games must be at least 1"),
        (["--seed", "x"], "--seed takes a whole number"),
        (["--deck", "random"], "--deck takes shuffled or sorted"),
        (["--deck", "sorted", "--seed", "3"], "cannot go with --deck sorted"),
        (["--max-depth", "-1"], "--max-depth must be at least 1"),
        (["--port", "nonsense:1"], "--port 'nonsense:1' is not an endpoint such as tcp:45678"),
        (["--port", "tcp:http"], "--port 'tcp:http' is not an endpoint"),
    ],
)
def test_bad_options_are_explained(args, message):
    with pytest.raises(usage.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(*args)


def test_a_single_number_of_players_means_exactly_that_many():
    options = parse("--players", "5")
    assert (options["min_players"], options["max_players"]) == (5, 5)


def test_make_service_listens_on_the_endpoint_and_composes_small_services(tmp_path):
    reactor = MemoryReactorClock()
    options = parse("--port", "tcp:4567:interface=127.0.0.1", "--db", str(tmp_path / "r.sqlite"))
    top = makeService(options, reactor)
    kinds = sorted(type(child).__name__ for child in top)
    assert kinds == sorted([StoreService.__name__, LobbyService.__name__, ListeningService.__name__])
    assert issubclass(ListeningService, StreamServerEndpointService)
    top.startService()
    [(port, factory, _backlog, interface)] = reactor.tcpServers
    assert (port, interface) == (4567, "127.0.0.1")
    assert factory.config.min_players == 3
    top.stopService()
    assert (tmp_path / "r.sqlite").is_file()


def test_a_database_that_cannot_be_opened_is_a_usage_error(tmp_path):
    (tmp_path / "r.sqlite").write_text("garbage " * 200)
    with pytest.raises(usage.UsageError, match="cannot use the results database"):
        makeService(parse("--db", str(tmp_path / "r.sqlite")), MemoryReactorClock())
