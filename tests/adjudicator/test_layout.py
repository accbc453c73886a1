"""The map of file roles (adjudicator/games/__init__.py): every game has the same file for the same job."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import adjudicator.games
from adjudicator import registry

GAMES = Path(adjudicator.games.__file__).parent
ROLES = ("rules", "state", "orders", "resolve", "report", "help", "computer", "options")
USED_BY_RULES = ("state", "orders", "resolve", "report", "help", "computer", "options")
"""``rules.py`` is thin: it hands each job to the module of that role."""
SYNONYMS = {"parse", "parser", "reader", "reading", "example", "examples", "play", "reports", "helptext"}
"""Names that would put a role's job in a second file (use ``orders_*.py`` for a long parser)."""
MAX_LINES = 300


def packages() -> list[Path]:
    return sorted(p for p in GAMES.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def test_every_registered_game_is_a_package_here_and_every_package_is_registered():
    registered = {Path(inspect.getfile(type(rules))).parent for rules in registry.all_rules()}
    assert registered == set(packages())
    assert len(registered) == len(registry.kinds())  # one package per kind


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_each_role_has_its_file(package: Path):
    missing = [role for role in ROLES if not (package / f"{role}.py").is_file()]
    assert not missing, f"{package.name} lacks {', '.join(f'{m}.py' for m in missing)} (see adjudicator/games)"


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_no_second_file_for_a_role(package: Path):
    modules = {path.stem for path in package.glob("*.py")}
    assert not modules & SYNONYMS, f"{package.name}: {sorted(modules & SYNONYMS)} belong in a role file"
    for stem in modules:
        prefix = stem.split("_")[0]
        if prefix in ROLES and stem not in ROLES:
            assert prefix == "orders", f"{package.name}/{stem}.py: only the parser continues in orders_*.py"


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_rules_hands_each_job_to_its_role_module(package: Path):
    tree = ast.parse((package / "rules.py").read_text(encoding="utf-8"))
    base = f"adjudicator.games.{package.name}"
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):  # absolute (``from adjudicator.games.<kind> import orders``) or relative
            module = (base + (f".{node.module}" if node.module else "")) if node.level == 1 else node.module or ""
            if module == base:
                used.update(alias.name for alias in node.names)
            elif module.startswith(base + "."):
                used.add(module.removeprefix(base + ".").split(".")[0])
    missing = [role for role in USED_BY_RULES if role not in used]
    assert not missing, f"{package.name}/rules.py does not use {', '.join(missing)}"
    assigned = {
        t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
    }
    assert "HELP" not in assigned, "the help text lives in help.py"


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_the_views_live_in_report(package: Path):
    """What adapters may see is decided in one place per game: ``report.py`` has ``public_state``
    and ``seat_view`` (GameRules.seat_view), and ``rules.py`` only hands them on."""
    report = ast.parse((package / "report.py").read_text(encoding="utf-8"))
    functions = {node.name for node in report.body if isinstance(node, ast.FunctionDef)}
    assert {"public_state", "seat_view"} <= functions, f"{package.name}/report.py lacks the views"
    rules = ast.parse((package / "rules.py").read_text(encoding="utf-8"))
    for node in ast.walk(rules):
        if isinstance(node, ast.FunctionDef) and node.name in ("public_state", "seat_view"):
            body = [n for n in node.body if not isinstance(n, ast.Expr)]
            assert len(body) == 1 and isinstance(body[0], ast.Return), f"{package.name}: {node.name} is report's"
            assert ast.unparse(body[0]).startswith(f"return report.{node.name}("), f"{package.name}: {node.name}"


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_modules_stay_small(package: Path):
    long = {
        p.name: n for p in package.glob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"{package.name}: split these (orders_*.py for a parser): {long}"


def test_the_map_names_every_role():
    doc = adjudicator.games.__doc__ or ""
    assert all(f"``{role}.py``" in doc for role in ROLES)


def test_a_missing_role_file_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The check itself can fail: a copy of a game without help.py is reported."""
    fake = tmp_path / "fake_game"
    fake.mkdir()
    for role in ROLES:
        if role != "help":
            (fake / f"{role}.py").write_text("")
    with pytest.raises(AssertionError, match=r"fake_game lacks help\.py"):
        test_each_role_has_its_file(fake)
