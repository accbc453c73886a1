"""Discord's client and the games' screens are no import loop: the screens import the client, never the other way.

The client knows every game's screens by a protocol only (bot/discord/screen_set.py).  Each module's
imports are read with ast, those named for the type checker alone included (a ``TYPE_CHECKING``
import was how the loop hid), and followed through every module of bot/discord they reach.  An
import inside a function is a deferred one (the channel's declaration starts its runtime only when
Discord is configured): the client's reach counts them, the search for loops does not.  The import
contracts of pyproject.toml say the same to ``lint-imports``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_architecture import ROOT, modules

PACKAGE = "bot.discord"


def _imports(path: Path, deferred: bool) -> set[str]:
    """What ``path`` imports: as it is imported (its top level, its ``if`` and ``try`` blocks), and with
    ``deferred`` inside its functions too; ``from a import b`` names both ``a`` and ``a.b``."""
    tree = ast.parse(path.read_text(), str(path))
    nodes: list[ast.AST] = list(ast.walk(tree)) if deferred else []
    todo: list[ast.stmt] = [] if deferred else list(tree.body)
    while todo:
        node = todo.pop()
        nodes.append(node)
        if isinstance(node, ast.If | ast.Try):
            todo += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _graph(deferred: bool) -> dict[str, set[str]]:
    """Each module of bot/discord -> the modules of bot/discord it imports (a package's name stands for
    its ``__init__``)."""
    names = {".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
             for path in modules(PACKAGE)}  # fmt: skip
    return {name: {m for m in _imports(path, deferred) if m in names and m != name} for name, path in names.items()}


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in graph[todo.pop()]:
            if module not in seen:
                seen.add(module)
                todo.append(module)
    return seen


def test_the_client_reaches_no_games_screens_and_the_screens_reach_the_client():
    graph = _graph(deferred=True)
    from_client = _reached(graph, "bot.discord.client")
    assert not {m for m in from_client if m.startswith("bot.discord.games")}, sorted(from_client)
    assert "bot.discord.client" in _reached(graph, "bot.discord.games.screens")  # the direction that stays


def test_no_module_of_discord_imports_itself_round_a_loop():
    graph = _graph(deferred=False)
    assert len(graph) > 30
    loops = sorted(name for name in graph if name in _reached(graph, name))
    assert not loops, f"import loops through {loops}"
