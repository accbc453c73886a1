"""Each game's Discord screens: one module per game, one protocol, one plain dict keyed by kind.

The dict (:data:`bot.discord.games.registry.SCREENS`) names only registered
games, each by a module ``bot/discord/games/<kind>.py``; the client holds the
screens as a typed attribute (no ``Any``), and nothing finds a game's feature
by ``getattr`` on the client.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import discord

from adjudicator import registry
from bot.core.views import GameView
from bot.discord.games.registry import SCREENS, GameScreenSet
from bot.discord.games.screens import AppCommand, Item, Screens

ROOT = Path(__file__).resolve().parents[2]
DISCORD = ROOT / "bot" / "discord"


def test_every_entry_is_a_registered_game_in_its_own_module() -> None:
    assert set(SCREENS) <= set(registry.kinds())
    for kind, make in SCREENS.items():
        assert getattr(make, "kind", None) == kind
        module = Path(inspect.getfile(make))  # type: ignore[arg-type]
        assert module == DISCORD / "games" / f"{kind.replace('-', '_')}.py", (kind, module)


def test_the_client_holds_no_untyped_feature_and_nothing_is_found_by_getattr_on_it() -> None:
    client = ast.parse((DISCORD / "client.py").read_text(encoding="utf-8"))
    untyped = [
        ast.unparse(node.target)
        for node in ast.walk(client)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute) and ast.unparse(node.annotation) == "Any"
    ]  # fmt: skip
    assert not untyped, f"the client's attributes typed Any: {untyped}"
    for path in [DISCORD / "runtime.py", *sorted((DISCORD / "games").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = [
            ast.unparse(node)
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and "client" in ast.unparse(node.args[0])
        ]  # fmt: skip
        assert not found, f"{path.relative_to(ROOT)}: {found}"
    runtime = ast.parse((DISCORD / "runtime.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(runtime) if isinstance(n, ast.Name) and n.id == "getattr"]


class _Views:
    """The one question the screen set asks: a game's public view."""

    def __init__(self, kinds: dict[str, str]) -> None:
        self.kinds = kinds

    def public_view(self, slug: str) -> GameView | None:
        kind = self.kinds.get(slug)
        return None if kind is None else GameView(slug, kind, "running", None, {}, ())


def _screens(kind: str, seen: list[tuple[str, str]]) -> type[Screens]:
    class Recording(Screens):
        def commands(self) -> Sequence[AppCommand]:
            return ()

        def items(self) -> Sequence[Item]:
            return ()

        async def after_public_report(self, view: GameView, place: discord.abc.Messageable) -> None:
            seen.append((kind, view.slug))

    Recording.kind = kind
    return Recording


async def test_after_a_public_report_only_the_games_own_screens_are_asked() -> None:
    seen: list[tuple[str, str]] = []
    views: Any = _Views({"a1": "alpha", "b1": "beta", "z1": "zeta"})
    screens = GameScreenSet(None, views, {"alpha": _screens("alpha", seen), "beta": _screens("beta", seen)})  # type: ignore[arg-type]
    place: Any = object()
    for game in ("a1", "b1", "z1", "gone"):  # zeta has no screens; "gone" is no game
        await screens.after_public_report(game, place)
    assert seen == [("alpha", "a1"), ("beta", "b1")]
