"""Every path, document and ruling the project's prose names is in the repository.

A reader who clones the project must be able to open whatever its docs, README, docstrings and
comments refer to.  This test reads that prose (Markdown files whole; in Python, docstrings and
comments; in templates, ``{# ... #}`` comments; in TOML, shell, systemd and Docker files, ``#``
comments) and fails on:

* **a repository path that does not exist**: a token starting with one of :data:`TOP_FOLDERS`
  (``bot/core/commands/pipeline.py``, ``templates/email/``).  A part written ``<kind>``,
  ``{kind}`` or ``*`` is a placeholder and matches any one name (``templates/<kind>/report.txt.j2``
  needs at least one such file); :data:`BUILT` lists the paths that exist only in a built wheel;
* **a Markdown file that does not exist** (``ARCHITECTURE.md``, ``../rules/RULINGS.md``): a name
  with a folder is looked up from the repository's root, or in a Markdown file from the file's own
  folder; a bare name must be the name of some file of the repository;
* **a former outside document cited by a section**: the design guide and the rulings once lived
  outside the repository (:data:`OUTSIDE_DOCUMENTS`); their names followed by a section (an id, a
  quoted heading, ``section``) are citations of what a reader cannot open;
* **a ruling or section that is not a heading of the page it names**: ``docs/rules/lautobus.md 5.1``
  or ``docs/rules/golden-strider.md 1.1, G5`` needs headings starting ``5.1`` / ``1.1`` and ``G5``
  in that page; ``docs/architecture.md, "Trust"`` a heading "Trust"; and ``ruling G3`` (or
  ``rulings D3-D11``) a heading of the game whose rulings carry that letter (:data:`RULING_LETTERS`).

URLs are left out (``https://...`` names no file here), and so is this file, whose tests show
the forms it catches.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOP_FOLDERS = ("bot", "adjudicator", "tests", "templates", "docs", "deploy", "migrations", "scripts", "bench")
"""A token starting with one of these and a slash is a path in the repository."""

BUILT = frozenset({"bot/_templates", "bot/_migrations", "bot/_rules"})
"""Paths of the built wheel (pyproject.toml maps templates/, migrations/ and docs/rules/ there), not of the tree."""

SKIPPED = frozenset(
    {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "build", "dist"}
)
SKIPPED_PREFIXES = ("test-artifacts", "referee-demo")

HASH_COMMENTED = (".toml", ".example", ".service", ".sh", ".mako", ".cfg", ".ini")
"""Files whose ``#`` comments are prose (besides Dockerfiles and the scripts without an extension)."""

OUTSIDE_DOCUMENTS = ("RULINGS", "ARCHITECTURE")
"""Documents the code once cited that were never in the repository (now docs/rules/ and docs/architecture.md)."""

RULING_LETTERS = {
    "G": "golden-strider",
    "GS": "golden-strider",
    "P": "three-races",
    "PA": "three-races",
    "S": "strike-gold",
    "SG": "strike-gold",
    "D": "dragon-stripes",
    "DS": "dragon-stripes",
    "L": "lautobus",
    "LA": "lautobus",
}
"""Which game's page a ruling id (``G3``) or worked example (``GS-5``) belongs to, by its letters."""

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
_PATH = re.compile(
    r"(?<![\w./:@~-])(?:\./)?((?:" + "|".join(TOP_FOLDERS) + r")/[\w.<>{}*@/-]*)"
)  # fmt: skip
_MARKDOWN = re.compile(r"(?<![\w./:@~-])((?:\.\.?/)?[\w<>{}*./-]*?[\w>}]\.md)\b")
_ID = r"(?:\d+(?:\.\d+)?|[A-Z]{1,2}-\d+|[A-Z]\d+[a-z]?)"
_IDS = rf"{_ID}(?:\s*(?:,|/|-|–|and|or)\s*{_ID})*"
_RULES_CITATION = re.compile(rf"docs/rules/([a-z-]+)\.md,?(?:[ \t]+|[ \t]*\n[ \t]*)(?:section\s+)?({_IDS})\b")
_SECTION_CITATION = re.compile(r"((?:docs/)?[\w/-]+\.md),?[ \t]+\"([^\"\n]+)\"")
_RULING_WORD = re.compile(rf"\brulings?\s+({_IDS})\b")
_OUTSIDE_CITATION = re.compile(
    rf"\b({'|'.join(OUTSIDE_DOCUMENTS)})(?:\.md)?(?:,?\s+(?:section\s+\S+|{_ID}\b|\"[^\"\n]+\"))"
)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Prose:
    """A piece of prose of one file: its text and the line it starts on."""

    path: Path
    line: int
    text: str

    def where(self, offset: int) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line + self.text.count(chr(10), 0, offset)}"


def _kept(folder: str, name: str) -> bool:
    if name in SKIPPED or name.endswith(".egg-info"):
        return False
    return folder != str(ROOT) or not name.startswith(SKIPPED_PREFIXES)


def repository_files() -> Iterator[Path]:
    """Every file of the checkout, without what is built, cached or installed (never walked into)."""
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = sorted(name for name in subfolders if _kept(folder, name))
        for name in sorted(names):
            yield Path(folder) / name


@cache
def all_files() -> frozenset[str]:
    return frozenset(path.relative_to(ROOT).as_posix() for path in repository_files())


@cache
def all_names() -> frozenset[str]:
    return frozenset(name.rsplit("/", 1)[-1] for name in all_files())


@cache
def all_folders() -> frozenset[str]:
    return frozenset(name.rsplit("/", i)[0] for name in all_files() for i in range(1, name.count("/") + 1))


def python_prose(path: Path) -> Iterator[Prose]:
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield Prose(path, node.lineno, node.value.value)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Prose(path, token.start[0], token.string)


def hash_comments(path: Path) -> Iterator[Prose]:
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        found = re.search(r"(?:^|\s)#(.*)$", line)
        if found:
            yield Prose(path, number, found.group(1))


def prose_of(path: Path) -> Iterator[Prose]:
    """The prose of one file, by its kind (nothing for a file of data)."""
    relative = path.relative_to(ROOT)
    if path.suffix == ".md" or path.name.startswith("README"):
        yield Prose(path, 1, path.read_text(encoding="utf-8"))
    elif path.suffix == ".py":
        yield from python_prose(path)
    elif path.suffix == ".j2":
        text = path.read_text(encoding="utf-8")
        for comment in re.finditer(r"\{#(.*?)#\}", text, re.DOTALL):
            yield Prose(path, text.count("\n", 0, comment.start()) + 1, comment.group(1))
    elif (
        path.suffix in HASH_COMMENTED
        or path.name.startswith("Dockerfile")
        or (relative.parts[0] in ("scripts", ".ci") and not path.suffix)
    ):
        yield from hash_comments(path)


@cache
def all_paths() -> frozenset[str]:
    return all_files() | all_folders()


@cache
def headings(relative: str) -> tuple[frozenset[str], frozenset[str]]:
    """The first words of a page's headings (its ids: ``G3``, ``5.1``), and its headings in lower case."""
    path = ROOT / relative
    if not path.is_file():
        return frozenset(), frozenset()
    found = [match.group(1).strip() for match in _HEADING.finditer(path.read_text(encoding="utf-8"))]
    return frozenset(heading.split()[0] for heading in found), frozenset(heading.lower() for heading in found)


def _exists(path: str) -> bool:
    """Whether a repository path (with ``<x>``, ``{x}`` or ``*`` placeholders) names a file or folder."""
    bare = path.rstrip("/")
    if bare in BUILT or any(bare.startswith(built + "/") for built in BUILT):
        return True
    pattern = re.sub(r"<[^<>/]*>|\{[^{}/]*\}", "*", bare)
    if "*" not in pattern:
        return bare in all_files() or bare in all_folders()
    regex = re.compile("^" + re.escape(pattern).replace(r"\*", "[^/]*") + "$")
    return any(regex.match(name) for name in all_paths())


def _exists_from(base: Path, name: str) -> bool:
    """Whether ``name``, read from the folder ``base`` (a Markdown link is read from its page's folder), is here."""
    target = (base / name).resolve()
    return target.is_relative_to(ROOT) and _exists(target.relative_to(ROOT).as_posix())


def _ids(listed: str) -> list[str]:
    return re.findall(_ID, listed)


def problems_in(prose: Prose) -> Iterator[str]:
    text = _URL.sub(lambda url: " " * len(url.group()), prose.text)
    for found in _PATH.finditer(text):
        path = found.group(1).rstrip(".,:;)'`\"")
        if not _exists(path):
            yield f"{prose.where(found.start())}: {path} is not in the repository"
    for found in _MARKDOWN.finditer(text):
        name = found.group(1)
        if name.startswith(TOP_FOLDERS) and "/" in name:
            continue  # a repository path: checked above
        if "/" not in name:
            if re.search(r"[<{*]", name):
                continue  # a placeholder (``<kind>.md``): where it stands, its folder is a path checked above
            if name not in all_names():
                yield f"{prose.where(found.start())}: {name} is not in the repository"
            continue
        bases = (prose.path.parent, ROOT) if prose.path.suffix == ".md" else (ROOT,)
        if not any(_exists_from(base, name) for base in bases):
            yield f"{prose.where(found.start())}: {name} is not in the repository"
    for found in _OUTSIDE_CITATION.finditer(text):
        yield f"{prose.where(found.start())}: cites {found.group(0)!r}, which is not in the repository"
    for found in _RULES_CITATION.finditer(text):
        page = f"docs/rules/{found.group(1)}.md"
        ids, _ = headings(page)
        for ruling in _ids(found.group(2)):
            if ruling not in ids:
                yield f"{prose.where(found.start())}: {ruling} is not a heading of {page}"
    for found in _SECTION_CITATION.finditer(text):
        page = found.group(1)
        _, titles = headings(page)
        if page.startswith("docs/") and found.group(2).lower() not in titles:
            yield f"{prose.where(found.start())}: {page} has no heading {found.group(2)!r}"
    for found in _RULING_WORD.finditer(text):
        for ruling in _ids(found.group(1)):
            letters = re.match(r"[A-Z]*", ruling)
            kind = RULING_LETTERS.get(letters.group() if letters else "")
            if kind is None:
                continue  # a number: its game is named elsewhere (``docs/rules/<kind>.md 5.1``)
            if ruling not in headings(f"docs/rules/{kind}.md")[0]:
                yield f"{prose.where(found.start())}: ruling {ruling} is not a heading of docs/rules/{kind}.md"


def problems() -> list[str]:
    return [
        problem
        for path in repository_files()
        if path != Path(__file__).resolve()  # its tests write what it catches
        for prose in prose_of(path)
        for problem in problems_in(prose)
    ]


def test_every_path_document_and_ruling_named_is_in_the_repository() -> None:
    found = problems()
    assert not found, f"{len(found)} reference(s) to what is not in the repository:\n" + "\n".join(found)


def _problems_of(text: str, name: str = "bot/example.py") -> list[str]:
    return list(problems_in(Prose(ROOT / name, 1, text)))


def test_what_it_catches_and_what_it_lets_pass() -> None:
    """The attacks: each kind of dangling reference is caught; real references and placeholders pass."""
    assert _problems_of("see shared/design/ARCHITECTURE.md") != []
    assert _problems_of("the rulings (RULINGS.md section 5.2)") != []
    assert _problems_of("hands are public, RULINGS 5.1") != []
    assert _problems_of('as ARCHITECTURE "How a game plugs in" says') != []
    assert _problems_of("bot/core/commands/nowhere.py") != []
    assert _problems_of("tests/core/test_nothing_here.py checks it") != []
    assert _problems_of("docs/rules/lautobus.md 9.9") != []
    assert _problems_of("docs/rules/lautobus.md 5.1, L99") != []
    assert _problems_of("ruling G99") != []
    assert _problems_of("rulings D3-D99") != []
    assert _problems_of('docs/architecture.md, "No such part"') != []
    assert _problems_of("[rules](../rules/RULINGS.md)", "docs/rules/lautobus.md") != []

    assert _problems_of("bot/core/commands/pipeline.py: authorise") == []
    assert _problems_of("templates/<kind>/report.txt.j2 and bot/<channel>/channel.py") == []
    assert _problems_of("tests/*/fuzz, templates/email/, docs/rules/{kind}.md") == []
    assert _problems_of("docs/rules/lautobus.md 5.1, L4 and L8; docs/rules/golden-strider.md 1.1 steps 1-7") == []
    assert _problems_of("ruling G3, rulings D3-D11, rulings L2 and L3") == []
    assert _problems_of("README.md, deploy/HOSTING.md; https://example.org/shared/x/ARCHITECTURE.md") == []
    assert _problems_of("[the rules](rules/lautobus.md)", "docs/architecture.md") == []
    assert _problems_of("SET DEADLINE gs1 2027-01-04 18:00, HELP GM, STAND IN gs1 #2") == []
