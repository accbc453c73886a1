"""Golden files: compare rendered text with a committed file.

Set ``REFEREE_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change
(then read the diff before committing it).
"""

from __future__ import annotations

import os
from pathlib import Path


def assert_golden(text: str, path: Path) -> None:
    if os.environ.get("REFEREE_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path.name} differs; rerun with REFEREE_UPDATE_GOLDEN=1 if the change is deliberate"
