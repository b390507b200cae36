# -*- test-case-name: tests.test_stock_servers -*-
"""Throw-away stock servers on loopback, for the tests, the benchmarks and ``make demo-cluster``.

Offers ``PostgresCluster(folder)`` (the machine's PostgreSQL: ``initdb`` and
``pg_ctl`` in a folder of its own, a loopback port and a socket folder of its
own; as root, run as the user ``postgres``; ``start()``, ``stop()`` by its
process id, ``url(database)``, ``create(database)``), ``Balancer(folder,
port, hosts)`` (HAProxy in TCP mode from a generated configuration, sending
each host the PROXY header: ``start()``, ``stop()`` by its process id) and
``HostGroup(folder, count, options)`` (both, with ``count`` hosts between
them on 127.0.0.2, .3, ...) and ``postgres_missing()`` / ``haproxy_missing()``:
what to install, or None.
How to run the real ones on several machines: docs/deploy.md.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Mapping, Sequence

from evolution.testing import HostProcess, free_port, whole_log

USER = "evolution"
INSTALL = "Debian: apt-get install postgresql haproxy"


def _postgres_binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def postgres_missing() -> str | None:
    """Why no throw-away PostgreSQL cluster can start here (what to install), or None."""
    if _postgres_binaries() is None:
        return "PostgreSQL is not installed here (Debian: apt-get install postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed here (pip install 'evolution-host[postgresql]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, PostgreSQL runs as the user postgres, which this machine has not"
    return None


def _haproxy() -> str | None:
    found = shutil.which("haproxy")
    return found or next((path for path in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(path, os.X_OK)),
                         None)


def haproxy_missing() -> str | None:
    """Why no HAProxy can start here (what to install), or None."""
    return None if _haproxy() else "HAProxy is not installed here (Debian: apt-get install haproxy)"


def _wait_gone(pid: int, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    if Path(f"/proc/{pid}").exists():
        os.kill(pid, signal.SIGKILL)


class PostgresCluster:
    """One PostgreSQL cluster in ``folder``, on a port of its own; trust authentication, on loopback only.

    ``durable`` keeps PostgreSQL's own settings (``fsync``, ``synchronous_commit=on``), as a deployment would;
    without it ``fsync=off``, which the tests may take: they lose nothing to a crash of the machine.
    """

    def __init__(self, folder: Path | None = None, durable: bool = False) -> None:
        why = postgres_missing()
        if why is not None:
            raise RuntimeError(why)
        self.folder = Path(folder or tempfile.mkdtemp(prefix="evolution-postgresql-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.data = self.folder / "data"
        self.port = free_port()
        self.pid: int | None = None
        self.durable = durable
        self.bin = _postgres_binaries()
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8", "--no-sync")

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                              cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
        return done

    def start(self) -> None:
        settings = ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
        if not self.durable:
            settings += ["-c", "fsync=off"]
        options = " ".join(["-p", str(self.port), "-k", str(self.folder), *settings])
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "server.log"), "-w",
                  "-t", "120", "start")
        self.pid = int((self.data / "postmaster.pid").read_text().split()[0])

    def stop(self, limit: float = 60.0) -> None:
        """Stop the server by its process id (a fast shutdown), and wait until it has ended."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return
        _wait_gone(pid, limit)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create(self, database: str) -> str:
        """A new, empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{database}"')
        return self.url(database)


class Balancer:
    """HAProxy on ``127.0.0.1:port``, in TCP mode, spreading connections over ``hosts`` ((address, port) each) by
    ``leastconn``, each with the PROXY header (v2), each checked every 2 s (a host down is left out; a connection
    it refused goes to another); its log in the folder. The settings docs/deploy.md explains."""

    def __init__(self, folder: Path, port: int, hosts: Sequence[tuple[str, int]], address: str = "127.0.0.1") -> None:
        why = haproxy_missing()
        if why is not None:
            raise RuntimeError(why)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port, self.address, self.hosts = port, address, list(hosts)
        self.config = self.folder / "haproxy.cfg"
        self.log = self.folder / "haproxy.log"
        self.process: subprocess.Popen | None = None

    def configuration(self) -> str:
        servers = "".join(f"    server host{number} {address}:{port} send-proxy-v2 check inter 2s\n"
                          for number, (address, port) in enumerate(self.hosts, start=1))
        return (
            "defaults\n    mode tcp\n    retries 3\n    option redispatch\n    timeout connect 5s\n"
            "    timeout client 1h\n    timeout server 1h\n\n"
            f"frontend bots\n    bind {self.address}:{self.port}\n    default_backend hosts\n\n"
            f"backend hosts\n    balance leastconn\n{servers}"
        )

    def start(self, limit: float = 30.0) -> None:
        self.config.write_text(self.configuration(), encoding="utf-8")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([_haproxy() or "haproxy", "-db", "-f", str(self.config)], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.log.read_text(errors="replace").strip().splitlines()[-1:]
                raise RuntimeError(f"haproxy exited with status {self.process.returncode}: {' '.join(said)}")
            try:
                socket.create_connection((self.address, self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"haproxy did not listen on {self.address}:{self.port} within {limit:g} s; see {self.log}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


class HostGroup:
    """Several hosts on one machine as docs/deploy.md spreads them over several: a throw-away PostgreSQL they
    share, ``count`` hosts (``twistd evolution --proxy-protocol --host-name hostN`` on 127.0.0.2, .3, ...,
    with ``options``, and host n with ``extra[n]`` too) and HAProxy in front of them on 127.0.0.1:``port``; the
    hosts' logs and journals in the folder (``log(n)``).

    ``start()``; ``kill(n)`` (SIGKILL to host n and its children) and ``restart(n)``; ``stop()`` (SIGTERM to
    each host, waited for: each stores its games under way as aborted and finishes its writes; then HAProxy and
    PostgreSQL, by their process ids). Hosts are numbered from 1.
    """

    def __init__(self, folder: Path, count: int = 3, options: Sequence[str] = (), durable: bool = False,
                 extra: Mapping[int, Sequence[str]] | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count, self.options, self.extra = count, tuple(options), dict(extra or {})
        self.database = PostgresCluster(durable=durable)
        self.db = ""
        self.ports = {n: free_port() for n in range(1, count + 1)}
        self.port = free_port()
        hosts = [(self.address(n), port) for n, port in self.ports.items()]
        self.balancer = Balancer(self.folder / "haproxy", self.port, hosts)
        self.hosts: dict[int, HostProcess] = {}

    @staticmethod
    def address(n: int) -> str:
        return f"127.0.0.{n + 1}"

    def log(self, n: int) -> Path:
        return self.folder / f"host{n}.log"

    def log_text(self, n: int) -> str:
        """Host n's whole log, the parts twistd rotated away (past 1 MB) included."""
        return whole_log(self.log(n))

    def start(self, limit: float = 60.0) -> None:
        self.database.start()
        self.db = self.database.create("evolution")
        for n in self.ports:
            self._start_host(n)
        for n in self.ports:
            self.hosts[n].wait_until_listening(limit)
        self.balancer.start()

    def _start_host(self, n: int) -> None:
        self.hosts[n] = HostProcess(self.ports[n], self.db, self.log(n), "--proxy-protocol", "--host-name", f"host{n}",
                                    "--journal", str(self.folder / f"host{n}.pending"), *self.options,
                                    *self.extra.get(n, ()), own_group=True, address=self.address(n))

    def kill(self, n: int) -> None:
        self.hosts[n].kill_group()

    def restart(self, n: int, limit: float = 60.0) -> None:
        self._start_host(n)
        self.hosts[n].wait_until_listening(limit)

    def stop_host(self, n: int, limit: float = 60.0) -> int | None:
        """SIGTERM to host n, waited for; its exit status (twistd ends with -SIGTERM; None if it had to be killed)."""
        process = self.hosts[n].process
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                return process.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
                return None
        return process.returncode

    def stop(self) -> None:
        try:
            for n in self.hosts:
                self.stop_host(n)
        finally:
            self.balancer.stop()
            self.database.remove()
