"""The game seam: the host's layers reach a game only through its registration, and each game keeps its layers.

Read from the code's own imports (every ``import`` and ``from ... import``,
function-level ones included), so a new module that breaks the rule fails
here: the host's layers (``evolution.net``, ``host``, ``web``,
``tournament``, the command lines, the application) import ``evolution.games``
(the registry) and never a game's package; inside a game, rules -> wire ->
net -> web point one way, and the rules import nothing of I/O, Twisted or
JSON. Every registered game offers the whole interface.
"""

from __future__ import annotations

import ast
import configparser
import inspect
from pathlib import Path

import pytest

from evolution.games import GAME_NAMES, REGISTERED, Game, game
from tests.support.paths import REPO

PACKAGE = REPO / "evolution"
HOST_LAYERS = ("net", "host", "web", "tournament", "jsonwire", "store", "replays", "cli")
GAME_LAYERS = ("rules", "strategies", "wire", "net", "web")  # each may import only those before it
IMPURE = ("twisted", "json", "socket", "sqlite3", "asyncio", "subprocess", "evolution.net", "evolution.host",
          "evolution.web", "evolution.jsonwire")


def imports_of(path: Path) -> list[str]:
    """Every module ``path`` imports, by absolute name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def host_modules() -> list[Path]:
    modules = [path for layer in HOST_LAYERS for path in (PACKAGE / layer).rglob("*.py")]
    return modules + [PACKAGE / name for name in ("testing.py", "text.py", "outcomes.py", "coroutines.py")]


@pytest.mark.parametrize("path", host_modules(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_host_module_reaches_games_only_through_the_registry(path):
    reaching = [name for name in imports_of(path) if name.startswith("evolution.games.")]
    assert reaching == [], f"{path.relative_to(REPO)} imports a game's modules directly: {reaching}"


def game_modules() -> list[tuple[str, str, Path]]:
    found = []
    for name in GAME_NAMES:
        root = PACKAGE / "games" / name
        for path in sorted(root.rglob("*.py")):
            layer = path.relative_to(root).parts[0] if len(path.relative_to(root).parts) > 1 else ""
            found.append((name, layer, path))
    return found


@pytest.mark.parametrize("name, layer, path", game_modules(), ids=lambda value: str(value) if not isinstance(value, Path) else "")
def test_inside_a_game_dependencies_point_one_way(name, layer, path):
    if layer not in GAME_LAYERS:
        return
    later = GAME_LAYERS[GAME_LAYERS.index(layer) + 1:]
    own = f"evolution.games.{name}."
    upward = [module for module in imports_of(path) if module.startswith(own) and module[len(own):].split(".")[0] in later]
    assert upward == [], f"{path.relative_to(REPO)} ({layer}) imports a later layer of its game: {upward}"
    others = [module for module in imports_of(path)
              if module.startswith("evolution.games.") and not module.startswith(own)]
    assert others == [], f"{path.relative_to(REPO)} imports another game: {others}"
    if layer in ("rules", "strategies"):
        impure = [module for module in imports_of(path) if module.split(".")[0] in IMPURE or module.startswith(IMPURE)]
        if layer == "strategies":  # a bot that never answers holds a Deferred that never fires, and nothing more
            impure = [module for module in impure if module != "twisted.internet.defer"]
        assert impure == [], f"{path.relative_to(REPO)} is {layer} code but imports {impure}"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_registered_game_offers_the_whole_interface(name):
    chosen = game(name)
    for attribute, value in inspect.getmembers(Game):
        if attribute.startswith("_"):
            continue
        assert hasattr(chosen, attribute), f"{name} lacks {attribute}"
    for attribute in Game.__annotations__:
        assert hasattr(chosen, attribute), f"{name} lacks {attribute}"
    assert chosen.name == name and REGISTERED[name].endswith(f".{name}")
    assert chosen.min_players <= chosen.default_players[0] <= chosen.default_players[1] <= chosen.max_players
    assert set(chosen.house) <= set(chosen.strategies)
    for dialect in chosen.dialects:
        assert chosen.dialect(dialect).name == dialect
    setup = chosen.setup({})
    assert chosen.setup_of(setup.recorded()) == setup


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_house_name_is_taken_by_every_dialect_of_its_game_and_no_two_are_alike(name):
    chosen = game(name)
    numbers = range(1, (chosen.max_players - 1) * len(chosen.strategies) + 1)  # the most a gauntlet has
    names = [chosen.house_name(k, chosen.strategies[(k - 1) % len(chosen.strategies)]) for k in numbers]
    assert len(set(names)) == len(names)
    for dialect in chosen.dialects:
        rules = chosen.dialect(dialect).signup
        for house in names:
            chosen.dialect(dialect).client(house, None)  # the client's side takes it (ValueError if not)
            if not rules.silent:
                assert rules.name(house)[0] == house


def test_evolutions_registration_agrees_with_its_dealer():
    from evolution.games.evolution.rules.dealer import MAX_PLAYERS, MIN_PLAYERS

    assert (game("evolution").min_players, game("evolution").max_players) == (MIN_PLAYERS, MAX_PLAYERS)


def test_every_package_is_listed_for_installation():
    """A package missing from setup.cfg is missing from ``pip install .`` (not from the editable install)."""
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg")
    listed = set(config["options"]["packages"].split())
    packages = {
        ".".join(path.parent.relative_to(REPO).parts) for path in PACKAGE.rglob("__init__.py")
    }
    assert packages - listed == set()
