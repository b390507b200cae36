"""The real thing: ``twistd evolution`` and ``evolution-client`` as separate processes on loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import unicodedata

import pytest

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess, free_port, run_clients, start_clients, twistd_command, wait_for_clients

pytestmark = pytest.mark.slow


def stored_games(db) -> list[dict]:
    result = subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--json"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout)


def test_three_and_eight_client_processes_play_full_games(tmp_path):
    # One host per size, each starting its game when its clients are all in (MIN = MAX): client
    # processes on a busy machine may sign up seconds apart, longer than any quiet window.
    hosts = {
        size: HostProcess(free_port(), tmp_path / f"{size}.sqlite", tmp_path / f"host{size}.log",
                          "--players", f"{size}-{size}", "--games", "1", "--deck", "sorted")
        for size in (3, 8)
    }
    try:
        for host in hosts.values():
            host.wait_until_listening()
        clients = {size: start_clients(host.port, [f"p{size}-{i}" for i in range(size)]) for size, host in hosts.items()}
        results = [result for size in hosts for result in wait_for_clients(clients[size], 120)]
        assert [host.wait(120) for host in hosts.values()] == [0, 0]
    finally:
        for host in hosts.values():
            host.stop()
    assert [r.returncode for r in results] == [0] * 11, [r.stderr for r in results]
    games = [game for size in hosts for game in stored_games(tmp_path / f"{size}.sqlite")]
    assert [len(game["players"]) for game in games] == [3, 8]
    for game, size in zip(games, (3, 8)):
        assert game["outcome"] == "finished"
        assert game["deck"] == "sorted" and game["seed"] is None
        local = play_local_game([SillyPlayer() for _ in range(size)], Deck.sorted())
        expected = {entry.id: (entry.rank, entry.score) for entry in local.ranking}
        assert {p["seat"]: (p["rank"], p["score"]) for p in game["players"]} == expected
        assert game["turns"] == local.turns


def test_a_client_with_no_host_says_so_and_fails(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(free_port()), "--retries", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert "cannot connect to 127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_already_taken_stops_the_host_with_one_sentence(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = HostProcess(port, tmp_path / "r.sqlite", tmp_path / "host.log")
        assert host.wait(limit=30) == 1
    log = (tmp_path / "host.log").read_text()
    assert f"twistd evolution: cannot listen on --port tcp:{port}:interface=127.0.0.1: [Errno 98]" in log
    assert "Traceback" not in log


def test_a_host_process_s_refusal_to_start_can_go_to_a_file_of_its_own(tmp_path):
    # HostProcess(errors=...): the resume soak shows why a host it started again would not go on.
    host = HostProcess(free_port(), tmp_path / "r.sqlite", tmp_path / "host.log", "--timeout", "inf",
                       errors=tmp_path / "host.errors")
    assert host.wait(limit=30) == 2
    assert (tmp_path / "host.errors").read_text().startswith("twistd evolution: --timeout must be 0.01 to 3600 seconds")


@pytest.mark.parametrize("workers", ["0", "2"])  # the web view in the host's process, or in one of its own
def test_a_web_port_already_taken_is_named_as_the_web_view_s(tmp_path, workers):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        web = taken.getsockname()[1]
        host = HostProcess(free_port(), tmp_path / "r.sqlite", tmp_path / "host.log", "--workers", workers,
                           "--web", f"tcp:{web}:interface=127.0.0.1")
        assert host.wait(limit=30) == 1
    log = (tmp_path / "host.log").read_text()
    assert f"twistd evolution: cannot listen on --web tcp:{web}:interface=127.0.0.1: [Errno 98]" in log


def test_the_host_says_where_it_listens_and_that_every_interface_is_every_interface(tmp_path):
    port, web = free_port(), free_port()
    output = tmp_path / "shown.txt"
    with output.open("w") as terminal:
        host = twistd_as_typed(tmp_path, "-n", "--pidfile=", "evolution", "--port", f"tcp:{port}", "--db",
                               "r.sqlite", "--web", f"tcp:{web}:interface=127.0.0.1", stdout=terminal,
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and host.poll() is None:
            shown = output.read_text()
            if "the web view listens" in shown and "the host listens" in shown:
                break
            time.sleep(0.1)
    finally:
        host.terminate()
        host.wait(timeout=60)
    shown = output.read_text()
    assert (f"the host listens for bots on port {port} of every IPv4 interface (0.0.0.0) (--port tcp:{port}): other "
            f"machines can connect; add :interface=127.0.0.1 to --port's endpoint to keep it to this one") in shown
    assert f"the web view listens on 127.0.0.1 port {web} (--web tcp:{web}:interface=127.0.0.1)" in shown


def twistd(cwd, *args: str, hide_openssl: bool = False) -> subprocess.CompletedProcess:
    """``twistd -n evolution ARGS``, to its end; with ``hide_openssl``, as if pyOpenSSL were not installed."""
    command = twistd_command()
    if hide_openssl:
        command = [sys.executable, "-c", f"{HIDE_OPENSSL}; from twisted.scripts.twistd import run; run()"]
    return subprocess.run([*command, "--nodaemon", "--pidfile=", "evolution", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd, stdin=subprocess.DEVNULL)


HIDE_OPENSSL = "import sys; sys.modules['OpenSSL'] = None"
HELP = " (see twistd evolution --help)"


@pytest.mark.parametrize(
    "args, status, line",
    [
        (["--port", "tcp:99999"], 2,
         "--port 'tcp:99999' is not an endpoint such as tcp:45678: the port must be 0 to 65535, not 99999" + HELP),
        (["--port", "tcp:-1"], 2,
         "--port 'tcp:-1' is not an endpoint such as tcp:45678: the port must be 0 to 65535, not -1" + HELP),
        (["--timeout", "inf"], 2, "--timeout must be 0.01 to 3600 seconds, not 'inf'" + HELP),
        (["--max-message", "1"], 2, "--max-message must be at least 1024 (allowed: 1024 to 67108864)" + HELP),
        (["--port", "ssl:0:privateKey=missing.pem"], 1,
         "--port 'ssl:0:privateKey=missing.pem': cannot read {cwd}/missing.pem: No such file or directory"),
        (["--port", "unix:/missing/dir/s"], 1, "cannot listen on --port unix:/missing/dir/s: No such file or directory"),
        (["--port", "tcp:abc"], 2,
         "--port 'tcp:abc' is not an endpoint such as tcp:45678: the port must be a whole number, not 'abc'" + HELP),
        (["--port", "tcp:0:backlog=many"], 2, "--port 'tcp:0:backlog=many' is not an endpoint such as tcp:45678: "
         "the backlog must be a whole number, not 'many'" + HELP),
        (["--tournament", "knockout", "--final-tiebreak", "toss"], 2,
         "--final-tiebreak takes co-winners or playoff, not 'toss'" + HELP),
        (["--tournament", "swiss", "--final-tiebreak", "playoff"], 2,
         "--final-tiebreak goes with --tournament knockout (only a knockout has a final)" + HELP),
        (["--port", "tcp:0:bogus=1"], 2,
         "--port 'tcp:0:bogus=1' is not an endpoint such as tcp:45678: a tcp: endpoint takes no option bogus=" + HELP),
        (["--db", ""], 2, "--db takes the path of a file, such as results.sqlite, not an empty name" + HELP),
    ],
)
def test_a_start_up_problem_is_one_line_on_stderr(tmp_path, args, status, line):
    result = twistd(tmp_path, "--db", "r.sqlite", *args)
    assert (result.returncode, result.stderr) == (status, f"twistd evolution: {line.format(cwd=tmp_path)}\n")


def twistd_as_typed(cwd, *args: str, **popen: object) -> subprocess.Popen:
    """``twistd ARGS`` as a user types it: twistd's own options (no -n, no --pidfile= unless given)."""
    return subprocess.Popen([*twistd_command(), *args], cwd=cwd, stdin=subprocess.DEVNULL, text=True, **popen)


def test_without_n_the_host_refuses_to_go_into_the_background_in_one_line(tmp_path):
    pid_file = tmp_path / "host.pid"
    host = twistd_as_typed(tmp_path, f"--pidfile={pid_file}", "evolution", "--port", "tcp:0:interface=127.0.0.1",
                           "--db", "r.sqlite", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = host.communicate(timeout=60)
    finally:
        if pid_file.is_file():  # it went into the background after all: stop it
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
    assert (host.returncode, out) == (2, "")
    assert err == ("twistd evolution: the host runs in the foreground only: twistd -n evolution ... (keep it "
                   "running with nohup, tmux or a service manager)" + HELP + "\n")


def test_a_second_host_in_the_same_folder_is_refused_in_one_line(tmp_path):
    first = twistd_as_typed(tmp_path, "-n", "--logfile=first.log", "evolution", "--port", "tcp:0:interface=127.0.0.1",
                            "--db", "r.sqlite")
    try:
        while not (tmp_path / "twistd.pid").is_file():
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            time.sleep(0.05)
        second = twistd_as_typed(tmp_path, "-n", "evolution", "--port", "tcp:0:interface=127.0.0.1", "--db", "s.sqlite",
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = second.communicate(timeout=60)
    finally:
        first.terminate()
        first.wait(timeout=30)
    assert (second.returncode, out) == (1, "")
    assert err == (f"twistd evolution: another process ({first.pid}) holds the pid file {tmp_path}/twistd.pid: give "
                   "this host its own (twistd -n --pidfile=host2.pid evolution ...) or none (twistd -n --pidfile= "
                   "evolution ...)\n")


def test_version_names_the_host_and_twisted(tmp_path):
    import twisted
    from evolution import __version__

    result = subprocess.run([*twistd_command(), "evolution", "--version"], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (f"twistd evolution (evolution-host) {__version__}; Twisted {twisted.__version__}, "
                             f"Python {sys.version.split()[0]}\n")


def test_a_port_clash_is_said_once_on_a_terminal_that_shows_the_log(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = twistd_as_typed(tmp_path, "-n", "--pidfile=", "evolution", "--port", f"tcp:{port}:interface=127.0.0.1",
                               "--db", "r.sqlite", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        shown, _ = host.communicate(timeout=60)
    assert host.returncode == 1
    assert shown.count("cannot listen on") == 1, shown
    assert f"twistd evolution: cannot listen on --port tcp:{port}:interface=127.0.0.1: [Errno 98]" in shown


def test_a_strategy_that_is_not_a_player_is_one_line_and_status_2():
    for strategy, line in [
        ("os:path", "strategy 'os:path' is a module, not a class"),
        ("collections:OrderedDict", "strategy 'collections:OrderedDict' is no player: it has no start, choose, "
         "feed_next"),
    ]:
        result = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_client", "--strategy", strategy],
                                capture_output=True, text=True, timeout=60)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == f"evolution-client: error: {line} (see --help)\n"


def test_a_results_database_that_cannot_be_opened_is_one_line_and_status_1(tmp_path):
    result = twistd(tmp_path, "--port", "tcp:0", "--db", str(tmp_path))  # a folder
    assert result.returncode == 1
    assert result.stderr.startswith(f"twistd evolution: the results database {tmp_path} is a folder, not a file")
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_two_hosts_started_at_once_on_a_new_db_one_runs_and_the_other_says_why_in_one_line(tmp_path):
    # Two hosts on one store would give out the same game ids: the second waits 5 s for the
    # first's lock, then stops with one line (before, one of them sometimes stopped with
    # "table version already exists", or both ran).
    db, ports = tmp_path / "r.sqlite", [free_port(), free_port()]
    hosts = [
        subprocess.Popen(
            [*twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={tmp_path / f'host{k}.log'}", "evolution",
             "--port", f"tcp:{port}:interface=127.0.0.1", "--db", str(db)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for k, port in enumerate(ports)
    ]
    try:
        deadline = time.monotonic() + 60
        while all(host.poll() is None for host in hosts) and time.monotonic() < deadline:
            time.sleep(0.05)
        [loser] = [host for host in hosts if host.poll() is not None]
        [(winner, port)] = [(host, port) for host, port in zip(hosts, ports) if host is not loser]
        assert loser.communicate(timeout=30) == ("", (
            f"twistd evolution: the results database {db} is in use by another host (or by the store process of"
            " one that stopped and is still writing); give each host its own --db\n"
        ))
        assert loser.returncode == 1
        socket.create_connection(("127.0.0.1", port), timeout=30).close()  # the other one runs
    finally:
        for host in hosts:
            host.terminate()
            host.communicate(timeout=30)
    store = ResultsStore.open(db)
    assert store.next_ids() == (1, 1)
    store.close()


def test_ssl_without_pyopenssl_says_what_to_install(tmp_path):
    result = twistd(tmp_path, "--db", "r.sqlite", "--port", "ssl:0:privateKey=key.pem", hide_openssl=True)
    assert result.returncode == 1
    assert result.stderr == (
        "twistd evolution: --port 'ssl:0:privateKey=key.pem': "
        "TLS needs pyOpenSSL and service-identity: pip install 'evolution-host[tls]'\n"
    )


def test_a_client_asked_for_tls_without_pyopenssl_says_what_to_install():
    code = f"{HIDE_OPENSSL}; from evolution.cli.evolution_client import main; main()"
    result = subprocess.run([sys.executable, "-c", code, "--tls", "--name", "b"], capture_output=True, text=True,
                            timeout=60)
    assert (result.returncode, result.stderr) == (
        1, "evolution-client 'b': TLS needs pyOpenSSL and service-identity: pip install 'evolution-host[tls]'\n"
    )


def signed_up(port: int, name: str) -> socket.socket:
    """A silent player: signs up, then never answers."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(json.dumps(name).encode() + b"\n")
    return connection


def wait_for_start(connection: socket.socket) -> None:
    """Read "ok" and the first start message: the game has begun."""
    received = b""
    while received.count(b"\n") < 2:
        data = connection.recv(65536)
        assert data, f"the host hung up: {received!r}"
        received += data


def start_stuck_game(tmp_path) -> tuple[HostProcess, subprocess.Popen, list[socket.socket]]:
    """A host with one game that cannot go on: an evolution-client process and two silent players."""
    port = free_port()
    host = HostProcess(port, tmp_path / "r.sqlite", tmp_path / "host.log",
                       "--players", "3-3", "--games", "1", "--timeout", "60", "--deck", "sorted")
    host.wait_until_listening()
    client = subprocess.Popen([sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(port), "--name", "bot"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    silent = [signed_up(port, f"silent {i}") for i in range(2)]
    for connection in silent:
        wait_for_start(connection)
    return host, client, silent


def test_sigterm_stops_a_client_in_a_game_with_a_message_and_status_1(tmp_path):
    host, client, silent = start_stuck_game(tmp_path)
    try:
        client.send_signal(signal.SIGTERM)
        out, err = client.communicate(timeout=30)
    finally:
        client.kill()
        host.stop()
        for connection in silent:
            connection.close()
    assert client.returncode == 1
    assert out == ""
    assert err == "evolution-client 'bot': stopped before the game ended\n"


def test_sigterm_stops_the_host_cleanly_and_stores_the_running_game_as_aborted(tmp_path):
    host, client, silent = start_stuck_game(tmp_path)
    try:
        host.process.send_signal(signal.SIGTERM)
        assert host.wait(limit=30) == -signal.SIGTERM  # twistd ends by the signal it was stopped with
        client.communicate(timeout=30)
    finally:
        client.kill()
        host.stop()
        for connection in silent:
            connection.close()
    log = (tmp_path / "host.log").read_text()
    assert "Traceback" not in log and "ReactorNotRunning" not in log
    assert "over; stopping" not in log
    [game] = stored_games(tmp_path / "r.sqlite")
    assert game["outcome"] == "aborted: the host stopped"


def test_the_client_prints_what_a_host_sends_escaped():
    nasty = "\x1b[2J\x07\x9b\u2028\u202e"
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        client = subprocess.Popen(
            [sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(server.getsockname()[1]), "--name", nasty],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        connection, _ = server.accept()
        with connection:
            connection.recv(1024)
            board = [["food", 0], ["body", 0], ["population", 1], ["traits", [nasty]]]
            start = json.dumps([0, 0, [board], []], ensure_ascii=False)  # a trait the client must quote
            connection.sendall(b'"ok"\n' + start.encode() + b"\n")
            out, err = client.communicate(timeout=30)
    assert client.returncode == 1 and out == ""
    assert err.startswith("evolution-client '\\x1b[2J\\x07\\x9b\\u2028\\u202e': the host sent an invalid start message")
    assert "\\u202e" in err
    assert [char for char in err[:-1] if unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}] == []


def test_client_processes_play_the_seed_002_dialect(tmp_path):
    db = tmp_path / "results.sqlite"
    port = free_port()
    host = HostProcess(port, db, tmp_path / "host.log", "--dialect", "seed002", "--players", "3-3", "--games", "1")
    try:
        host.wait_until_listening()
        clients = run_clients(port, ["Hello", "Hello", "Hello"], 60.0, "--dialect", "seed002")
        assert host.wait() == 0
    finally:
        host.stop()
    assert [client.returncode for client in clients] == [0, 0, 0], [client.stderr for client in clients]
    [game] = stored_games(db)
    assert game["outcome"] == "finished" and all(seat["rank"] for seat in game["players"])


def test_a_second_host_of_the_same_name_on_a_shared_store_is_refused_in_one_line(tmp_path):
    # A host's start stores the games its name left running as aborted: a second host of that name (on another
    # machine: here another folder) would abort the first's games. It is refused; another name is welcome.
    from tests.support.postgres import database_url

    url = database_url("same_name")

    def host(folder_name, host_name):
        folder, port = tmp_path / folder_name, free_port()
        folder.mkdir()
        return HostProcess(port, url, folder / "host.log", "--host-name", host_name, "--journal",
                           str(folder / "host.pending"))

    first = host("a", "lab3")
    try:
        first.wait_until_listening(60)
        second = subprocess.run(
            [*twistd_command(), "--nodaemon", "--pidfile=", "evolution", "--port", "tcp:0:interface=127.0.0.1",
             "--db", url, "--host-name", "lab3"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=tmp_path, timeout=60,
        )
        assert (second.returncode, second.stdout, second.stderr) == (1, "", (
            f"twistd evolution: another host named 'lab3' is using the results database {url}: each host that "
            "shares it needs a name of its own (--host-name)\n"))
        third = host("c", "lab4")
        try:
            third.wait_until_listening(60)
        finally:
            third.stop()
    finally:
        first.stop()


def test_a_host_s_whole_log_reads_the_parts_twistd_rotated_away_first(tmp_path):
    from twisted.python.logfile import LogFile

    from evolution.testing import whole_log

    log = LogFile.fromFullPath(str(tmp_path / "host.log"), rotateLength=20)  # twistd's, rotated much sooner
    lines = [f"line {k:02} of the host's log\n" for k in range(12)]
    for line in lines:
        log.write(line)
    log.close()
    (tmp_path / "host.log.old").write_text("not one of twistd's parts\n")
    assert len(list(tmp_path.glob("host.log.*"))) == 12  # host.log.10 was written before host.log.9
    assert whole_log(tmp_path / "host.log") == "".join(lines)
