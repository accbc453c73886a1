"""The pictures' shape: one module per drawn kind with the same file name and function, one template per
drawn kind, one line per drawn kind in the registry (a game may have no drawing); and bot.pictures sees only board data (checked here by
walking imports, besides the import-linter contract in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bot.pictures
from adjudicator import registry
from bot.pictures.registry import DRAWINGS
from bot.resources import TEMPLATES_DIR

PACKAGE = Path(bot.pictures.__file__).parent
FORBIDDEN = ("bot.email", "bot.discord", "bot.store", "adjudicator.games", "bot.core.runtime", "discord")


@pytest.mark.parametrize("kind", sorted(DRAWINGS))
def test_each_kind_draws_with_its_own_module_and_template(kind: str):
    module = kind.replace("-", "_")
    assert (PACKAGE / f"{module}.py").is_file()
    assert DRAWINGS[kind].__module__ == f"bot.pictures.{module}" and DRAWINGS[kind].__name__ == "draw"
    assert (TEMPLATES_DIR / kind / "board.svg.j2").is_file()


def test_no_module_without_a_kind():
    """A drawing is optional (bot/pictures/__init__.py): each module draws a registered kind, listed in DRAWINGS."""
    shared = {"__init__", "picture", "registry", "svg"}
    assert set(DRAWINGS) <= set(registry.kinds())
    kinds = {kind.replace("-", "_") for kind in DRAWINGS}
    assert {path.stem for path in PACKAGE.glob("*.py")} == shared | kinds


def test_pictures_import_no_channel_store_game_internals_or_runtime():
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(FORBIDDEN), f"{path.name} imports {name}"


def test_the_fonts_and_their_licence_ship_with_the_package():
    fonts = PACKAGE / "fonts"
    assert (fonts / "LICENSE").read_text(encoding="utf-8").count("Bitstream") >= 2
    assert sorted(p.name for p in fonts.glob("*.ttf")) == ["DejaVuSansMono-Bold.ttf", "DejaVuSansMono.ttf"]
