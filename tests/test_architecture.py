"""The house's directions: each room imports only the rooms below it, and each module's name says what it holds.

Read from the code's own imports (``test_game_seam.imports_of``: every
``import`` and ``from ... import``, function-level ones included), so a new
module that breaks a direction fails here. The rooms, from the bottom
(``docs/architecture.md`` draws them): ``processes`` (the process plumbing:
Twisted alone), ``tournament`` (pure, like a game's rules) and ``jsonwire``;
``store``; ``net``; ``replays``; ``host`` (its top, ``host/tap.py``, composes
the web view and the operator's console, ``host/console/``, which watches the
runner, modes and workers, never the other way); ``web``; ``cli``, which may import anything. The web view
reaches into the host only for the live pictures of games (``host.runner.
live_pictures``); the store imports no host, web, net or game module.
Inside the store, modules import each other one way, with no cycle (SQLite's
``database`` at the bottom, ``postgres`` above it, ``sql_dialects`` above both).

Also: no two modules of different rooms share a base name (parallel names
inside the game packages are fine: each game's ``wire/codec.py``), and every
module is named by a test: ``tests/<room>/test_<module>.py``, or its first
line names its tests as Twisted's do (``# -*- test-case-name: tests.x.test_y -*-``).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.test_game_seam import imports_of

PACKAGE = REPO / "evolution"
OURS = ("evolution.tournament", "evolution.jsonwire", "evolution.store", "evolution.net", "evolution.replays",
        "evolution.host", "evolution.web", "evolution.cli", "evolution.games", "evolution.testing",
        "evolution.stock_servers")
NEVER = {  # room: the rooms (module prefixes) it must not import
    "evolution.processes": OURS,
    "evolution.tournament": ("twisted", "evolution.jsonwire", "evolution.net", "evolution.store", "evolution.replays",
                             "evolution.host", "evolution.web", "evolution.cli", "evolution.games."),
    "evolution.jsonwire": ("evolution.tournament", "evolution.net", "evolution.store", "evolution.replays",
                           "evolution.host", "evolution.web", "evolution.cli", "evolution.games."),
    "evolution.store": ("evolution.net", "evolution.replays", "evolution.host", "evolution.web", "evolution.cli",
                        "evolution.games."),
    "evolution.net": ("evolution.store", "evolution.replays", "evolution.host", "evolution.web", "evolution.cli"),
    "evolution.replays": ("evolution.host", "evolution.web", "evolution.cli"),
    "evolution.host": ("evolution.web", "evolution.cli"),
    # the operator's console watches the host's rooms; they never know it
    "evolution.host.runner": ("evolution.host.console",),
    "evolution.host.modes": ("evolution.host.console",),
    "evolution.host.workers": ("evolution.host.console",),
    "evolution.web": ("evolution.cli", "evolution.host"),
}
ALLOWED = {  # exceptions to NEVER: (room or module, prefixes it may import after all)
    "evolution.host.tap": ("evolution.web",),  # the top of the house composes the web view
    "evolution.web": ("evolution.host.runner.live_pictures",),
}
TEST_CASE_NAME = re.compile(r"#\s*-\*-\s*test-case-name:\s*([\w., ]+?)\s*-\*-")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "games" not in path.relative_to(PACKAGE).parts[:1])


def _room_rule(name: str, table: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for room, prefixes in table.items():
        if name == room or name.startswith(room + "."):
            found += prefixes
    return found


def _under(name: str, prefix: str) -> bool:
    return name.startswith(prefix) if prefix.endswith(".") else name == prefix or name.startswith(prefix + ".")


def wrong_way(name: str, imported: list[str]) -> list[str]:
    """The imports of module ``name`` that point the wrong way."""
    never, allowed = _room_rule(name, NEVER), _room_rule(name, ALLOWED)
    return [module for module in imported
            if any(_under(module, prefix) for prefix in never) and not any(_under(module, p) for p in allowed)]


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_room_imports_only_the_rooms_below_it(path):
    name = module_name(path)
    assert wrong_way(name, imports_of(path)) == [], f"{name} imports against the house's directions"


@pytest.mark.parametrize("name, imported", [
    ("evolution.store.results_store", ["evolution.host.runner.game_runner"]),
    ("evolution.store.queries", ["evolution.replays.frames"]),
    ("evolution.store.records", ["evolution.games.fish.rules.board"]),
    ("evolution.web.model", ["evolution.host.modes.tournament_run"]),
    ("evolution.web.routes", ["evolution.cli.evolution_results"]),
    ("evolution.host.runner.game_runner", ["evolution.web.feed"]),
    ("evolution.net.signup", ["evolution.store.records"]),
    ("evolution.tournament.manager", ["twisted.internet.defer"]),
    ("evolution.replays.frames", ["evolution.host.runner.settings"]),
    ("evolution.processes.child", ["evolution.net.handover"]),
    ("evolution.web.feed", ["evolution.host.runner.game_runner"]),
    ("evolution.host.modes.ladder_mode", ["evolution.host.console.draining"]),
])
def test_each_direction_is_guarded_an_import_the_wrong_way_is_caught(name, imported):
    assert wrong_way(name, imported) == imported


def test_what_the_rules_let_through_is_what_the_house_means():
    assert wrong_way("evolution.web.feed_channel", ["evolution.processes.channel", "evolution.store.records"]) == []
    assert wrong_way("evolution.web.feed", ["evolution.host.runner.live_pictures"]) == []
    assert wrong_way("evolution.host.tap", ["evolution.web.service"]) == []
    assert wrong_way("evolution.host.wiring", ["evolution.web.service"]) == ["evolution.web.service"]
    assert wrong_way("evolution.cli.demo", ["evolution.host.tap", "evolution.web.model"]) == []
    assert wrong_way("evolution.store.results_store", ["evolution.games", "evolution.tournament.scoring"]) == []
    assert wrong_way("evolution.store.writer", ["evolution.processes.child"]) == []


def test_no_two_modules_of_different_rooms_share_a_name():
    by_name: dict[str, list[Path]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            by_name[path.stem].append(path.relative_to(PACKAGE))
    shared = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    clashes = {name: sorted(map(str, paths)) for name, paths in shared.items()
               if not all(path.parts[0] == "games" for path in paths)}
    assert clashes == {}


def named_tests(path: Path) -> list[str]:
    """The test modules that name ``path``: its mirror test file, and those its test-case-name line names."""
    relative = path.relative_to(PACKAGE)
    mirror = REPO / "tests" / relative.parent / f"test_{path.stem}.py"
    names = [str(mirror.relative_to(REPO))] if mirror.is_file() else []
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    match = TEST_CASE_NAME.search(first)
    if match:
        names += [name.strip().replace(".", "/") + ".py" for name in match.group(1).split(",")]
    return names


@pytest.mark.parametrize("path", [path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "__init__.py"],
                         ids=lambda path: str(path.relative_to(REPO)))
def test_every_module_is_named_by_its_tests(path):
    names = named_tests(path)
    assert names, (f"no test names {path.relative_to(REPO)}: add tests/{path.relative_to(PACKAGE).parent}/"
                   f"test_{path.stem}.py, or a first line '# -*- test-case-name: tests.ROOM.test_X -*-'")
    missing = [name for name in names if not (REPO / name).is_file()]
    assert missing == [], f"{path.relative_to(REPO)} names tests that do not exist: {missing}"


ONE_WAY = ("evolution.store",)  # rooms whose modules import each other without a cycle


def cycle(graph: dict[str, list[str]]) -> list[str]:
    """A cycle of imports among ``graph``'s modules (``[a, b, a]``: a imports b, b imports a), or []."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str]:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done or name not in graph:
            return []
        for imported in graph[name]:
            found = visit(imported, path + [name])
            if found:
                return found
        done.add(name)
        return []

    for name in sorted(graph):
        found = visit(name, [])
        if found:
            return found
    return []


def room_imports(room: str) -> dict[str, list[str]]:
    """Each module of ``room`` (its package) and the modules of the same room it imports, function-level ones and
    ``from evolution.store import postgres`` too."""
    folder = REPO / Path(*room.split("."))
    paths = {module_name(path): path for path in sorted(folder.rglob("*.py"))}
    graph = {}
    for name, path in paths.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = sorted(module for module in imported if module in paths and module not in (room, name))
    return graph


@pytest.mark.parametrize("room", ONE_WAY)
def test_a_rooms_modules_import_each_other_one_way(room):
    assert cycle(room_imports(room)) == [], f"the modules of {room} import each other in a circle"


def test_a_circle_of_imports_is_caught():
    assert cycle({"store.database": ["store.postgres"], "store.postgres": ["store.database"]}) == [
        "store.database", "store.postgres", "store.database"]
    assert cycle({"a": ["b", "c"], "b": ["c"], "c": ["d"], "d": ["b"]}) == ["b", "c", "d", "b"]
    assert cycle({"a": ["b", "c"], "b": ["c"], "c": []}) == []
    store = room_imports("evolution.store")
    assert "evolution.store.sql_dialects" in store["evolution.store.results_store"]
    assert "evolution.store.postgres" in store["evolution.store.keeper"]  # from evolution.store import postgres
