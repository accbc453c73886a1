"""A drawn picture (SVG text and its alt text), and its PNG form."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Picture:
    """One board drawn: ``svg`` is a whole SVG document; ``alt`` says in words what it shows."""

    svg: str
    alt: str


def png(picture: Picture) -> bytes:
    """``picture`` rasterised to PNG by resvg (a wheel: no system library); the same SVG gives
    the same bytes."""
    import resvg_py  # imported when a picture is rasterised

    return bytes(resvg_py.svg_to_bytes(svg_string=picture.svg))
