"""Each game's rules page in every shipped language: ``docs/rules/<language>/<kind>.md``.

A translation says the same rules in other words; what a player types and what the code cites stays
as written.  So for every shipped language (:func:`bot.core.basics.translation.shipped`) and every kind
of the registry there is a translation, and against the English page (``docs/rules/<kind>.md``):

* its fenced blocks (the example orders, ``orders`` and ``orders-message``, the reports and tables
  shown as text) are the English page's, byte for byte and in order: orders are the same in every
  language;
* its headings carry the same section numbers and ruling ids, in order (``5.1``, ``L3``, ``LA-1``), so a
  citation (``docs/rules/lautobus.md 5.1``) names the same section in every language;
* its options table has the same options with the same defaults;
* every link to one of its own sections has an anchor on the page the web serves (``é`` in an
  anchor is sent percent-encoded, and a browser decodes it before it looks for the id).

And :func:`bot.resources.rules_page` picks the translation for its language, the English page for
English or a language without one, and never a path a reader could name.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from adjudicator import registry
from bot import resources
from bot.core.basics.translation import shipped
from bot.web.markdown_html import markdown_html

_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.M)
_REFERENCE = re.compile(r"^(?:\d+(?:\.\d+)*|[A-Z]{1,3}-?\d+)\b")
_OPTION_ROW = re.compile(r"^\| `([a-z0-9_]+)` \| (`[^|]*`) \|", re.M)
_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'\bhref="#([^"]*)"')

CASES = [(code, kind) for code in shipped() for kind in registry.kinds()]


def english(kind: str) -> str:
    return (resources.RULES_DIR / f"{kind}.md").read_text(encoding="utf-8")


def translated(code: str, kind: str) -> str:
    path = resources.RULES_DIR / code / f"{kind}.md"
    assert path.is_file(), f"docs/rules/{code}/{kind}.md is missing"
    return path.read_text(encoding="utf-8")


def references(page: str) -> list[tuple[int, str]]:
    """Each heading's level and the section number or ruling id it starts with ("" for none)."""
    found = []
    for marks, text in _HEADING.findall(_FENCE.sub("", page)):
        reference = _REFERENCE.match(text)
        found.append((len(marks), reference.group(0) if reference else ""))
    return found


def test_french_and_german_rules_are_shipped() -> None:
    assert {"fr", "de"} <= set(shipped())
    folders = {path.name for path in resources.RULES_DIR.iterdir() if path.is_dir()}
    assert folders <= set(shipped()), f"rules in a language with no catalogue: {sorted(folders - set(shipped()))}"


@pytest.mark.parametrize(("code", "kind"), CASES)
def test_a_translation_keeps_every_example_and_block_as_written(code: str, kind: str) -> None:
    blocks, source = _FENCE.findall(translated(code, kind)), _FENCE.findall(english(kind))
    assert any(block.startswith("```orders") for block in source)
    assert blocks == source, f"docs/rules/{code}/{kind}.md: its fenced blocks differ from the English page's"


@pytest.mark.parametrize(("code", "kind"), CASES)
def test_a_translation_has_the_same_sections_rulings_and_options(code: str, kind: str) -> None:
    page = translated(code, kind)
    assert references(page) == references(english(kind)), f"docs/rules/{code}/{kind}.md: headings differ"
    assert _OPTION_ROW.findall(page) == _OPTION_ROW.findall(english(kind)) != []


@pytest.mark.parametrize(("code", "kind"), CASES)
def test_a_translations_links_to_its_sections_have_anchors(code: str, kind: str) -> None:
    html = str(markdown_html(translated(code, kind)))
    ids = set(_ID.findall(html))
    assert [anchor for anchor in _HREF.findall(html) if unquote(anchor) not in ids] == []  # a browser decodes it
    assert bool(_HREF.findall(html)) == bool(_HREF.findall(str(markdown_html(english(kind)))))


def test_rules_page_picks_the_readers_language_else_english() -> None:
    kind = registry.kinds()[0]
    page = resources.rules_page(kind)
    assert page == resources.RULES_DIR / f"{kind}.md"
    assert resources.rules_page(kind, "fr") == resources.RULES_DIR / "fr" / f"{kind}.md"
    assert resources.rules_page(kind, "de") == resources.RULES_DIR / "de" / f"{kind}.md"
    for other in (None, "en", "xx", "..", "../fr", "fr/..", "FR"):
        assert resources.rules_page(kind, other) == page, other
    assert resources.rules_page("no-such-kind", "fr") is None
    assert resources.rules_page("../fr/" + kind, "fr") is None


def test_the_check_sees_a_changed_example(tmp_path: Path) -> None:
    kind = registry.kinds()[0]
    source = english(kind)
    block = next(block for block in _FENCE.findall(source) if block.startswith("```orders"))
    changed = source.replace(block, block.replace("\n", "\n ", 1), 1)
    assert _FENCE.findall(changed) != _FENCE.findall(source)
