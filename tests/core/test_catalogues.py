"""The shipped catalogues are complete and agree with the sources (bot/locale, scripts/catalogues).

The marked strings are extracted here with Babel's own extractor and ``babel.cfg``, exactly as
``scripts/catalogues`` does, and compared with ``bot/locale/referee.pot``: a string marked, changed
or unmarked since the last run of the script fails.  Every shipped catalogue must translate every
message of the ``.pot`` (none missing, fuzzy or empty) with the same placeholders as its source.
A message a catalogue lacks, or leaves fuzzy or empty, is said in English.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_keywords, parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from bot.core.basics import translation
from bot.core.basics.translation import LOCALE_DIR, catalogue_path, compile_catalogue, gettext, shipped, speaking
from bot.core.messaging.rendering import environment

ROOT = Path(__file__).resolve().parents[2]


def _keywords() -> dict[str, object]:
    """The keywords scripts/catalogues gives pybabel, read from it (one list for the tool and this test)."""
    found = re.search(r'--keywords="([^"]+)"', (ROOT / "scripts" / "catalogues").read_text())
    assert found is not None, "scripts/catalogues gives pybabel no --keywords"
    return parse_keywords(found.group(1).split())


KEYWORDS = _keywords()
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdifrx%]|\{(\w+)(?:[:!][^{}]*)?\}")
"""A template's ``%(name)s`` (and ``%%``), or an engine pattern's ``{name}`` (adjudicator/words.py)."""


def _key(message_id: object, context: str | None) -> tuple[str | None, str]:
    return context, message_id if isinstance(message_id, str) else str(message_id[0])  # type: ignore[index]


def _extracted() -> set[tuple[str | None, str]]:
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = extract_from_dir(str(ROOT), method_map, options_map, keywords=KEYWORDS)
    return {_key(message, context) for _file, _line, message, _comments, context in found}


def _read(path: Path, code: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=code)


def _ids(catalogue: Catalog) -> set[tuple[str | None, str]]:
    return {_key(m.id, m.context) for m in catalogue if m.id}


def _few(texts: list[str]) -> str:
    """The first few of ``texts`` (shortened) and how many there are: a failure's message stays readable."""
    shown = "\n".join(f"  {t[:100]!r}" for t in texts[:8])
    return f"{len(texts)}:\n{shown}" + ("\n  ..." if len(texts) > 8 else "")


def _strings(value: object) -> list[str]:
    """A message's text, or each of a plural's forms."""
    return [str(v) for v in value] if isinstance(value, tuple | list) else [str(value or "")]


def _placeholders(text: str) -> list[str]:
    return sorted(
        m.group(1) or (m.group(2) and "{" + m.group(2) + "}") or m.group(0) for m in PLACEHOLDER.finditer(text)
    )


def test_the_template_catalogue_is_what_the_sources_mark() -> None:
    pot = _ids(_read(LOCALE_DIR / "referee.pot"))
    extracted = _extracted()
    assert extracted, "nothing marked: the extraction found no message"
    assert not extracted - pot, "marked but not in referee.pot (run scripts/catalogues): " + _few(
        sorted(t for _c, t in extracted - pot)
    )
    assert not pot - extracted, "in referee.pot but marked nowhere (run scripts/catalogues): " + _few(
        sorted(t for _c, t in pot - extracted)
    )


def test_french_and_german_are_shipped() -> None:
    assert {"fr", "de"} <= set(shipped())


@pytest.mark.parametrize("code", shipped())
def test_a_shipped_catalogue_translates_every_message(code: str) -> None:
    pot = _read(LOCALE_DIR / "referee.pot")
    catalogue = _read(catalogue_path(code), code)
    missing = sorted(_ids(pot) - _ids(catalogue))
    assert not missing, f"{code}: messages not in the catalogue (run scripts/catalogues): " + _few(
        [t for _c, t in missing]
    )
    fuzzy = sorted(str(m.id) for m in catalogue if m.id and m.fuzzy)
    assert not fuzzy, f"{code}: fuzzy translations: " + _few(fuzzy)
    empty = sorted(str(m.id) for m in catalogue if m.id and not all(_strings(m.string)))
    assert not empty, f"{code}: untranslated messages: " + _few(empty)


@pytest.mark.parametrize("code", shipped())
def test_a_translation_has_its_sources_placeholders(code: str) -> None:
    wrong = []
    for message in _read(catalogue_path(code), code):
        if not message.id:
            continue
        sources, translated = _strings(message.id), _strings(message.string)
        want = _placeholders(sources[-1])
        for text in filter(None, translated):  # an empty one is said in English (and fails the test above)
            got = _placeholders(text)
            # A plural's singular may say "one" in words where its source says %(n)s.
            if got != want and not (len(sources) > 1 and set(got) <= set(want)):
                wrong.append(f"{sources[0]!r}: {want} but {got} in {text!r}")
    assert not wrong, f"{code}: placeholders differ: " + _few(wrong)


def test_the_placeholder_check_sees_a_difference() -> None:
    assert _placeholders("Seat %(seat)s of %(max)s, 100%%") != _placeholders("Siège %(seat)s, 100%%")
    assert _placeholders("a %(x)s b %(y)s") == _placeholders("%(y)s puis %(x)s")
    assert _placeholders("{seat} tripped on square {square}") == _placeholders("{seat} trébuche sur la case {square}")
    assert _placeholders("{seat} tripped on square {square}") != _placeholders("{seat} trébuche sur la case {case}")


def test_a_missing_translation_is_said_in_english() -> None:
    with speaking("fr"):
        assert gettext("a sentence no catalogue has") == "a sentence no catalogue has"
        assert gettext("IGNORED") == "IGNORÉ"
        template = environment("email").from_string('{{ _("no catalogue has %(this)s", this="this") }}')
        assert template.render() == "no catalogue has this"


def test_a_fuzzy_or_empty_translation_is_said_in_english(tmp_path: Path) -> None:
    catalogue = Catalog(locale="fr")
    catalogue.add("kept", "gardé")
    catalogue.add("doubtful", "douteux", flags=("fuzzy",))
    catalogue.add("not yet", "")
    path = tmp_path / "referee.po"
    with path.open("wb") as out:
        write_po(out, catalogue)
    translations = compile_catalogue(path, "fr")
    assert translations.gettext("kept") == "gardé"
    assert translations.gettext("doubtful") == "doubtful"
    assert translations.gettext("not yet") == "not yet"


def test_the_web_pages_words_are_in_the_same_catalogue() -> None:
    """``babel.cfg`` reads ``templates/web/*.html.j2`` too (its jinja2 pattern for every template): the pages' words and
    their contexts are in the one domain, and every page's template marks some."""
    extracted = _extracted()
    for context, text in ((None, "The club's games"), (None, "The rules of %(title)s"),
                          ("status", "running"), (None, "Not found")):  # fmt: skip
        assert (context, text) in extracted, text
    pages = {p.name for p in (ROOT / "templates" / "web").glob("*.html.j2")}
    marked = set()
    for page in pages:
        source = (ROOT / "templates" / "web" / page).read_text(encoding="utf-8")
        if "_(" in source or "{% trans" in source:
            marked.add(page)
    assert marked == pages, f"pages with no marked word: {sorted(pages - marked)}"


@pytest.mark.parametrize("code", ["en", "fr", "de"])
def test_the_templates_gettext_says_what_jinja2s_newstyle_gettext_says(code: str) -> None:
    """The environment's gettext callables (installed without jinja2's wrapping, for speed) translate and
    put variables in as jinja2's own newstyle ones do: ``%%``, ``num``, ``context``, a variable named
    like a parameter."""
    plain = jinja2.Environment(extensions=["jinja2.ext.i18n"], autoescape=False)
    plain.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=True, pgettext=translation.pgettext,
        npgettext=translation.npgettext,
    )  # fmt: skip
    source = (
        '{{ _("IGNORED") }}|{{ gettext("100%% of %(message)s", message="x") }}|{{ _("a %(n)s", n=2) }}|'
        "{% trans count=3 %}{{ count }} turn{% pluralize %}{{ count }} turns{% endtrans %}|"
        '{{ ngettext("%(num)d game", "%(num)d games", 1) }}|{{ ngettext("%(num)d game", "%(num)d games", 4) }}|'
        '{{ pgettext("place", "first") }}|{{ pgettext("place", "%(place)sth", place=11) }}|'
        '{{ npgettext("x", "%(num)d seat", "%(num)d seats", 2) }}'
    )
    with speaking(code):
        ours = environment("email").from_string(source).render()
        theirs = plain.from_string(source).render()
    assert ours == theirs
    if code == "fr":
        assert ours.startswith("IGNORÉ|100% of x|a 2|")
