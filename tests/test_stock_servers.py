"""The throw-away stock servers: a PostgreSQL cluster and HAProxy, each in a folder of its own on loopback,
stopped by its process id; and the one line that says what to install where one is missing."""

from __future__ import annotations

import socket
import struct
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
def test_the_balancer_sends_each_connection_to_a_host_with_the_clients_address_in_a_proxy_header(tmp_path):
    with socket.socket() as host:
        host.bind(("127.0.0.1", 0))
        host.listen(8)
        balancer = Balancer(tmp_path / "haproxy", free_port(), [("127.0.0.1", host.getsockname()[1])])
        config = balancer.configuration()
        assert "balance leastconn" in config and "send-proxy-v2" in config and "mode tcp" in config
        balancer.start()
        try:
            host.settimeout(10)
            probe, _ = host.accept()  # the balancer's own check that it listens, passed on
            probe.close()
            with socket.create_connection(("127.0.0.1", balancer.port), source_address=("127.0.0.9", 0)) as bot:
                bot.sendall(b'"bot"\n')
                bot_port = bot.getsockname()[1]
                connection, _ = host.accept()
                with connection:
                    connection.settimeout(10)
                    header = b""
                    while len(header) < 16 + 12 + len(b'"bot"\n'):
                        header += connection.recv(4096)
            assert header.startswith(b"\r\n\r\n\x00\r\nQUIT\n\x21\x11")
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
