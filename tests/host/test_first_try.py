"""The README's "First try without a mail server", run as written.

The recipe's blocks are read from README.md itself (its ``toml`` block is ``referee.toml``, its
``sh`` block is run by bash in an empty folder, ``referee`` standing for ``python -m bot.host.cli``), so
a change to the README that stops it from working, or to the code that the README no longer tells,
fails here.  What it promises is checked: the doctor finds nothing broken, the game is created, the
mail dropped into the inbox is read once, and its reply (the seat and its password, the game's
status) is a file in the outbox Maildir.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## First try without a mail server"


def recipe() -> tuple[str, str]:
    """The recipe's settings file and its shell commands, as the README writes them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(SECTION)
    section = readme[start : readme.index("\n## ", start + len(SECTION))]
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert [language for language, _ in blocks] == ["toml", "sh"], blocks
    return blocks[0][1], blocks[1][1]


def test_the_readme_first_try_runs_as_written(tmp_path: Path) -> None:
    settings, commands = recipe()
    assert "referee.toml" in commands and "imap" not in settings.lower() and "smtp" not in settings.lower()
    (tmp_path / "referee.toml").write_text(settings)
    script = f'set -e\nreferee() {{ {shlex.quote(sys.executable)} -m bot.host.cli "$@"; }}\n{commands}'
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    doctor = [line for line in out.splitlines() if line[:5] in ("ok   ", "warn ", "FAIL ")]
    assert doctor and not any(line.startswith("FAIL") for line in doctor), out
    assert re.search(r"^\d+ ok, 0 broken$", out, re.MULTILINE), out
    assert "CREATED try1" in out
    assert "JOINED try1" in out and "You are Ann in game try1" in out
    assert re.search(r"Your seat password: [a-z]+-[a-z]+-\d{4}", out), "the reply is shown by `cat`"
    assert "STATUS try1" in out and "Seats: Ann" in out
    [reply] = (tmp_path / "mail" / "out" / "new").iterdir()
    assert "In-Reply-To: <first-try-1@example.org>" in reply.read_text()
    assert not list((tmp_path / "mail" / "in" / "new").iterdir()), "the mail was read and moved"
