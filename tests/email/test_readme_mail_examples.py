"""Every mail the README shows that a password game needs a password for shows its ``PASSWORD`` line.

Each example block of README.md (a fenced block without a language or ``text``, or an indented one)
is read as the body of a mail by the email channel itself; when it holds a command whose declaration
asks for a seat or a game master (:class:`bot.core.model.commands.Permission`), the mail must carry
a password, or a reader who copies it into a password game is refused.  The commands are the
declared ones, so a new seat command is held to this with no list here.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from bot.core.model import commands as c
from bot.email.understand import understand
from tests.email.pipeline import POLICY, message

ROOT = Path(__file__).resolve().parents[2]
NEEDS_A_PASSWORD = (c.Permission.SEAT, c.Permission.GAME_MASTER)
_FENCED = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_INDENTED = re.compile(r"(?:\n\n)((?:    \S.*\n)+)")


def examples(readme: str) -> list[str]:
    """The README's example blocks that could be mail: fenced without a language (or ``text``), and indented."""
    fenced = [body for language, body in _FENCED.findall(readme) if language in ("", "text")]
    outside = _FENCED.sub("", readme)
    indented = [re.sub(r"^    ", "", block, flags=re.MULTILINE) for block in _INDENTED.findall(outside)]
    return fenced + indented


def test_every_readme_mail_with_a_seat_or_gm_command_shows_its_password() -> None:
    blocks = examples((ROOT / "README.md").read_text(encoding="utf-8"))
    checked, missing = 0, []
    for number, block in enumerate(blocks):
        read = understand(message(block, subject="example"), f"readme:{number}", datetime.now(UTC), POLICY)
        if read.envelope is None:
            continue
        guarded = [cmd for cmd in read.envelope.commands if cmd.declaration.permission in NEEDS_A_PASSWORD]
        if guarded:
            checked += 1
            if not read.envelope.password:
                missing.append(f"{block.splitlines()[0]!r}: {', '.join(type(cmd).__name__ for cmd in guarded)}")
    assert checked >= 3, "the orders, press and game master examples are found"
    assert missing == [], f"README examples without their PASSWORD line: {missing}"
