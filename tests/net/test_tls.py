"""A whole game over TLS on loopback, with a self-signed certificate made for the test."""

from __future__ import annotations

import ipaddress
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import ClientError, play_remote
from evolution.net.endpoints import client_tls, server_endpoint
from tests.support.hosting import new_host


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A key and a certificate for 127.0.0.1, valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "evolution test host")])
    now = datetime.now(timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    key_file, certificate_file = folder / "key.pem", folder / "cert.pem"
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_file, certificate_file


class TLSGameTests(unittest.TestCase):
    timeout = 30

    async def tls_host(self, *extra: str):
        folder = Path(tempfile.mkdtemp(prefix="evolution-tls-"))  # not in the working tree: keys are no test output
        self.addCleanup(shutil.rmtree, folder)
        key, certificate = self_signed(folder)
        port = f"ssl:0:interface=127.0.0.1:privateKey={key}:certKey={certificate}"
        host = new_host(self, "--port", port, *extra)  # the options check the certificate
        listening = await server_endpoint(reactor, host.options["port"]).listen(host.factory)
        self.addCleanup(listening.stopListening)
        return host, listening.getHost().port, certificate

    async def test_a_whole_game_over_tls(self) -> None:
        host, port, certificate = await self.tls_host("--players", "3-3")
        tls = client_tls("127.0.0.1", str(certificate))
        games = [
            ensureDeferred(play_remote(reactor, "127.0.0.1", port, f"tls {i}", SillyPlayer(), retries=0, tls=tls))
            for i in range(3)
        ]
        outcomes = await gatherResults(games)
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(record.outcome, "finished")
        self.assertEqual(sorted(seat.name for seat in record.players), ["tls 0", "tls 1", "tls 2"])
        self.assertEqual({outcome.turns for outcome in outcomes}, {record.turns})

    async def test_a_client_that_does_not_trust_the_certificate_stops_with_the_reason(self) -> None:
        _host, port, _certificate = await self.tls_host()
        game = play_remote(reactor, "127.0.0.1", port, "doubter", SillyPlayer(), retries=0, tls=client_tls("127.0.0.1"))
        error = await self.assertFailure(ensureDeferred(game), ClientError)
        self.assertIn("certificate verify failed", str(error))
