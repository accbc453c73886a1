"""A drawn picture (SVG text and its alt text), and its PNG form."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FONTS_DIR = Path(__file__).resolve().parent / "fonts"
FONT_FILES = (FONTS_DIR / "DejaVuSansMono.ttf", FONTS_DIR / "DejaVuSansMono-Bold.ttf")
"""The only fonts a picture is rasterised with (shipped in the package, licence beside them)."""

FONT_FAMILY = "DejaVu Sans Mono"


@dataclass(frozen=True)
class Picture:
    """One board drawn: ``svg`` is a whole SVG document; ``alt`` says in words what it shows."""

    svg: str
    alt: str


def png(picture: Picture) -> bytes:
    """``picture`` rasterised to PNG by resvg (a wheel: no system library); the same SVG gives
    the same bytes on any machine: the host's fonts are skipped and only the package's own
    :data:`FONT_FILES` are loaded, so no installed font can change a glyph."""
    import resvg_py  # imported when a picture is rasterised

    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=picture.svg,
            skip_system_fonts=True,
            font_files=[str(path) for path in FONT_FILES],
            font_family=FONT_FAMILY,
            monospace_family=FONT_FAMILY,
            sans_serif_family=FONT_FAMILY,
            serif_family=FONT_FAMILY,
        )
    )
