"""HTML mail as plain text, so HTML-only messages can be read like any other.

Only what reading commands needs: block elements become line breaks, quoted
blocks (``<blockquote>``) become ``> `` lines so the reader skips them like
any quoted reply, scripts and styles vanish, entities are decoded.
"""

from __future__ import annotations

from html.parser import HTMLParser

from bot.core.basics import linear

_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "fieldset", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol",
        "p", "pre", "section", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
_SKIPPED = frozenset({"script", "style", "head", "title", "template"})
_SPACES = linear.compile(r"[ \t\r\n\f\v\u00a0]+")


class _TextMaker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote_depth = 0
        self.skip_depth = 0
        self.pre_depth = 0

    def _break(self) -> None:
        text = "".join(self.current).strip()
        self.current = []
        if text:
            self.lines.append("> " * self.quote_depth + text)
        elif self.lines and self.lines[-1] != "":
            self.lines.append("")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skip_depth += 1
        elif tag in _BLOCKS:
            self._break()
            if tag == "blockquote":
                self.quote_depth += 1
            elif tag == "pre":
                self.pre_depth += 1
            elif tag == "hr":
                self.lines.append("> " * self.quote_depth + "-" * 20)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif tag in _BLOCKS:
            self._break()
            if tag == "blockquote":
                self.quote_depth = max(0, self.quote_depth - 1)
            elif tag == "pre":
                self.pre_depth = max(0, self.pre_depth - 1)

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.pre_depth:
            first, *rest = data.split("\n")
            self.current.append(first)
            for line in rest:
                self._break()
                self.current.append(line)
            return
        self.current.append(_SPACES.sub(" ", data))


def html_to_text(html: str) -> str:
    """The text of ``html``, one block per line; quoted blocks prefixed with ``> ``."""
    maker = _TextMaker()
    try:
        maker.feed(html)
        maker.close()
    except (AssertionError, ValueError):  # html.parser is lenient; this is for the truly mangled
        pass
    maker._break()
    return "\n".join(maker.lines).strip("\n") + "\n"
