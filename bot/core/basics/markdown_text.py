"""A Markdown document as fixed-width plain text: what a mail (78 columns) shows of a page of docs/.

The document is parsed by markdown-it-py (CommonMark, with tables), not by hand, and its syntax
tree is laid out for a reader of plain text:

* a heading is its text on a line of its own, underlined (``=`` for the title, ``-`` for a
  section); smaller headings stand alone;
* a paragraph is wrapped to the width; emphasis, code spans and links keep only their text (a
  link to a web address keeps the address after its text, in brackets);
* a list item starts ``*`` or its number, its lines hanging under its first word;
* a code block (an example, a table of orders) keeps its lines, indented by two, as written; a
  line too long for the width is cut into pieces at the width (never wider);
* a table is laid out in aligned columns when it fits, else each row is a block: its first cell,
  then each other cell under it as ``header: value``.

Every line of the result fits ``width`` display columns (:mod:`bot.core.basics.display_width`:
a wide letter takes two), and no line ends in a space.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from bot.core.basics.display_width import WidthWrapper, display_width, pad_right, prefix

WIDTH = 78
"""The width of a mailed line."""

_PARSER = MarkdownIt("commonmark").enable("table")


def markdown_text(source: str, width: int = WIDTH) -> str:
    """``source`` (Markdown) as plain text within ``width`` columns, blocks separated by blank lines."""
    blocks = _blocks(SyntaxTreeNode(_PARSER.parse(source)).children, width)
    return "\n\n".join(block for block in blocks if block) + "\n"


def _blocks(nodes: list[SyntaxTreeNode], width: int) -> list[str]:
    return [_block(node, width) for node in nodes]


def _block(node: SyntaxTreeNode, width: int) -> str:
    kind = node.type
    if kind == "heading":
        text = _inline(node)
        if node.tag == "h1":
            return _wrapped(text.upper(), width) + "\n" + "=" * min(width, display_width(text))
        if node.tag == "h2":
            return _wrapped(text, width) + "\n" + "-" * min(width, display_width(text))
        return _wrapped(text, width)
    if kind == "paragraph":
        return _wrapped(_inline(node), width)
    if kind in ("bullet_list", "ordered_list"):
        return _list(node, width)
    if kind in ("fence", "code_block"):
        return "\n".join(_cut("  " + line, width) for line in node.content.rstrip("\n").splitlines())
    if kind == "table":
        return _table(node, width)
    if kind == "blockquote":
        inner = "\n\n".join(_blocks(node.children, width - 2))
        return "\n".join(("> " + line).rstrip() for line in inner.splitlines())
    if kind == "hr":
        return "-" * min(width, 20)
    if kind == "html_block":
        return ""
    return _wrapped(_inline(node), width)


def _list(node: SyntaxTreeNode, width: int) -> str:
    start = int(node.attrs.get("start", 1)) if node.type == "ordered_list" else 0
    items = []
    for number, item in enumerate(node.children, start):
        mark = f"{number}. " if node.type == "ordered_list" else "* "
        inner = "\n\n".join(block for block in _blocks(item.children, width - len(mark)) if block)
        lines = inner.splitlines() or [""]
        hang = " " * len(mark)
        items.append("\n".join([(mark + lines[0]).rstrip(), *((hang + line).rstrip() for line in lines[1:])]))
    return "\n".join(items)


def _table(node: SyntaxTreeNode, width: int) -> str:
    rows = [[_inline(cell) for cell in row.children] for part in node.children for row in part.children]
    if not rows:
        return ""
    header, body = rows[0], rows[1:]
    columns = [max(display_width(row[i]) for row in rows if i < len(row)) for i in range(len(header))]
    if sum(columns) + 2 * (len(columns) - 1) <= width:
        lines = []
        for index, row in enumerate(rows):
            lines.append("  ".join(pad_right(cell, columns[i]) for i, cell in enumerate(row)).rstrip())
            if index == 0:
                lines.append("  ".join("-" * column for column in columns))
        return "\n".join(lines)
    blocks = []
    for row in body:
        lines = [_wrapped(row[0], width)]
        for name, cell in zip(header[1:], row[1:], strict=False):
            if cell:
                lines.append(_wrapped(f"{name}: {cell}", width, "    ", "      "))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _inline(node: SyntaxTreeNode) -> str:
    """The text of a block's inline content, its markup gone (soft line breaks are spaces)."""
    parts: list[str] = []
    for child in node.children:
        if child.type == "inline":
            parts.append(_inline(child))
        elif child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(str(child.attrs.get("alt", "")) or _inline(child))
        elif child.type == "link":
            text = _inline(child)
            target = str(child.attrs.get("href", ""))
            parts.append(f"{text} ({target})" if "://" in target and target != text else text)
        else:
            parts.append(_inline(child))
    return "".join(parts)


def _wrapped(text: str, width: int, first: str = "", rest: str = "") -> str:
    wrapper = WidthWrapper(width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)
    lines = [line for paragraph in text.split("\n") for line in (wrapper.wrap(paragraph) or [""])]
    return "\n".join(_cut(line, width) for line in lines)


def _cut(line: str, width: int) -> str:
    """``line`` without trailing spaces, cut into pieces of at most ``width`` columns."""
    line = line.rstrip()
    pieces = []
    while display_width(line) > width:
        head = prefix(line, width)
        pieces.append(head.rstrip())
        line = "  " + line[len(head) :].lstrip()
    pieces.append(line)
    return "\n".join(pieces)
