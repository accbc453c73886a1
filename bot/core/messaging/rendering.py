"""Rendering messages with jinja2: each channel's form of a template name + data.

A *form* is a folder of templates one channel renders with: ``email``
(78-column plain text), or another channel's own folder.
:func:`render_message` renders ``templates/<form>/<template>.txt.j2``; a
form's template may start with a ``Title: ...`` line (an email's subject, a
forum post's title), returned apart.
Templates say the core's reply codes with the global ``phrase(code, data)``,
which takes the form's own ``templates/<form>/phrases.j2`` macro of that name
when there is one, else the shared ``templates/common/phrases.j2`` one (the code
``gm_action`` takes the phrase the action's declaration names:
:mod:`bot.core.messaging.announcements`); the
game's own part of a report is ``game_report(data)``; one item of a digest is ``digest_item(entry)``,
rendered by its own template (a :class:`Rendered`: title and body; :data:`ITEM_FORM`).  An adapter may add
filters of its own (Discord timestamps) to ``environment(form).filters``.
Templates mark their words for translation with jinja2's i18n extension
(``{% trans %}...{% endtrans %}``, ``_("... %(name)s", name=value)``: newstyle gettext), said in
the reader's language (:mod:`bot.core.basics.translation`); orders and command words are never marked.

Each game has ``templates/<kind>/report.txt.j2``; it is rendered with:

* ``report``: the plain data of :attr:`adjudicator.api.Resolution.report`;
* ``events``: the turn's events as lines of text;
* ``seat``: the seat the copy is for (None for the public copy);
* ``private``: that seat's private data (``Resolution.private[seat]``) or None.

``templates/<form>/report.txt.j2`` wrap it with a header (game, turn, deadlines in
UTC and the game's time zone, seed commitment or reveal) and a footer.
Filters for columns, each measuring display columns
(:mod:`bot.core.basics.display_width`: East Asian wide and fullwidth characters
take two, combining marks none), so that tables line up whatever the names:
``width`` (the columns a value takes), ``ljust(width)``, ``rjust(width)``, ``cell(width)``
(right-aligned, ``-`` for zero when asked: ``cell(3, dash_zero=True)``),
``clip(width)`` (shorten with ``~``), ``wrap(width, indent)`` for prose (and
Jinja's ``wordwrap``, redefined to measure columns),
``pack(width, lead, indent, sep)`` for a list of short items on as few lines
as fit (an item is never split), ``widest(limit, attribute)`` for the width of a name column,
``ordinal`` for a place said as a word (``first``), ``status_word`` for a game's status
in the language being spoken (``running``: ``en cours``), ``language_name`` for a language's code named in
the language being spoken (``fr``: ``French``, ``français``), ``seat_labels(width)`` for a table's name
column (names that fit, else numbered clipped names with a legend: every
line of a mail fits in 78 columns, whatever the names), and
``when(time_zone)`` for a stored ISO time shown in UTC and the game's zone, or, in a copy for a person who
chose a zone of their own (its data's ``reader_zone``: :mod:`bot.core.messaging.delivery`), in that zone
first and then UTC (:func:`bot.core.basics.durations.format_moment_for_reader`).

The plain form (``FORMAT PLAIN``: a copy whose data's ``reader_format`` is
``plain``, :data:`READER_FORMAT`) is for a reader who listens to the text (a
screen reader): the same facts in the same order, in sentences and lists
instead of tables and drawn boards.  It is chosen in one place,
:func:`chosen_template`: every template ``<name>.txt.j2`` with a sibling
``<name>.plain.txt.j2`` (a game's ``templates/<kind>/report.plain.txt.j2``, a
form's ``report.plain.txt.j2``) is rendered by that sibling for such a reader,
and ``phrase`` looks first in ``templates/<form>/phrases.plain.j2`` and
``templates/common/phrases.plain.j2``.  A template without a sibling has no
table to read out, and serves both forms.
"""

from __future__ import annotations

import json
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jinja2
from babel import Locale, UnknownLocaleError
from jinja2 import meta
from jinja2.filters import do_wordwrap

from adjudicator.options import option_text
from adjudicator.order_commitments import short_commitment
from adjudicator.text import a_or_an
from bot.core.basics.display_width import WidthWrapper, clip, display_width, pad_left, pad_right
from bot.core.basics.durations import format_moment, format_moment_for_reader
from bot.core.basics.engine_words import spoken
from bot.core.basics.markdown_text import markdown_text
from bot.core.basics.translation import (
    gettext,
    gettext_said,
    language,
    mark,
    ngettext,
    ngettext_said,
    npgettext,
    npgettext_said,
    pgettext,
    pgettext_said,
    speaking,
)
from bot.core.messaging.announcements import GM_ACTION, announcement_phrase
from bot.resources import TEMPLATES_DIR, rules_page


def _ljust(value: object, width: int) -> str:
    return pad_right(str(value), width)


def _rjust(value: object, width: int) -> str:
    return pad_left(str(value), width)


def _cell(value: object, width: int, dash_zero: bool = False) -> str:
    text = "-" if dash_zero and value in (0, None) else str(value)
    return pad_left(text, width)


def _widest(items: Iterable[Mapping[str, Any]], limit: int, attribute: str) -> int:
    """Template filter ``widest(limit, attribute)``: the widest ``item[attribute]`` in display columns
    among those at most ``limit`` wide (0 when none is): the width of a table's name column."""
    return max((w for item in items if (w := display_width(str(item[attribute]))) <= limit), default=0)


def _width(value: object) -> int:
    """Template filter ``width``: the columns a value takes (``names|map('width')|max`` sizes a name column)."""
    return display_width(str(value))


_WRAP_SPACES = frozenset("\t\n\x0b\x0c\r")
"""The characters :func:`textwrap.wrap` turns into spaces (besides the space itself)."""


def _wrap(value: object, width: int = 78, indent: str = "  ") -> str:
    """Wrap a long line of prose at ``width`` columns, continuation lines indented (:func:`textwrap.wrap`).

    Pure-ASCII text (nearly every line) is measured in characters, with
    textwrap itself; other text in columns (:class:`bot.core.basics.display_width.WidthWrapper`:
    a CJK character takes two, a combining mark none).
    A line that already fits, with no whitespace for textwrap to change (no
    tab, newline or other control space; not ending in a space of any kind), is its own result
    and is returned as it is: most lines of a report fit, and textwrap's
    splitting was a third of rendering one (9,000 report mails: 1.06 of 2.9 s
    in a profile).  ``tests/core/test_wrap_filter.py`` checks the two agree.
    """
    text = str(value)
    if not text.isascii():
        if 0 < display_width(text) <= width and not text[-1].isspace() and _WRAP_SPACES.isdisjoint(text):
            return text
        return "\n".join(WidthWrapper(width, subsequent_indent=indent, break_on_hyphens=False).wrap(text)) or ""
    if 0 < len(text) <= width and not text[-1].isspace() and _WRAP_SPACES.isdisjoint(text):
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)) or ""


@jinja2.pass_environment
def _wordwrap(
    env: jinja2.Environment,
    value: object,
    width: int = 79,
    break_long_words: bool = True,
    wrapstring: str | None = None,
    break_on_hyphens: bool = True,
) -> str:
    """Jinja's ``wordwrap`` measuring columns: each line of ``value`` wrapped at ``width``, joined by ``wrapstring``.

    ASCII text goes to Jinja's own filter (the same result, its speed).
    """
    text = str(value)
    if text.isascii():
        return str(do_wordwrap(env, text, width, break_long_words, wrapstring, break_on_hyphens))
    wrapper = WidthWrapper(
        width, expand_tabs=False, replace_whitespace=False, break_long_words=break_long_words,
        break_on_hyphens=break_on_hyphens,
    )  # fmt: skip
    joint = env.newline_sequence if wrapstring is None else wrapstring
    return joint.join(joint.join(wrapper.wrap(line)) for line in text.splitlines())


_ORDINALS = (
    mark("place", "first"),
    mark("place", "second"),
    mark("place", "third"),
    mark("place", "fourth"),
    mark("place", "fifth"),
    mark("place", "sixth"),
    mark("place", "seventh"),
    mark("place", "eighth"),
    mark("place", "ninth"),
    mark("place", "tenth"),
)
"""A place said as a word, marked for the catalogues (said with ``pgettext("place", word)``)."""
_PAST_TENTH = mark("place", "%(place)sth")
"""A place past the tenth: English says ``11th``, ``22nd`` itself; a catalogue says its own form (``11e``)."""


def _ordinal(value: object) -> str:
    """Template filter ``ordinal``: a place said as a word (``first`` ... ``tenth``), then ``11th``,
    ``22nd``, in the language being spoken (:func:`bot.core.basics.translation.pgettext`, context
    ``place``); a value that is not a whole number (a tie's ``=2``, a dash) as it is."""
    text = str(value).strip()
    if not text.isdigit() or int(text) == 0:
        return text
    n = int(text)
    if n <= len(_ORDINALS):
        return pgettext("place", _ORDINALS[n - 1])
    said = pgettext("place", _PAST_TENTH)
    if said != _PAST_TENTH:
        return said % {"place": n}
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_STATUSES = frozenset(
    (mark("status", "forming"), mark("status", "running"), mark("status", "paused"), mark("status", "finished"),
     mark("status", "abandoned"))
)  # fmt: skip
"""A game's statuses (bot.core.games.stored), each a word of the catalogues (context ``status``)."""


def _status_word(status: object) -> str:
    """Template filter ``status_word``: a game's status (``running``) said in the language being spoken
    (``en cours``); anything else as it is."""
    text = str(status)
    return pgettext("status", text) if text in _STATUSES else text


def _language_name(code: object) -> str:
    """Template filter ``language_name``: the language ``code`` (``fr``) named in the language being spoken, as
    a word in the middle of a sentence reads (Babel's CLDR names: ``French`` in English, ``français`` in
    French, ``Französisch`` in German); the code itself for one Babel does not know."""
    text = str(code or "")
    try:
        name = Locale.parse(text.replace("-", "_")).get_display_name(language())
    except (ValueError, TypeError, UnknownLocaleError):
        return text
    return name or text


def _clip(value: object, width: int) -> str:
    return clip(str(value), width)


def _pack(items: object, width: int = 78, lead: str = "", indent: str = "  ", sep: str = ", ") -> str:
    """``lead`` then the items joined by ``sep``, as many to a line as fit in ``width``; an item is never split.

    Continuation lines start with ``indent``; an item longer than a line gets
    a line of its own (the caller keeps items short enough to fit).
    """
    texts = (
        [str(item) for item in items] if isinstance(items, Iterable) and not isinstance(items, str) else [str(items)]
    )
    lines: list[str] = []
    line = lead
    for i, text in enumerate(texts):
        piece = text + (sep.rstrip() if i < len(texts) - 1 else "")
        gap = "" if line in (lead, indent) else " " * (len(sep) - len(sep.rstrip()))
        if line not in (lead, indent) and display_width(line + gap + piece) > width:
            lines.append(line)
            line, gap = indent, ""
        line += gap + piece
    lines.append(line)
    return "\n".join(lines)


@dataclass(frozen=True)
class SeatLabels:
    """What a table shows for each seat in a column ``width`` wide, and the legend that names them.

    When every name fits, a seat's label is its name and there is no legend.
    Otherwise every seat is numbered in the order given (``" 3 Steve Ovett-~"``,
    the number right-aligned) and the name clipped to the rest of the column;
    :meth:`legend` then lists each number with the full name, so that a clipped
    name is always recoverable, even when two names share their first letters.
    """

    labels: Mapping[str, str]
    numbers: Mapping[str, int]
    clipped: bool

    def __getitem__(self, seat: str) -> str:
        return self.labels[seat]

    def legend(self, width: int = 78, heading: str = "Who is who:") -> str:
        """``heading`` and ``n = full name`` for every seat in aligned columns of ``width``; "" when nothing was clipped.

        Entries run left to right, then down (1 2 / 3 4 ...), as many to a line as fit.
        """
        if not self.clipped:
            return ""
        digits = len(str(len(self.numbers)))
        entries = [f"{n:>{digits}} = {seat}" for seat, n in self.numbers.items()]
        cell = max(display_width(entry) for entry in entries) + 3
        per_line = max(1, (width - 2 + 3) // cell)
        lines = [heading]
        for start in range(0, len(entries), per_line):
            row = entries[start : start + per_line]
            lines.append("  " + "".join(pad_right(entry, cell) for entry in row[:-1]) + row[-1])
        return "\n".join(lines)


def _seat_labels(names: object, width: int) -> SeatLabels:
    seats = list(dict.fromkeys(str(name) for name in names)) if isinstance(names, Iterable) else []
    numbers = {seat: i + 1 for i, seat in enumerate(seats)}
    if all(display_width(seat) <= width for seat in seats):
        return SeatLabels({seat: seat for seat in seats}, numbers, False)
    digits = len(str(len(seats)))
    labels = {seat: _clip(f"{n:>{digits}} {seat}", width) for seat, n in numbers.items()}
    return SeatLabels(labels, numbers, True)


READER_ZONE = "reader_zone"
"""The data key of a person's own zone in their copy (set by :mod:`bot.core.messaging.delivery`)."""
READER_LANGUAGE = "reader_language"
"""The data key of a person's language (``players.language``: ``fr``) in their copy, when they chose one."""
READER_FORMAT = "reader_format"
"""The data key of a person's form (``players.text_format``: ``plain``) in their copy, when they chose one."""
_READER: ContextVar[str | None] = ContextVar("reader_zone", default=None)
"""The zone of the reader of the message being rendered (:func:`render_message`), for ``when``."""
PLAIN = "plain"
"""The value of :data:`READER_FORMAT` that asks for sentences and lists instead of tables (``FORMAT PLAIN``)."""
_PLAIN: ContextVar[bool] = ContextVar("reader_plain", default=False)
"""Whether the reader of the message being rendered chose the plain form (:func:`render_message`)."""
_PLAIN_SUFFIX = ".plain.txt.j2"


def _when(value: object, time_zone: str = "UTC") -> str:
    """A stored moment (ISO text or datetime) in UTC and the game's zone, or in the reader's own zone
    then UTC when the message is for a reader who chose one; a dash for none."""
    if value is None or value == "":
        return "-"
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    reader = _READER.get()
    if reader:
        try:
            return format_moment_for_reader(moment, ZoneInfo(reader))
        except (ValueError, KeyError):
            pass  # a zone this machine no longer reads: the game's, as for everyone
    return format_moment(moment, ZoneInfo(time_zone))


def _rules_in_language(text: str, kind: str) -> str:
    """A kind's rules page as mailed text (``RULES <kind>``: ``text``, the English page) in the language
    being spoken: its translation (``docs/rules/<language>/<kind>.md``) when there is one, else ``text``."""
    speaking_now = language()
    return _translated_rules(str(kind), speaking_now) or text if speaking_now != "en" else text


@lru_cache(maxsize=32)
def _translated_rules(kind: str, code: str) -> str | None:
    """The translation of ``kind``'s rules page into ``code`` as mailed text, read once; None: none."""
    english, page = rules_page(kind), rules_page(kind, code)
    return None if page is None or page == english else markdown_text(page.read_text(encoding="utf-8"))


_UNREAD = object()


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Where the templates' compiled code is kept between runs: jinja2's own cache in the system's temporary
    folder (``_jinja2-cache-<uid>``, made by and for this user only, mode 0700; each entry keyed by the
    template's name and a checksum of its text, so an edited template is compiled again).  Compiling the
    phrase catalogues is about half a second a process; reading their code back, a few milliseconds.
    None (compile each start) when no such folder can be made or trusted."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


@lru_cache(maxsize=16)
def environment(form: str = "common", directory: Path = TEMPLATES_DIR) -> jinja2.Environment:
    """The jinja2 environment of one form: strict undefineds, no autoescape (plain text)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        auto_reload=False,  # the templates are the package's own: read once a process, not stat'ed each use
        bytecode_cache=_bytecode_cache(),
    )
    # The reader's language (bot.core.basics.translation, set by render_message): newstyle gettext,
    # so _("... %(name)s", name=x) formats and a missing translation is the English source.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext, ngettext, newstyle=True, pgettext=pgettext, npgettext=npgettext
    )
    # The same callables without jinja2's wrapping (a context call each, then an lru lookup of the language):
    # each reads the translations speaking() installed and puts the variables in, as newstyle gettext does.
    env.globals.update(
        gettext=gettext_said, _=gettext_said, ngettext=ngettext_said, pgettext=pgettext_said,
        npgettext=npgettext_said,
    )  # fmt: skip
    env.filters.update(
        ljust=_ljust, rjust=_rjust, cell=_cell, clip=_clip, wrap=_wrap, wordwrap=_wordwrap, pack=_pack,
        seat_labels=_seat_labels, when=_when, width=_width, widest=_widest, a_or_an=a_or_an,
        commitment=short_commitment, ordinal=_ordinal, rules_in_language=_rules_in_language,
        language_name=_language_name, status_word=_status_word, option_value=option_text,
    )  # fmt: skip
    catalogues = [f"{form}/phrases.j2", "common/phrases.j2"] if form != "common" else ["common/phrases.j2"]
    plain_catalogues = [name.replace(".j2", ".plain.j2") for name in catalogues] + catalogues
    modules: dict[str, Any] = {}
    """Each catalogue's macros (None: no such catalogue), read once: templates are not reloaded."""

    def phrase(code: str, data: Mapping[str, Any]) -> str:
        if code == GM_ACTION:  # the phrase the action's declaration names (looked up again: a caller may wrap it)
            said: Callable[[str, Mapping[str, Any]], str] = env.globals["phrase"]  # type: ignore[assignment]
            return str(said(announcement_phrase(str(data["action"])), data))
        for name in plain_catalogues if _PLAIN.get() else catalogues:
            module = modules.get(name, _UNREAD)
            if module is _UNREAD:
                try:
                    module = modules[name] = env.get_template(name).module
                except jinja2.TemplateNotFound:
                    module = modules[name] = None
            if module is None:
                continue
            macro = getattr(module, code, None)
            if macro is not None:
                return str(macro(data)).strip("\n")
        raise KeyError(f"no phrase {code!r} in {' or '.join(catalogues)}")

    def game_report(data: Mapping[str, Any]) -> str:
        return render_report_body(
            str(data["kind"]), data["report"], data.get("events", ()), data.get("seat"), data.get("private")
        )

    def digest_item(entry: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> Rendered:
        template = str(entry["template"])
        form_of = env.globals.get(ITEM_FORM)
        shown_in = str(form_of(template)) if callable(form_of) else form
        return render_message(shown_in, template, {**entry["data"], "context": {}, **(overrides or {})})

    env.globals.update(phrase=phrase, game_report=game_report, digest_item=digest_item)
    return env


ITEM_FORM = "item_form"
"""The global of a form's environment an adapter may set: the form (a function of the template's name) in
which ``digest_item(entry)`` renders one item of a digest (:mod:`bot.core.messaging.digest_pass`) with its
own template; without it, the digest's own form."""


def reads_plain(data: Mapping[str, Any]) -> bool:
    """Whether a message's data asks for the plain form (its reader chose ``FORMAT PLAIN``)."""
    return data.get(READER_FORMAT) == PLAIN


def chosen_template(template: str, plain: bool | None = None) -> str:
    """The template to render for ``template`` (``<name>.txt.j2``): its sibling ``<name>.plain.txt.j2``
    when the reader chose the plain form (``plain``; by default, the message being rendered's reader) and
    the sibling exists, else ``template`` itself.  The one place the plain form is chosen."""
    if not (_PLAIN.get() if plain is None else plain) or not template.endswith(".txt.j2"):
        return template
    sibling = template.removesuffix(".txt.j2") + _PLAIN_SUFFIX
    return sibling if _exists(sibling) else template


@lru_cache(maxsize=256)
def _exists(template: str) -> bool:
    """Whether ``template`` is a template of the default environment (its loader finds it)."""
    env = environment()
    if env.loader is None:
        return False
    try:
        env.loader.get_source(env, template)
    except jinja2.TemplateNotFound:
        return False
    return True


def render(template: str, data: Mapping[str, Any], form: str = "common") -> str:
    """Render ``template`` (a path under templates/) with ``data``; trailing spaces trimmed."""
    text = environment(form).get_template(template).render(**spoken(data))
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


@dataclass(frozen=True)
class Rendered:
    """A message in one channel's form: its title line (if the form has one) and its body."""

    title: str | None
    body: str


def render_message(form: str, template: str, data: Mapping[str, Any]) -> Rendered:
    """``templates/<form>/<template>.txt.j2`` with ``data``; a first line ``Title: ...`` is split off.
    Its times are in the reader's own zone first when ``data`` names one (:data:`READER_ZONE`), its words in
    the reader's language when it names one (:data:`READER_LANGUAGE`; English otherwise:
    :mod:`bot.core.basics.translation`), and it is in the plain form when ``data`` asks for it
    (:data:`READER_FORMAT`, :func:`chosen_template`)."""
    token = _READER.set(data.get(READER_ZONE) or None)
    plain = _PLAIN.set(reads_plain(data))
    try:
        with speaking(data.get(READER_LANGUAGE) or None):
            text = render(chosen_template(f"{form}/{template}.txt.j2"), data, form)
    finally:
        _PLAIN.reset(plain)
        _READER.reset(token)
    if text.startswith("Title:"):
        first, _, rest = text.partition("\n")
        return Rendered(first.removeprefix("Title:").strip(), rest.lstrip("\n"))
    return Rendered(None, text)


def render_report_body(
    kind: str,
    report: Mapping[str, Any],
    events: Sequence[str] = (),
    seat: str | None = None,
    private: Mapping[str, Any] | None = None,
    plain: bool | None = None,
) -> str:
    """The game's own part of a turn report (``templates/<kind>/report.txt.j2``, or its plain form
    ``report.plain.txt.j2`` when ``plain``; by default, when the message being rendered asks for it).

    When the game's template uses neither ``seat`` nor ``private`` (the part is
    the same in every copy of a turn's report: Golden Strider, Lautobus), it
    is rendered once per report, form and language and kept (:data:`_SHARED_BODIES`, keyed by the template
    chosen and the language), not once per recipient.
    """
    template = chosen_template(f"{kind}/report.txt.j2", plain)
    data = {"report": report, "events": list(events), "seat": seat, "private": private}
    if not _seat_independent(template):
        return render(template, data)
    try:
        key = (
            f"{template}|{_READER.get() or ''}|{language()}",
            json.dumps([report, data["events"]], sort_keys=True, separators=(",", ":")),
        )
    except (TypeError, ValueError):
        return render(template, data)  # not plain JSON data (a caller's own objects): rendered as it is
    return _SHARED_BODIES.get(key, lambda: render(template, {**data, "seat": None, "private": None}))


@lru_cache(maxsize=64)
def _seat_independent(template: str) -> bool:
    """True when ``template`` reads neither ``seat`` nor ``private`` and pulls in no other template."""
    env = environment()
    if env.loader is None:
        return False
    tree = env.parse(env.loader.get_source(env, template)[0])
    used = meta.find_undeclared_variables(tree)
    return "seat" not in used and "private" not in used and not list(meta.find_referenced_templates(tree))


class _Recent:
    """A small thread-safe memo of the last ``size`` values (the sender builds mails in a worker thread)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str], make: Callable[[], str]) -> str:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._size:
                self._values.popitem(last=False)
        return value


_SHARED_BODIES = _Recent(32)
"""The shared part of the last reports rendered, keyed by template and data (a turn's copies come together)."""
