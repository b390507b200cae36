# -*- test-case-name: tests.net.test_tls, tests.host.test_tap -*-
"""Endpoint strings checked before use, a deep listen backlog, and TLS.

Offers ``check_server(description)``: it builds the server endpoint and
listens with it on a reactor that only records the request (no socket is
opened), then checks the port and backlog; ``server_endpoint(reactor,
description)``, the endpoint with a listen backlog of ``LISTEN_BACKLOG``
unless the string sets one (Twisted's default, 50, overflows when a thousand
bots connect at once); ``require_tls()``; and ``client_tls(hostname,
ca_file)``, the TLS settings of a client that verifies the host's
certificate (against ``ca_file``, or the system's trusted authorities).

Problems are one sentence each: ``EndpointError`` when the string itself is
wrong, ``EndpointUnavailable`` when it is right but this machine cannot serve
it (TLS not installed, a certificate that cannot be read). And
``ListeningService``, a service that listens on an endpoint, logs where
(``listening_line``: the addresses, every interface said so) and ends
twistd with one sentence naming the option (status 1) when its port cannot
be had (``cannot_listen``). ``listen_for_another`` listens here for another
process, which accepts with ``adopt_listening`` (the web view's process:
the port is had, or refused, when the host starts, and before twistd sheds
privileges).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from twisted.application.internet import StreamServerEndpointService
from twisted.internet.endpoints import serverFromString
from twisted.internet.error import CannotListenError
from twisted.internet.protocol import Factory
from twisted.logger import Logger

log = Logger()

LISTEN_BACKLOG = 1024
MAX_PORT = 65535
TLS_MISSING = "TLS needs pyOpenSSL and service-identity: pip install 'evolution-host[tls]'"
_BACKLOG_KINDS = frozenset({"tcp", "tcp6", "ssl", "unix"})


class EndpointError(ValueError):
    """The endpoint string is wrong."""


class EndpointUnavailable(Exception):
    """The endpoint string is right, but this machine cannot serve it."""


def _fields(description: str) -> list[str]:
    """The colon-separated fields of an endpoint string (a backslash escapes a colon)."""
    fields, current, escaped = [], "", False
    for char in description:
        if escaped or char not in ":\\":
            current += char
            escaped = False
        elif char == "\\":
            current += char
            escaped = True
        else:
            fields.append(current)
            current = ""
    return fields + [current]


def with_backlog(description: str) -> str:
    """``description`` with ``backlog=LISTEN_BACKLOG`` added where it takes one and sets none."""
    kind, *arguments = _fields(description)
    if kind not in _BACKLOG_KINDS or any(argument.startswith("backlog=") for argument in arguments):
        return description
    return f"{description}:backlog={LISTEN_BACKLOG}"


def server_endpoint(reactor: Any, description: str) -> Any:
    """The server endpoint for ``description``, with a deep backlog unless it sets one."""
    return serverFromString(reactor, with_backlog(description))


def check_server(description: str) -> None:
    """Raise ``EndpointError`` or ``EndpointUnavailable`` if ``description`` cannot serve."""
    from twisted.internet.testing import MemoryReactor  # a recorder, for the checks at start-up only

    if _fields(description)[0] == "ssl":
        require_tls()
    recorder = MemoryReactor()
    try:
        server_endpoint(recorder, description).listen(Factory())
    except (ValueError, TypeError, KeyError) as error:
        raise EndpointError(_explained(description, error)) from None
    except OSError as error:
        raise EndpointUnavailable(f"cannot read {error.filename or 'a file it names'}: {error.strerror}") from None
    except Exception as error:  # pyOpenSSL's errors about keys and certificates
        raise EndpointUnavailable(f"cannot use it: {error}") from None
    for port, backlog in _ports_and_backlogs(recorder):
        if port is not None and not 0 <= port <= MAX_PORT:
            raise EndpointError(f"the port must be 0 to {MAX_PORT}, not {port}")
        if not 1 <= backlog <= MAX_PORT:
            raise EndpointError(f"the backlog must be 1 to {MAX_PORT}, not {backlog}")


_NOT_A_NUMBER = re.compile(r"invalid literal for int\(\) with base (\d+): (.*)")
_UNKNOWN_OPTION = re.compile(r"got an unexpected keyword argument '(.*)'")
_TWICE = re.compile(r"got multiple values for argument '(.*)'")
_FIRST_FIELD = {"tcp": "port", "tcp6": "port", "ssl": "port", "unix": "path"}


def _explained(description: str, error: Exception) -> str:
    """What Twisted's parser says of ``description``, as a sentence (it leaks Python's words)."""
    text = str(error) or type(error).__name__
    kind, *fields = _fields(description)
    number = _NOT_A_NUMBER.fullmatch(text)
    if number:
        base, literal = number.groups()
        whole = "a whole number" if base == "10" else f"a whole number in base {base}"
        for index, field in enumerate(fields):
            name, equals, value = field.partition("=")
            if (equals and repr(value) == literal) or (not equals and repr(field) == literal):
                what = name if equals else _FIRST_FIELD.get(kind, f"field {index + 1}")
                return f"the {what} must be {whole}, not {literal}"
        return f"{literal} is not {whole}"
    unknown = _UNKNOWN_OPTION.search(text)
    if unknown:
        return f"a {kind}: endpoint takes no option {unknown.group(1)}="
    twice = _TWICE.search(text)
    if twice:
        return f"it gives {twice.group(1)} twice (write a colon inside a value as \\:, e.g. interface=\\:\\:1)"
    return text


def _ports_and_backlogs(recorder: MemoryReactor) -> list[tuple[int | None, int]]:
    tcp = [(port, backlog) for port, _factory, backlog, _interface in recorder.tcpServers]
    ssl = [(port, backlog) for port, _factory, _context, backlog, _interface in recorder.sslServers]
    unix = [(None, backlog) for _path, _factory, backlog, _mode, _pid in recorder.unixServers]
    return tcp + ssl + unix


def require_tls() -> None:
    """Raise ``EndpointUnavailable`` unless pyOpenSSL and service-identity are installed."""
    try:
        import OpenSSL  # noqa: F401
        import service_identity  # noqa: F401
    except ImportError:
        raise EndpointUnavailable(TLS_MISSING) from None


def client_tls(hostname: str, ca_file: str | None = None) -> Any:
    """TLS settings that verify the host is ``hostname``, trusting ``ca_file`` or the system."""
    require_tls()
    from twisted.internet import ssl

    if ca_file is None:
        return ssl.optionsForClientTLS(hostname)
    try:
        certificate = ssl.Certificate.loadPEM(Path(ca_file).read_bytes())
    except OSError as error:
        raise EndpointUnavailable(f"cannot read {ca_file}: {error.strerror}") from None
    except Exception as error:  # not a PEM certificate
        raise EndpointUnavailable(f"{ca_file} holds no PEM certificate: {error}") from None
    return ssl.optionsForClientTLS(hostname, trustRoot=ssl.trustRootFromCertificates([certificate]))


class ListeningService(StreamServerEndpointService):
    """Listens on the endpoint and says where (``listening_line``); a port that cannot be had stops twistd with
    one sentence, which names the option (``--port``, ``--web``).

    The sentence goes to twistd's log (as the reason the process ends) and, with
    ``echo``, to standard error too; without it when the log is shown there already.
    """

    def __init__(
        self, endpoint: Any, factory: Factory, description: str, echo: bool = True, option: str = "--port"
    ) -> None:
        super().__init__(endpoint, factory)
        self.description = description
        self.echo = echo
        self.option = option
        self._raiseSynchronously = True  # a failure to listen raises at start-up, as strports does

    def privilegedStartService(self) -> None:
        try:
            super().privilegedStartService()
        except CannotListenError as error:
            self._cannot_listen(error.socketError)
        except OSError as error:  # e.g. the folder of a unix: socket does not exist
            self._cannot_listen(error.strerror or error)
        self._waitingForPort.addCallback(self._listening)

    def _listening(self, port: Any) -> Any:
        if port is not None:
            log.info("{line}", line=listening_line(self.option, self.description, port.getHost()))
        return port

    def _cannot_listen(self, why: object) -> None:
        cannot_listen(self.description, why, self.echo, self.option)


LISTENERS = {"--port": "the host listens for bots", "--web": "the web view listens"}


def listening_line(option: str, description: str, address: Any) -> str:
    """Where an endpoint listens, for a person: which addresses (every interface, said so), port, the option."""
    who = LISTENERS.get(option, f"{option} listens")
    given = f"({option} {description})"
    host, port = getattr(address, "host", None), getattr(address, "port", None)
    if host is None:
        return f"{who} on the socket {getattr(address, 'name', address)} {given}"
    tls = " over TLS" if _fields(description)[0] == "ssl" else ""
    if host in ("0.0.0.0", "::"):
        family = "IPv4" if host == "0.0.0.0" else "IPv6 (and IPv4, where the system maps it)"
        return (f"{who}{tls} on port {port} of every {family} interface ({host}) {given}: other machines can "
                f"connect; add :interface=127.0.0.1 to {option}'s endpoint to keep it to this one")
    return f"{who}{tls} on {host} port {port} {given}"


def cannot_listen(description: str, why: object, echo: bool = True, option: str = "--port") -> NoReturn:
    """End twistd with one sentence: the port of ``description``, given as ``option``, cannot be had (``echo``:
    on stderr too)."""
    message = f"twistd evolution: cannot listen on {option} {description}: {why}"
    if echo and sys.__stderr__ is not None and sys.stderr is not sys.__stderr__:  # stderr goes to the log
        print(message, file=sys.__stderr__, flush=True)
    raise SystemExit(message) from None


def listen_for_another(reactor: Any, description: str, echo: bool = True, option: str = "--web") -> tuple[int, int]:
    """Listen on ``description`` here (a port that cannot be had ends twistd with one sentence) for another
    process to accept on: the listening socket's descriptor (a duplicate: this process's reactor never
    accepts on it) and its address family. The other process adopts it with ``adopt_listening``."""
    found: list[Any] = []
    try:
        server_endpoint(reactor, description).listen(Factory()).addBoth(found.append)
    except OSError as error:
        cannot_listen(description, error.strerror or error, echo, option)
    result = found[0] if found else None
    if not hasattr(result, "socket"):
        error = getattr(result, "value", result)
        why = getattr(error, "socketError", None) or getattr(error, "strerror", None) or error
        cannot_listen(description, why, echo, option)
    log.info("{line}", line=listening_line(option, description, result.getHost()))
    result.stopReading()
    handle = result.socket
    fd, family = os.dup(handle.fileno()), handle.family
    handle.close()  # no shutdown: the duplicate goes on listening
    result.connected = False
    return fd, family


def adopt_listening(reactor: Any, fd: int, family: int, description: str, factory: Factory) -> Any:
    """Accept on a listening socket another process made (``listen_for_another``), as ``description`` says:
    over TLS for an ``ssl:`` endpoint (its certificate read here); ``fd`` is closed (the reactor keeps a copy)."""
    if _fields(description)[0] == "ssl":
        from twisted.internet.testing import MemoryReactor  # a recorder: the certificate is read as at start-up

        recorder = MemoryReactor()
        server_endpoint(recorder, description).listen(factory)
        [(_port, _factory, context, _backlog, _interface)] = recorder.sslServers
        from twisted.protocols.tls import TLSMemoryBIOFactory

        factory = TLSMemoryBIOFactory(context, False, factory)
    try:
        return reactor.adoptStreamPort(fd, family, factory)
    finally:
        os.close(fd)
