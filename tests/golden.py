"""Golden files: compare produced text with a committed file, byte for byte.

Every test that checks text against a committed file goes through
:func:`assert_golden`.  A missing file is a failure, never created silently:
run the test once with ``REFEREE_UPDATE_GOLDEN=1`` to write (or rewrite) the
files after a deliberate change, then read the diff before committing it.
The update mode is the only writer.
"""

from __future__ import annotations

import os
from pathlib import Path

UPDATE_VARIABLE = "REFEREE_UPDATE_GOLDEN"


def updating() -> bool:
    """True when the run was asked to rewrite golden files (``REFEREE_UPDATE_GOLDEN=1``)."""
    return os.environ.get(UPDATE_VARIABLE) == "1"


def assert_golden(text: str, path: Path) -> None:
    """Fail unless ``path`` holds exactly ``text``; in update mode, write it first.

    The file is read and written as UTF-8 with no newline translation, so the
    comparison is byte for byte.
    """
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    how = f"run `{UPDATE_VARIABLE}=1 .venv/bin/python -m pytest <this test>` to create it deliberately"
    assert path.exists(), f"golden file {path} is missing; {how}, then review and commit it"
    expected = path.read_bytes().decode("utf-8")
    assert text == expected, (
        f"{path.name} differs from the text produced; if the change is deliberate, "
        f"rerun with {UPDATE_VARIABLE}=1 and review the diff"
    )
