"""The operator port of a real host process: /metrics read by prometheus_client's own parser, every figure there
from the start and moving as a ladder plays; /livez, /readyz, /bots; its token; pausing and resuming the ladder
with evolution-admin; a command a web page could send (no X-Operator, another site's Origin, Sec-Fetch-Site
or Host) refused."""

from __future__ import annotations

import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from evolution.host.console.figures import removal_kind
from evolution.testing import start_clients, wait_for_clients
from tests.host.console.support import ConsoleHost

pytestmark = pytest.mark.slow

FAMILIES = {  # every figure docs/operations.md names, and its type
    "evolution_games_begun": "counter", "evolution_games_finished": "counter", "evolution_games_aborted": "counter",
    "evolution_game_duration_seconds": "histogram", "evolution_reply_seconds": "histogram", "evolution_removals": "counter",
    "evolution_ladder_wait_seconds": "histogram", "evolution_ladder_longest_wait_seconds": "gauge",
    "evolution_store_oldest_write_age_seconds": "gauge", "evolution_build_info": "gauge", "evolution_connections": "gauge",
    "evolution_signups": "counter", "evolution_games_running": "gauge", "evolution_ladder_waiting_bots": "gauge",
    "evolution_ladder_paused": "gauge", "evolution_tournaments_running": "gauge",
    "evolution_store_writes_waiting": "gauge", "evolution_workers_up": "gauge", "evolution_draining": "gauge",
}


def scrape(host: ConsoleHost) -> dict[tuple, float]:
    status, text = host.get("/metrics")
    assert status == 200
    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert {name: family.type for name, family in families.items()} == FAMILIES
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in families.values() for sample in family.samples}


def until(predicate, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, "not within the limit"
        time.sleep(0.1)


def test_every_figure_is_there_from_the_start_and_moves_as_a_ladder_plays(tmp_path):
    host = ConsoleHost(tmp_path, "--ladder", "--players", "3-3", "--workers", "1", "--timeout", "10")  # busy cores
    clients = []
    try:
        until(lambda: scrape(host)[("evolution_workers_up", ())] == 1)
        first = scrape(host)
        ladder = (("game", "evolution"), ("kind", "ladder"))
        assert first[("evolution_games_begun_total", ladder)] == 0
        assert first[("evolution_reply_seconds_count", ())] == 0
        assert first[("evolution_removals_total", (("reason", "timeout"),))] == 0
        assert first[("evolution_signups_total", (("result", "accepted"),))] == 0
        assert host.get("/livez") == (200, "live\n") and host.get("/readyz") == (200, "ready\n")
        assert host.agent() == "ready up"
        clients = start_clients(host.host.port, ["a", "b", "c"], None, 0.01)
        until(lambda: scrape(host)[("evolution_games_finished_total", ladder)] >= 3)
        later = scrape(host)
        assert later[("evolution_signups_total", (("result", "accepted"),))] == 3
        assert later[("evolution_games_begun_total", ladder)] >= 3
        assert later[("evolution_game_duration_seconds_count", ladder)] >= 3
        assert later[("evolution_game_duration_seconds_sum", ladder)] > 0
        # every bot of every game waited in the lobby, if only the ladder's window (0.1 s, shorter than a look)
        assert later[("evolution_ladder_wait_seconds_count", ())] == 3 * later[("evolution_games_begun_total", ladder)]
        assert later[("evolution_ladder_wait_seconds_sum", ())] > 0
        assert later[("evolution_reply_seconds_count", ())] >= 3 * 3  # each game asks each bot, in the worker
        assert later[("evolution_reply_seconds_sum", ())] > 0
        assert sum(later[("evolution_connections", (("state", state),))] for state in ("waiting", "playing", "other")) == 3
        assert later[("evolution_build_info", (("python", later_python(later)), ("version", "0.2.0")))] == 1

        paused = host.admin("pause-ladder")
        assert paused.returncode == 0 and "the ladder is paused" in paused.stdout
        until(lambda: scrape(host)[("evolution_games_running", ())] == 0)
        held = scrape(host)[("evolution_games_begun_total", ladder)]
        until(lambda: "3 waiting" in host.admin("bots").stdout)
        assert scrape(host)[("evolution_games_begun_total", ladder)] == held  # none formed while paused
        assert scrape(host)[("evolution_ladder_paused", ())] == 1
        resumed = host.admin("resume-ladder")
        assert resumed.returncode == 0 and "resumed" in resumed.stdout
        until(lambda: scrape(host)[("evolution_games_begun_total", ladder)] > held)
        text = host.log.read_text()
        assert "the ladder is paused by the test from 127.0.0.1" in text
        assert "the ladder is resumed by the test from 127.0.0.1" in text
    finally:
        host.stop()
        wait_for_clients(clients, 60)


def later_python(samples: dict) -> str:
    return next(dict(labels)["python"] for name, labels in samples if name == "evolution_build_info")


def test_an_operator_port_with_a_token_refuses_a_request_without_it(tmp_path):
    token = tmp_path / "token"
    token.write_text("a-secret-of-twenty-chars\n")
    host = ConsoleHost(tmp_path, "--admin-token-file", str(token), "--workers", "0")
    try:
        assert host.get("/metrics")[0] == 401
        refused = host.admin("drain")
        assert refused.returncode == 1 and "asks for its token" in refused.stderr
        assert host.host.process.poll() is None  # not drained
        allowed = host.admin("--token-file", str(token), "ready")
        assert (allowed.returncode, allowed.stdout) == (0, "ready\n"), allowed.stderr
    finally:
        host.stop()


def post(host: ConsoleHost, path: str, form: dict[str, str], headers: dict[str, str]) -> tuple[int, str]:
    """A POST as a browser sends a form (no X-Operator unless ``headers`` has it); the status and the answer."""
    request = urllib.request.Request(host.url + path, data=urllib.parse.urlencode(form).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_command_a_web_page_could_send_is_refused_and_evolution_admin_still_commands(tmp_path):
    host = ConsoleHost(tmp_path, "--workers", "0")
    page = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    try:
        status, line = post(host, "/drain", {}, page)  # a plain form, posted by another site's page
        assert (status, line) == (403, "POST /drain refused: a command must carry the header X-Operator: NAME "
                                       "(evolution-admin sends it), which a web page cannot send here\n")
        assert post(host, "/drain", {}, {})[0] == 403  # no header, whoever sent it
        named = {"X-Operator": "mallory"}
        status, line = post(host, "/announce", {"text": "free pizza"}, named | {"Sec-Fetch-Site": "cross-site"})
        assert (status, line) == (403, "POST /announce refused: a command from a web page of another site "
                                       "(Sec-Fetch-Site: cross-site) is refused\n")
        status, line = post(host, "/ban", {"name": "a1"}, named | {"Origin": "http://evil.example"})
        assert status == 403 and "(Origin: http://evil.example) is refused" in line and line.count("\n") == 1
        status, line = post(host, "/drain", {}, named | {"Host": f"evil.example:{host.admin_port}"})  # DNS rebinding
        assert status == 403 and f"not to evil.example:{host.admin_port}" in line
        assert host.get("/readyz") == (200, "ready\n") and host.agent() == "ready up"  # none of them drained it
        host.wait_for_log("refused POST /drain from 127.0.0.1: a command must carry the header X-Operator")
        same = {"X-Operator": "ann", "Origin": host.url, "Sec-Fetch-Site": "same-origin"}
        status, line = post(host, "/ladder/pause", {}, same)  # a page of the port itself would be let through
        assert status == 409 and line.startswith("this host runs no ladder")
        drained = host.admin("drain")
        assert drained.returncode == 0 and "draining, asked by the test from 127.0.0.1" in drained.stdout
        assert host.host.wait(60) == 0
    finally:
        host.stop()


@pytest.mark.parametrize("reason, kind", [
    ("no reply to choose within 1 s", "timeout"), ("invalid reply to feed-next: not a list", "invalid"),
    ("malformed message: bad JSON", "malformed"), ("disconnected before replying to start", "disconnected"),
    ("sent a message nobody asked for: 3", "unasked"), ("the host stopped", "other"),
])
def test_a_removal_is_counted_by_the_kind_of_its_reason(reason, kind):
    assert removal_kind(reason) == kind
