"""What a bot process and ``twistd evolution --help`` load at start-up: only what they use.

Every bot is a process, and so is every command line: each pays for what it
imports. These tests read the modules a real run has loaded (``sys.modules``
at exit): a client playing in the clear connects through the reactor, not
Twisted's endpoints, and loads no JSON Schema explainer (``jsonschema``,
``referencing``: they load only when a message is refused) and no test
framework; ``twistd evolution --help`` loads the options and nothing of the
host, the store or the web view (twistd's own plugin scan loads
``twisted.trial``, ours loads nothing of ``twisted.internet.testing``). The
CPU these cost is measured by ``python -m bench startup``, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evolution.testing import free_port

REPORT = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: open({path!r}, 'w').write(json.dumps(sorted(sys.modules))))\n"
)


def loaded(tmp_path: Path, body: str) -> set[str]:
    path = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", REPORT.format(path=str(path)) + body], capture_output=True, timeout=60)
    return set(json.loads(path.read_text()))


def under(modules: set[str], *packages: str) -> list[str]:
    """The modules of ``packages`` (a package and its submodules, ``a.b`` and ``a.b.c``)."""
    return sorted(name for name in modules if any(name == p or name.startswith(p + ".") for p in packages))


@pytest.fixture(scope="module")
def client_modules(tmp_path_factory) -> set[str]:
    body = (
        "from evolution.cli.evolution_client import main\n"
        f"main(['--port', '{free_port()}', '--retries', '0'])\n"  # nobody listens: the client starts, then ends
    )
    return loaded(tmp_path_factory.mktemp("client"), body)


def test_the_client_gets_as_far_as_connecting(client_modules):
    assert "evolution.games.evolution.net.dialects" in client_modules  # it loaded its game's dialect
    assert "twisted.internet.reactor" in client_modules


def test_a_client_in_the_clear_connects_without_twisteds_endpoints(client_modules):
    assert under(client_modules, "twisted.internet.endpoints", "evolution.net.endpoints") == []


def test_a_client_loads_no_explainer_until_a_message_is_refused(client_modules):
    assert under(client_modules, "jsonschema", "referencing") == []
    assert "jsonschema_rs" in client_modules  # the fast check is there


def test_a_client_loads_no_test_framework(client_modules):
    assert under(client_modules, "twisted.trial", "twisted.internet.testing") == []


def test_twistd_help_loads_the_options_and_nothing_of_the_host(tmp_path):
    body = "import sys\nsys.argv = ['twistd', 'evolution', '--help']\nfrom twisted.scripts.twistd import run\nrun()\n"
    modules = loaded(tmp_path, body)
    assert "evolution.host.options" in modules
    host = ["evolution.host.tap", "evolution.host.runner.game_runner", "evolution.store.results_store", "evolution.web"]
    assert [name for name in host if name in modules] == []
    assert under(modules, "twisted.internet.testing", "twisted.internet.endpoints", "jsonschema", "referencing") == []
