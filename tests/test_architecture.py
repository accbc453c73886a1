"""The import rules of docs/architecture.md, checked by walking every module's imports with ast.

(CI also runs import-linter with the contracts in pyproject.toml.)
"""

from __future__ import annotations

import ast
import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHANNEL_LIBRARIES = ("discord", "imapclient", "aiosmtplib")
"""The channels' protocol libraries, which the core never imports."""


def channel_packages() -> list[str]:
    """Every channel's package (``bot.email``, ``bot.discord``, ...), from the one list of channels."""
    from bot.channels import registry as channels

    return [channel.package for channel in channels.CHANNELS]


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
    forbidden = (*channel_packages(), "bot.host", "bot.settings", "bot.channels", *CHANNEL_LIBRARIES)
    for path in modules("bot.core"):
        for name in imports_of(path):
            assert not name.startswith(forbidden), f"{path.relative_to(ROOT)} imports {name}"


def test_the_text_language_imports_no_channel():
    """bot/text (what every text channel reads alike) imports no channel, their libraries, the store or games."""
    forbidden = (
        *channel_packages(),
        "bot.host",
        "bot.settings",
        "bot.channels",
        "bot.store",
        "adjudicator.games",
        *CHANNEL_LIBRARIES,
        "aiohttp",
    )
    paths = modules("bot.text")
    assert paths, "bot/text exists"
    for path in paths:
        for name in imports_of(path):
            assert not name.startswith(forbidden), f"{path.relative_to(ROOT)} imports {name}"


def test_adapters_never_reach_into_the_store_or_game_internals():
    for package in channel_packages():
        for path in modules(package):
            for name in imports_of(path):
                assert not name.startswith(("bot.store", "adjudicator.games")), (
                    f"{path.relative_to(ROOT)} imports {name}"
                )


CHANNEL_WORDS = ("e-mail", "imap", "smtp", "mailbox", "password <", "send help", "subject")
"""Email's vocabulary, besides every channel's own name."""


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of a module that are not docstrings (what the code says, not what it documents)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found.append((node.lineno, node.value))
    # attribute docstrings (a string right after an assignment) document too
    for parent in ast.walk(tree):
        body = getattr(parent, "body", None)
        if isinstance(body, list):
            for before, after in itertools.pairwise(body):
                documented = isinstance(before, ast.Assign | ast.AnnAssign) and isinstance(after, ast.Expr)
                if documented and isinstance(after.value, ast.Constant):
                    found = [(line, text) for line, text in found if line != after.value.lineno]
    return found


def test_the_core_speaks_no_channel():
    """bot/core, every folder of it, holds no channel name and no email vocabulary: channels name themselves."""
    core = ROOT / "bot" / "core"
    paths = sorted(core.rglob("*.py"))
    assert len(paths) > len(list(core.glob("*.py"))), "the walk reaches the core's subfolders"
    from bot.channels import registry as channels

    words = (*CHANNEL_WORDS, *(channel.name for channel in channels.CHANNELS))
    assert {"email", "discord"} <= set(words)
    offences = []
    for path in paths:
        for line, text in _code_strings(path):
            lowered = text.lower()
            where = path.relative_to(core)
            offences += [f"{where}:{line}: {text!r}" for word in words if word in lowered]
    assert offences == []


def test_the_core_is_a_map_of_folders():
    """bot/core is subpackages by concept, each drawn in bot/core/__init__.py's map and named in the layers contract."""
    import tomllib

    core = ROOT / "bot" / "core"
    folders = sorted(p.name for p in core.iterdir() if (p / "__init__.py").exists())
    loose = sorted(p.name for p in core.glob("*.py") if p.name != "__init__.py")
    assert loose == [], "a core module belongs in the folder of its concept"
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers" and c.get("containers") == ["bot.core"])
    named = sorted(part.strip() for layer in layers["layers"] for part in layer.split("|"))
    assert named == folders
    drawn = (core / "__init__.py").read_text()
    assert [f for f in folders if f"{f}/" not in drawn] == []


def test_every_channel_package_is_in_the_list_and_declares_itself_in_channel_py():
    """A package of bot/ with a channel.py is a channel: it is listed, and its CHANNEL is the list's entry."""
    import importlib

    from bot.channels import registry as channels

    declared = sorted(f"bot.{p.parent.name}" for p in (ROOT / "bot").glob("*/channel.py"))
    assert declared == sorted(channel_packages()), "list each channel once in bot/channels/registry.py"
    for channel in channels.CHANNELS:
        assert importlib.import_module(f"{channel.package}.channel").CHANNEL is channel
    names = [channel.name for channel in channels.CHANNELS]
    assert len(set(names)) == len(names) and all(name.isalpha() and name.islower() for name in names)


def _lists(contract: dict[str, object]) -> dict[str, object]:
    """A contract's lists of modules, as import-linter hands them to the contract type."""
    return {key: value for key, value in contract.items() if isinstance(value, list)}


def test_the_import_contracts_name_every_channel():
    """pyproject.toml cannot loop over the list of channels: its contracts say ``"<channels>"``, which their
    contract types (tests/import_contracts.py) expand to the list's packages; no contract names a channel."""
    import tomllib

    from tests.import_contracts import CHANNELS, ChannelsForbidden, ChannelsIndependence, expand

    linter = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    types = dict(entry.replace(" ", "").split(":") for entry in linter["contract_types"])
    assert types == {"forbidden_channels": "tests.import_contracts.ChannelsForbidden",
                     "independence_channels": "tests.import_contracts.ChannelsIndependence"}  # fmt: skip
    by_name = {contract["name"]: contract for contract in linter["contracts"]}
    packages = sorted(channel_packages())
    for contract in by_name.values():
        named = {m for value in contract.values() if isinstance(value, list) for m in value}
        assert not named & set(packages), f"{contract['name']} names a channel: write {CHANNELS!r}"
        assert CHANNELS not in named or contract["type"] in types, f"{contract['name']}: {CHANNELS} needs its type"
    independent = by_name["channel adapters are independent of each other"]
    assert sorted(expand(independent)["modules"]) == packages
    built = ChannelsIndependence(independent["name"], {}, _lists(independent))
    assert sorted(str(m) for m in built.modules) == packages  # import-linter reads the expanded list
    adapters = by_name["adapters use bot.core, never bot.store or game internals"]
    assert sorted(expand(adapters)["source_modules"]) == packages
    assert ChannelsForbidden(adapters["name"], {}, _lists(adapters))
    core = expand(by_name["bot.core never imports channel adapters or their libraries"])["forbidden_modules"]
    assert set(packages) | {"bot.host", "bot.settings", "bot.channels", *CHANNEL_LIBRARIES} <= set(core)
    assert set(packages) | {"bot.core", "bot.text"} <= set(
        expand(by_name["nothing of the product imports the composition root (bot.host)"])["source_modules"]
    )
    pictures = by_name["board pictures see only board data: no channel, no store, no game internals, no runtime"]
    assert set(packages) <= set(expand(pictures)["forbidden_modules"])
    text = by_name["bot.text, the text language of every channel, imports no channel nor their libraries"]
    assert set(packages) | {"bot.host", "bot.settings", "bot.channels", "bot.store", *CHANNEL_LIBRARIES} <= set(
        expand(text)["forbidden_modules"]
    )
