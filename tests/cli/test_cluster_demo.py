"""``make demo-cluster``: three hosts behind HAProxy on one PostgreSQL feed one ladder; what it prints, and the one
line it prints where PostgreSQL or HAProxy is missing."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from evolution.cli import cluster_demo

pytestmark = pytest.mark.slow


@pytest.mark.outage  # a minute of three hosts, HAProxy and PostgreSQL: run by make soak
@pytest.mark.skipif(cluster_demo.missing() is not None, reason=cluster_demo.missing() or "")
def test_three_hosts_feed_one_ladder_the_leaders_as_they_change_and_each_hosts_games():
    result = subprocess.run([sys.executable, "-m", "evolution.cli.cluster_demo", "--bots", "15", "--seconds", "10"],
                            capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[1:7]] == ["PostgreSQL", "host1", "host2", "host3", "HAProxy", "web view"]
    assert re.fullmatch(r"PostgreSQL: postgresql://evolution@127\.0\.0\.1:\d+/evolution \(a cluster in .*\)", lines[1])
    assert lines[2].startswith("host1: twistd evolution --ladder --proxy-protocol on 127.0.0.2:")
    leaders = [line for line in lines if line.startswith("leaders after ")]
    assert leaders and re.fullmatch(r"leaders after \d+ games? by mu - 3 sigma \(\? provisional, ranked after\): "
                                    r"1\. \S+ -?\d+\.\d\??(, \d\. .*)?", leaders[0])
    [total] = [line for line in lines if line.startswith("in all, games played by each host: ")]
    counts = dict(re.findall(r"(host\d) (\d+)", total))
    assert sorted(counts) == ["host1", "host2", "host3"] and sum(map(int, counts.values())) > 0
    table = lines.index("  ladder of evolution: 15 bots, ranked by the rating mu - 3 sigma; equal values share a rank")
    assert len([line for line in lines[table + 3:] if re.match(r"\s+\d+\s", line)]) == 15
    assert lines[-1] == "stopping the hosts, HAProxy and PostgreSQL"


def test_without_postgresql_or_haproxy_it_says_in_one_line_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(cluster_demo, "postgres_missing", lambda: None)
    monkeypatch.setattr(cluster_demo, "haproxy_missing", lambda: "HAProxy is not installed here (Debian: "
                        "apt-get install haproxy)")
    assert cluster_demo.main([]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", "demo-cluster needs PostgreSQL and HAProxy: HAProxy is not installed here (Debian: "
                          "apt-get install haproxy)\n")
