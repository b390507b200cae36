"""The throw-away stock servers: a PostgreSQL cluster and HAProxy, each in a folder of its own on loopback,
stopped by its process id; and the one line that says what to install where one is missing."""

from __future__ import annotations

import socket
import struct
import time
from pathlib import Path

import pytest

from evolution.stock_servers import Balancer, PostgresCluster, haproxy_missing, postgres_missing
from evolution.testing import free_port


def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


@pytest.mark.skipif(postgres_missing() is not None, reason=postgres_missing() or "")
def test_a_cluster_starts_in_its_folder_serves_a_new_database_and_stops_by_its_process_id():
    import psycopg

    cluster = PostgresCluster()  # a new folder of the machine's temporary ones (run as root: one postgres can enter)
    try:
        cluster.start()
        pid = cluster.pid
        url = cluster.create("results")
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT current_database(), current_setting('fsync')").fetchone() == (
                "results", "off")
        assert (cluster.folder / "server.log").is_file()
    finally:
        cluster.remove()
    assert pid is not None and _gone(pid)
    assert not cluster.folder.exists()


@pytest.mark.skipif(haproxy_missing() is not None, reason=haproxy_missing() or "")
def _first_bytes(connection: socket.socket, count: int, deadline: float) -> bytes:
    """Up to ``count`` bytes of ``connection``: fewer if it ends first (or the deadline passes)."""
    data = b""
    while len(data) < count:
        connection.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            more = connection.recv(count - len(data))
        except (TimeoutError, ConnectionResetError):  # a health check's connection may end with a reset
            break
        if not more:
            break
        data += more
    return data


def test_the_balancer_sends_each_connection_to_a_host_with_the_clients_address_in_a_proxy_header(tmp_path):
    # Besides the bot's connection, HAProxy makes its own, its health checks (with a header that names HAProxy's
    # own address): the host here is a plain socket, which passes over them to the bot's.
    with socket.socket() as host:
        host.bind(("127.0.0.1", 0))
        host.listen(8)
        balancer = Balancer(tmp_path / "haproxy", free_port(), [("127.0.0.1", host.getsockname()[1])])
        config = balancer.configuration()
        assert "balance leastconn" in config and "send-proxy-v2" in config and "mode tcp" in config
        assert "check" in config and "option redispatch" in config
        balancer.start()
        try:
            deadline = time.monotonic() + 30
            with socket.create_connection(("127.0.0.1", balancer.port), source_address=("127.0.0.9", 0)) as bot:
                bot.sendall(b'"bot"\n')
                bot_port = bot.getsockname()[1]
                header = b""
                while header[16:20] != socket.inet_aton("127.0.0.9"):  # the bot's, not one of HAProxy's checks
                    assert time.monotonic() < deadline, f"no connection with the bot's header: {header!r}"
                    host.settimeout(max(0.01, deadline - time.monotonic()))
                    connection, _ = host.accept()
                    with connection:
                        header = _first_bytes(connection, 16 + 12 + len(b'"bot"\n'), min(deadline, time.monotonic() + 5))
            assert header[12:14] == b"\x21\x11"  # version 2, PROXY; TCP over IPv4
            source = socket.inet_ntoa(header[16:20])
            assert (source, struct.unpack("!H", header[24:26])[0]) == ("127.0.0.9", bot_port)
            assert header.endswith(b'"bot"\n')
            pid = balancer.process.pid
        finally:
            balancer.stop()
    assert _gone(pid)


def test_what_is_missing_is_said_in_one_line_with_what_to_install(monkeypatch):
    monkeypatch.setattr("evolution.stock_servers._haproxy", lambda: None)
    assert haproxy_missing() == "HAProxy is not installed here (Debian: apt-get install haproxy)"
