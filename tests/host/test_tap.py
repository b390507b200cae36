"""``twistd evolution``'s options and the service it builds."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from twisted.application.internet import StreamServerEndpointService
from twisted.internet.testing import MemoryReactorClock
from twisted.python import usage
from twisted.scripts.twistd import ServerOptions

from evolution.host.tap import _at_the_end, makeService
from evolution.host.wiring import SPARE_FILES, LobbyService, Options, StartupError, StoreService
from evolution.net.endpoints import LISTEN_BACKLOG, ListeningService


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
        (["--max-depth", "-1"], "--max-depth must be at least 3 (allowed: 3 to 512)"),
        (["--port", "nonsense:1"], "--port 'nonsense:1' is not an endpoint such as tcp:45678"),
        (["--port", "tcp:http"], "--port 'tcp:http' is not an endpoint"),
        (["--accounts", "strict"], "--accounts takes open, roster, closed, not 'strict'"),
        (["--proxy-from", "10.0.0.0/8"], "--proxy-from goes with --proxy-protocol"),
        (["--proxy-protocol", "--proxy-from", "lb"], "--proxy-from: 'lb' is not an address or a prefix"),
        (["--accounts", "roster", "--proxy-protocol"], "--accounts roster with --proxy-protocol needs --proxy-from: "
         "the balancer's addresses, such as 10.0.0.5"),
        (["--accounts", "closed", "--proxy-protocol"], "--accounts closed with --proxy-protocol needs --proxy-from"),
    ],
)
def test_bad_options_are_explained(args, message):
    with pytest.raises(usage.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(*args)


def test_accounts_behind_a_balancer_believe_only_the_balancers_headers():
    options = parse("--accounts", "roster", "--proxy-protocol", "--proxy-from", "10.0.0.5, ::ffff:10.0.1.0/120")
    assert [str(prefix) for prefix in options["proxy-from"]] == ["10.0.0.5/32", "10.0.1.0/24"]
    assert parse("--proxy-protocol")["proxy-from"] is None  # an open host: a header from any peer, as before
    resumed = parse("--resume", "last", "--proxy-protocol")  # the tournament stored --accounts closed
    with pytest.raises(StartupError, match="--accounts closed with --proxy-protocol needs --proxy-from"):
        resumed.resumed({"game": "evolution", "accounts": "closed"})


def test_a_single_number_of_players_means_exactly_that_many():
    options = parse("--players", "5")
    assert (options["min_players"], options["max_players"]) == (5, 5)


def test_make_service_listens_on_the_endpoint_and_composes_small_services(tmp_path):
    reactor = MemoryReactorClock()
    options = parse("--port", "tcp:4567:interface=127.0.0.1", "--db", str(tmp_path / "r.sqlite"))
    top = makeService(options, reactor)
    kinds = sorted(type(child).__name__ for child in top)
    assert kinds == sorted([StoreService.__name__, LobbyService.__name__, ListeningService.__name__,
                            "ConsoleService"])  # the drain on SIGUSR1; with --admin, the operator port
    assert issubclass(ListeningService, StreamServerEndpointService)
    top.startService()
    [(port, factory, _backlog, interface)] = reactor.tcpServers
    assert (port, interface) == (4567, "127.0.0.1")
    assert factory.config.min_players == 3
    top.stopService()
    assert (tmp_path / "r.sqlite").is_file()


@pytest.mark.parametrize(
    "make_db, says",
    [
        (lambda folder: folder, "the results database {db} is a folder, not a file"),
        (lambda folder: garbage(folder / "r.sqlite"), "cannot use the results database {db}: it is not an SQLite"),
        (lambda folder: folder / "missing" / "r.sqlite", "the results database {db} cannot be created: the folder"),
    ],
    ids=["a folder", "random bytes", "a missing folder"],
)
def test_a_database_that_cannot_be_opened_ends_the_start_with_one_line_and_status_1(tmp_path, capsys, make_db, says):
    db = make_db(tmp_path)
    options = parse("--db", str(db))
    with pytest.raises(SystemExit) as stop:
        makeService(options, MemoryReactorClock())
    assert stop.value.code == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("twistd evolution: " + says.format(db=db))


def garbage(path: Path) -> Path:
    path.write_text("garbage " * 200)
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--timeout", "inf"], "--timeout must be 0.01 to 3600 seconds, not 'inf'"),
        (["--timeout", "nan"], "--timeout must be 0.01 to 3600 seconds, not 'nan'"),
        (["--timeout", "1e-300"], "--timeout must be 0.01 to 3600 seconds, not '1e-300'"),
        (["--signup-timeout", "-inf"], "--signup-timeout must be more than 0 seconds (allowed: 0.01 to 3600)"),
        (["--signup-window", "inf"], "--signup-window must be 0.01 to 3600 seconds, not 'inf'"),
        (["--number-grace", "2"], "--number-grace must be 0.001 to 1 seconds, not '2'"),
        (["--number-grace", "0.5", "--timeout", "0.5"], "--number-grace must be shorter than --timeout"),
        (["--max-message", "1"], "--max-message must be at least 1024 (allowed: 1024 to 67108864)"),
        (["--max-connections", "7"], "--max-connections must be at least 8 (allowed: 8 to 1000000)"),
        (["--max-connections", "10000001"], "--max-connections must be at most 1000000"),
        (["--games", "1e3"], "--games takes a whole number, not '1e3'"),
        (["--games", "9" * 5000], "--games takes a whole number, not '99999"),
        (["--seed", "-1"], "--seed must be at least 0 (allowed: 0 to 9007199254740991)"),
        (["--seed", str(2**53)], "--seed must be at most 9007199254740991"),
        (["--players", "\x1b[2J"], "--players takes MIN-MAX, such as 3-8, not '\\\\x1b[2J'"),
        (["--port", "tcp:99999"], "--port 'tcp:99999' is not an endpoint such as tcp:45678: "
                                  "the port must be 0 to 65535, not 99999"),
        (["--port", "tcp:-1"], "--port 'tcp:-1' is not an endpoint such as tcp:45678: "
                               "the port must be 0 to 65535, not -1"),
        (["--port", "tcp:45678:backlog=0"], "the backlog must be 1 to 65535, not 0"),
    ],
)
def test_every_number_and_endpoint_has_a_finite_range(args, message):
    with pytest.raises(usage.UsageError) as error:
        parse(*args)
    assert message in str(error.value)
    assert len(str(error.value)) < 200


def test_every_range_is_in_the_help():
    help_text = " ".join(str(Options()).split())
    parts = ("(0.01 to 3600)", "(0.001 to 1)", "(1024 to 67108864)", "(3 to 512)", "(8 to 1000000)", "backlog 1024")
    for part in parts:
        assert part in help_text


@pytest.mark.parametrize(
    "args, line",
    [
        (["--timeout", "inf"], "--timeout must be 0.01 to 3600 seconds, not 'inf' (see twistd evolution --help)"),
        (["--bogus"], "option --bogus not recognized (see twistd evolution --help)"),
        (["--port", "unix:/x:backlog=-5"], "--port 'unix:/x:backlog=-5' is not an endpoint such as tcp:45678: "
                                          "the backlog must be 1 to 65535, not -5 (see twistd evolution --help)"),
    ],
)
def test_under_twistd_a_usage_error_is_one_line_and_status_2(capsys, args, line):
    with pytest.raises(SystemExit) as stop:
        ServerOptions().parseOptions(["evolution", *args])  # twistd's own parser finds the plugin
    assert stop.value.code == 2
    assert capsys.readouterr() == ("", f"twistd evolution: {line}\n")


def test_a_certificate_that_cannot_be_read_is_a_start_up_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        ServerOptions().parseOptions(["evolution", "--port", f"ssl:0:privateKey={tmp_path}/none.pem"])
    assert stop.value.code == 1
    assert capsys.readouterr().err == (
        f"twistd evolution: --port 'ssl:0:privateKey={tmp_path}/none.pem': "
        f"cannot read {tmp_path}/none.pem: No such file or directory\n"
    )


@pytest.mark.parametrize(
    "port, backlog",
    [("tcp:4567", LISTEN_BACKLOG), ("tcp:4567:backlog=77", 77), ("tcp:backlog=5000:port=4567", 5000)],
)
def test_the_listen_backlog_is_deep_unless_the_endpoint_sets_one(tmp_path, port, backlog):
    reactor = MemoryReactorClock()
    top = makeService(parse("--port", port, "--db", str(tmp_path / "r.sqlite")), reactor)
    top.privilegedStartService()
    [(number, _factory, got, _interface)] = reactor.tcpServers
    assert (number, got) == (4567, backlog)
    top.stopService()


def test_the_open_file_limit_is_raised_to_fit_max_connections():
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    code = ("import resource; from evolution.host.wiring import allow_open_files; "
            "allow_open_files(1000); print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
    )
    wanted = 1000 + SPARE_FILES
    assert int(result.stdout) == (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard))


@pytest.mark.parametrize("web, linger, stops_after", [(False, None, 0.0), (True, None, None), (True, 2.0, 2.0)])
def test_after_the_last_game_a_host_with_a_web_view_stays_up_until_stopped_or_linger(web, linger, stops_after):
    clock = MemoryReactorClock()
    stopped: list[float] = []
    clock.stop = lambda: stopped.append(clock.seconds())
    _at_the_end(clock, web, linger)()
    for _ in range(40):
        clock.advance(0.1)
    clock.advance(3600)
    if stops_after is None:
        assert stopped == []
    else:
        [when] = stopped
        assert stops_after <= when <= stops_after + 0.11


def test_the_log_names_the_results_store_at_start_never_its_password(tmp_path):
    from twisted.logger import formatEvent, globalLogPublisher

    from evolution.store.postgres import shown

    lines: list[str] = []

    def heard(event: dict) -> None:
        lines.append(formatEvent(event))

    globalLogPublisher.addObserver(heard)
    try:
        top = makeService(parse("--port", "tcp:4568:interface=127.0.0.1", "--db", str(tmp_path / "r.sqlite"),
                                "--host-name", "lab1"), MemoryReactorClock())
        top.startService()
        top.stopService()
    finally:
        globalLogPublisher.removeObserver(heard)
    said = [line for line in lines if line.startswith("the results store: ")]
    assert said == [f"the results store: {tmp_path / 'r.sqlite'} (journal {tmp_path / 'r.sqlite.pending'}); this "
                    "host is lab1"]
    assert shown("postgresql://evolution:s3cret@db.lab:5432/evolution") == \
        "postgresql://evolution:***@db.lab:5432/evolution"
