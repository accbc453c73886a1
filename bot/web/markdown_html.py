"""A Markdown document (a page of ``docs/rules/``) as HTML for the web pages, by markdown-it-py.

The page is parsed and rendered by markdown-it-py (CommonMark, with tables), not by hand, with what
the site's pages promise kept:

* raw HTML is off: a ``<script>`` or ``<img onerror>`` written in the Markdown is shown as text,
  escaped like every other character of it; a link or picture whose address is a script
  (``javascript:``, ``vbscript:``, ``file:``, ``data:`` but for pictures) is left as text
  (markdown-it-py's own check);
* nothing needs an inline style, which the site's Content Security Policy refuses: a table column's
  alignment becomes a class (``align-left``, ``align-center``, ``align-right``) instead of a
  ``style`` attribute;
* each heading has an ``id`` spelled as GitHub spells it (lower case, punctuation dropped, spaces
  as hyphens, a repeat numbered ``-1``, ``-2``), so the page's links to its own sections
  (``[1.2 Rulings](#12-rulings)``) work on the site as in the repository;
* a table says what it is to a screen reader: a ``<caption>`` (visually hidden: the heading above
  says it to the eye) naming the section it is in, numbered when the section has more than one,
  and its column headings ``scope="col"``;
* a box that may scroll sideways on a phone (a table, an example in ``<pre>``) can be reached and
  scrolled with the keyboard (``tabindex="0"``).
"""

from __future__ import annotations

from itertools import pairwise

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from bot.core.basics import linear

_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")
_ALIGN = linear.compile(r"^text-align:\s*(left|center|right)$")
_NOT_IN_SLUG = linear.compile(r"[^\w\- ]")


def markdown_html(source: str) -> Markup:
    """``source`` (Markdown) as HTML: safe to place in a page as it is (see the module's promises)."""
    tokens = _PARSER.parse(source)
    _name_headings(tokens)
    _align_by_class(tokens)
    tokens = _describe_tables(tokens)
    # Raw HTML is off: the renderer escapes every character of the source's text itself, so a "<pre>"
    # in what it wrote is a tag it wrote (an example block's), never the source's text.
    html = _PARSER.renderer.render(tokens, _PARSER.options, {})
    return Markup(html.replace("<pre>", '<pre tabindex="0">'))


def heading_id(text: str) -> str:
    """A heading's anchor as GitHub makes it: ``1.2 Rulings`` -> ``12-rulings``."""
    return _NOT_IN_SLUG.sub("", text.strip().lower()).replace(" ", "-")


def _name_headings(tokens: list[Token]) -> None:
    seen: dict[str, int] = {}
    for opening, inline in pairwise(tokens):
        if opening.type != "heading_open":
            continue
        slug = heading_id(_words(inline))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        opening.attrSet("id", slug if count == 0 else f"{slug}-{count}")


def _align_by_class(tokens: list[Token]) -> None:
    for token in tokens:
        style = token.attrs.pop("style", None)
        if style is None:
            continue
        aligned = _ALIGN.match(str(style))
        if aligned is not None:
            token.attrJoin("class", f"align-{aligned[1]}")


def _describe_tables(tokens: list[Token]) -> list[Token]:
    """``tokens`` with each table captioned by its section, focusable, its column headings scoped."""
    section, counts = "", dict[str, int]()
    for opening, inline in pairwise(tokens):
        if opening.type == "heading_open":
            section = _words(inline)
        elif opening.type == "table_open":
            counts[section] = counts.get(section, 0) + 1
    described: list[Token] = []
    section, seen, in_head = "", dict[str, int](), False
    for index, token in enumerate(tokens):
        described.append(token)
        if token.type == "heading_open" and index + 1 < len(tokens):
            section = _words(tokens[index + 1])
        elif token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "th_open" and in_head:
            token.attrSet("scope", "col")
        elif token.type == "table_open":
            token.attrSet("tabindex", "0")
            seen[section] = seen.get(section, 0) + 1
            text = section or "Table"
            if counts.get(section, 0) > 1:
                text = f"{text} (table {seen[section]} of {counts[section]})"
            caption = Token("caption_open", "caption", 1, attrs={"class": "visually-hidden"})
            words = Token("inline", "", 0, content=text, children=[Token("text", "", 0, content=text)])
            described += [caption, words, Token("caption_close", "caption", -1)]
    return described


def _words(inline: Token) -> str:
    """A heading's text as read: its words and code, without the Markdown around them."""
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline")).strip()
