"""Where the project's non-Python resources live: the jinja2 templates and the alembic migrations.

In the repository they are the top-level ``templates/`` and ``migrations/``
folders (the product's shape).  A wheel cannot put top-level folders into
site-packages without clashing with other projects, so the build
(``[tool.hatch.build.targets.wheel.sources]`` in pyproject.toml) ships them
inside this package as ``bot/_templates`` and ``bot/_migrations``.  This
module finds them in that order:

1. ``bot/_templates`` / ``bot/_migrations`` inside the imported ``bot``
   package (``importlib.resources``): an installed wheel;
2. ``templates/`` / ``migrations/`` beside the ``bot`` package: a source
   checkout or an editable install (``pip install -e .``, a ``.pth`` line
   naming the checkout), so an edit to a template is seen at once.

The packaged copy wins, so a stray top-level ``templates/`` that some other
distribution put into site-packages is never picked up by an installed
wheel.  Both consumers need real directories (jinja2's ``FileSystemLoader``
and alembic's ``script_location``, which loads ``env.py``, ``script.py.mako``
and ``versions/``), so a package imported from a zip archive is refused with
a clear error rather than extracted somewhere.  Nothing here writes: alembic
only reads the migrations, and pip byte-compiles them at install time.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The checkout's root when ``bot`` is imported from a source tree (site-packages for a wheel)."""


class ResourcesMissing(RuntimeError):
    """The installation is incomplete: a resource folder is in none of the places it can be."""


def _locate(packaged: str, source: str) -> Path:
    """The directory holding a resource: packaged inside ``bot`` first, else the source tree."""
    package = files(__package__ or "bot")
    if not isinstance(package, Path):
        raise ResourcesMissing(
            f"the bot package is imported from {package!r}, not a folder; install referee unpacked (pip install)"
        )
    candidates = (package / packaged, PROJECT_ROOT / source)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    raise ResourcesMissing(
        f"referee's {source} are missing: looked in {' and '.join(map(str, candidates))}; "
        "reinstall the package, or run referee from a checkout"
    )


TEMPLATES_DIR = _locate("_templates", "templates")
MIGRATIONS_DIR = _locate("_migrations", "migrations")
RULES_DIR = _locate("_rules", "docs/rules")
"""Each game's rules page, ``<kind>.md`` (``RULES <kind>``, ``/rules`` and the web's ``/rules/<kind>`` show it),
and its translations, ``<language>/<kind>.md`` (``docs/rules/fr/lautobus.md``)."""

_KIND_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_KIND_LETTERS = _KIND_FIRST | {"_", "-"}


def _is_kind_name(text: str) -> bool:
    """A kind's name as the registry spells them: a word of at most 64 letters, never a path (no slash, no
    dot); read without a pattern, so this module imports nothing beyond the standard library."""
    return 0 < len(text) <= 64 and text[0] in _KIND_FIRST and all(letter in _KIND_LETTERS for letter in text)


def rules_page(kind: str, language: str | None = None) -> Path | None:
    """The rules page of ``kind`` (its ``<kind>.md`` in :data:`RULES_DIR`), or None when it has none; in
    ``language`` (a shipped language's code: ``fr``) its translation ``<language>/<kind>.md`` when there
    is one, else the English page.

    ``kind`` may come from a reader (a mail, a web address): anything that is not a kind's name
    (a slash, a dot, upper case) has no page, so no other file can be named through it; nor can a
    ``language`` that is not such a name.
    """
    if not _is_kind_name(kind):
        return None
    page = RULES_DIR / f"{kind}.md"
    if not page.is_file():
        return None
    if language and _is_kind_name(language):
        translated = RULES_DIR / language / f"{kind}.md"
        if translated.is_file():
            return translated
    return page
