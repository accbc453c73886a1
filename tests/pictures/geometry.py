"""Reading a drawn SVG back: its text elements with where they are drawn, for the overlap checks."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from bot.core.basics.display_width import display_width
from bot.pictures.svg import CHAR_WIDTH, WIDTH

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Label:
    """One ``<text>`` element: its whole text and the span it takes on its baseline."""

    text: str
    y: float
    left: float
    right: float


def labels(svg: str) -> list[Label]:
    """Every text element of ``svg`` (parsed with xml.etree: a malformed document fails here),
    with its extent in the fixed-width font, and the translation of an enclosing ``<g>``."""
    root = ET.fromstring(svg)
    found: list[Label] = []

    def walk(node: ET.Element, dx: float, dy: float) -> None:
        transform = node.get("transform", "")
        if transform.startswith("translate("):
            x, y = transform.removeprefix("translate(").rstrip(")").split(",")
            dx, dy = dx + float(x), dy + float(y)
        if node.tag == f"{SVG}text":
            text = "".join(node.itertext())
            size = float(node.get("font-size", "16"))
            width = display_width(text) * size * CHAR_WIDTH
            x = float(node.get("x", "0")) + dx
            anchor = node.get("text-anchor", "start")
            left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
            found.append(Label(text, round(float(node.get("y", "0")) + dy, 1), left, left + width))
            return
        for child in node:
            walk(child, dx, dy)

    walk(root, 0.0, 0.0)
    return found


def overlaps(svg: str) -> list[tuple[str, str]]:
    """Pairs of texts on the same baseline whose spans cross, and texts running off the picture."""
    found = labels(svg)
    bad = [(label.text, "off the picture") for label in found if label.left < 0 or label.right > WIDTH]
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            if abs(a.y - b.y) < 8 and a.left < b.right - 0.5 and b.left < a.right - 0.5:
                bad.append((a.text, b.text))
    return bad
