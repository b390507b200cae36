"""docs/options.md lists every option ``twistd evolution --help`` lists, the Fish ones too, and no other;
docs/operations.md names every figure the operator port shows, and the Grafana dashboard draws them."""

from __future__ import annotations

import re
import subprocess

from evolution.testing import twistd_command
from tests.support.paths import REPO

HELP_OPTION = re.compile(r"^ {2,6}(?:-\w, )?--([a-z][a-z0-9-]*)", re.MULTILINE)  # not a wrapped line
TABLE_OPTION = re.compile(r"`--([a-z][a-z0-9-]*)")


def test_the_options_page_lists_every_option_of_the_help_and_no_other():
    shown = subprocess.run([*twistd_command(), "evolution", "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    helped = set(HELP_OPTION.findall(shown.stdout)) - {"help"}
    rows = [line.split("|")[1] for line in (REPO / "docs" / "options.md").read_text().splitlines()
            if line.startswith("| `--")]
    documented = {name for row in rows for name in TABLE_OPTION.findall(row)}
    assert helped - documented == set(), "options --help lists that docs/options.md's table does not"
    assert documented - helped == set(), "options docs/options.md's table lists that --help does not"
    assert {"board", "fish", "start-timeout", "first-move-timeout", "admin"} <= documented


def test_the_grafana_dashboard_draws_every_figure_the_operations_page_names():
    import json

    dashboard = json.loads((REPO / "docs" / "grafana-dashboard.json").read_text())
    queries = " ".join(target["expr"] for panel in dashboard["panels"] for target in panel["targets"])
    page = (REPO / "docs" / "operations.md").read_text()
    named = set(re.findall(r"^\| `(evolution_[a-z_]+)`", page, re.MULTILINE))
    named |= {"evolution_games_finished_total", "evolution_games_aborted_total"}  # named on one row with begun
    drawn = {name for name in named if name.removesuffix("_total") in queries}
    assert named - drawn <= {"evolution_games_begun_total"}, named - drawn


def test_the_operations_page_names_every_figure_a_host_shows():
    from tests.host.console.test_operator_port import FAMILIES

    page = (REPO / "docs" / "operations.md").read_text()
    assert [name for name in FAMILIES if f"`{name}" not in page and f"`{name.rsplit('_', 1)[0]}" not in page] == []
