"""The import rules of ARCHITECTURE.md, checked by walking every module's imports with ast.

(CI also runs import-linter with the contracts in pyproject.toml.)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


def test_adjudicator_imports_the_standard_library_only():
    allowed = set(sys.stdlib_module_names) | {"adjudicator"}
    for path in modules("adjudicator"):
        for name in imports_of(path):
            assert name.split(".")[0] in allowed, f"{path.relative_to(ROOT)} imports {name}"


def test_games_never_import_each_other():
    for path in modules("adjudicator.games"):
        parts = path.relative_to(ROOT / "adjudicator" / "games").parts
        if len(parts) < 2:
            continue
        own = parts[0]
        for name in imports_of(path):
            if name.startswith("adjudicator.games."):
                assert name.split(".")[2] == own, f"{path.relative_to(ROOT)} imports {name}"


def test_core_never_imports_channels_or_their_libraries():
    forbidden = ("bot.email", "bot.discord", "bot.cli", "discord", "imapclient", "aiosmtplib")
    for path in modules("bot.core"):
        for name in imports_of(path):
            assert not name.startswith(forbidden), f"{path.relative_to(ROOT)} imports {name}"


def test_adapters_never_reach_into_the_store_or_game_internals():
    for package in ("bot.email", "bot.discord"):
        for path in modules(package):
            for name in imports_of(path):
                assert not name.startswith(("bot.store", "adjudicator.games")), (
                    f"{path.relative_to(ROOT)} imports {name}"
                )
