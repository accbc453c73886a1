"""A game's Atom feed (RFC 4287): its reports and its game master's announced actions.

Written by ``feedgenerator`` (Django's feed writer, standalone), which escapes
every text it is given; each entry's content is the report's text as the
channels sent it, in a ``<pre>`` (escaped here, then again as XML by the
writer).  Every text is first made :func:`~bot.core.basics.free_text.visible`:
XML cannot carry a control character (the writer refuses the whole feed), and
text stored before every input was cleaned may hold one.

A feed is in one language (``?lang=``, the ``lang`` cookie or ``Accept-Language``, as the pages:
:mod:`bot.web.languages`): its title and description, the entries' reports (rendered for a reader of that
language, as the game's page shows them) and the GM's announced actions (the views say them in the
language being spoken: the caller builds the page inside :func:`bot.core.basics.translation.speaking`).
"""

from __future__ import annotations

from datetime import datetime
from html import escape
from urllib.parse import urlsplit

import feedgenerator

from bot.core.basics.free_text import visible
from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import speaking
from bot.core.people.languages import ENGLISH
from bot.core.views.pages import GamePage
from bot.web.pages import report_text

FEED_ENTRIES = 100
"""The newest entries a feed carries (a reader keeps the older ones): a feed stays bounded."""


class _Feed(feedgenerator.Atom1Feed):  # type: ignore[misc]
    """An Atom feed whose ``<updated>`` is its newest entry's, or the game's creation: the same
    game gives the same bytes (the writer's own default is the clock's time when it has no entry)."""

    updated: datetime

    def latest_post_date(self) -> datetime:
        return self.updated


def atom_feed(page: GamePage, base: str, language: str = ENGLISH) -> bytes:
    """The feed of ``page``'s game in ``language`` (a shipped language's code), its links under ``base``
    (``https://club.org``)."""
    with speaking(language):
        return _atom_feed(page, base, language)


def _atom_feed(page: GamePage, base: str, language: str) -> bytes:
    line = page.line
    link = f"{base}/games/{line.slug}"
    authority = urlsplit(base).hostname or "referee.invalid"
    year = page.created_at.year
    feed = _Feed(
        title=visible(_("%(title)s: game %(game)s") % {"title": line.title, "game": line.slug}),
        link=link,
        description=_("The public reports of game %(game)s") % {"game": line.slug},
        feed_url=f"{link}/feed.atom",
        language=language,
        feed_guid=f"tag:{authority},{year}:games/{line.slug}",
    )
    entries: list[tuple[datetime, dict[str, object]]] = []
    for report in page.reports:
        shown = report_text(report, language)
        entries.append((report.resolved_at, {
            "title": shown.title or _("Turn %(turn)s: %(phase)s") % {"turn": report.turn, "phase": report.phase_title},
            "link": f"{link}#turn-{report.turn}",
            "description": f"<pre>{escape(shown.body)}</pre>",
            "unique_id": f"tag:{authority},{year}:games/{line.slug}/turn/{report.turn}",
        }))  # fmt: skip
    for number, action in enumerate(page.announcements):
        said = action.text + (f" ({action.reason})" if action.reason else "")
        entries.append((action.at.at, {
            "title": f"[{line.slug}] {said}",
            "link": link,
            "description": escape(f"{action.at.text}: {said}"),
            "unique_id": f"tag:{authority},{year}:games/{line.slug}/action/{number}",
        }))  # fmt: skip
    for moment, item in sorted(entries, key=lambda entry: entry[0])[-FEED_ENTRIES:]:
        texts = {key: visible(value) if isinstance(value, str) else value for key, value in item.items()}
        feed.add_item(pubdate=moment, updateddate=moment, **texts)
    feed.updated = max((moment for moment, _ in entries), default=page.created_at)
    written: str = feed.writeString("utf-8")
    return written.encode("utf-8")
