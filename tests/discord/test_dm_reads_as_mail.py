"""The same text read as a mail's body and as a Discord DM gives the same commands (bot/text/reading.py).

Mail keeps what is mail's own (bot/email/mail_reading.py: quoted lines, attributions, signatures, the
subject); so the property is, for every body of the email corpus (tests/email/corpus) and every body
Hypothesis builds from the command vocabulary (tests/email/fuzz/strategies.py):

* a body in which mail's conventions find nothing reads the same as a DM: equal commands, password
  and notes;
* any body reads as mail exactly as its sender's own lines (what mail's conventions leave) read as a DM.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.discord.direct_messages import MAX_CHARACTERS, read_direct_message
from bot.email.mail_reading import MAIL, read_commands
from bot.email.mime import read_mail
from bot.text.reading import MAX_LINE_LENGTH, Reading
from tests.email.fuzz.strategies import Choices, body_lines

CORPUS = Path(__file__).parent.parent / "email" / "corpus"


def own_lines(text: str) -> tuple[str, bool]:
    """``text`` without what mail's conventions skip (in the order the reader asks them), and whether
    they skipped anything."""
    lines = text.splitlines()
    kept: list[str] = []
    index = 0
    while index < len(lines):
        raw = lines[index].replace("\u00a0", " ").replace("\ufeff", "").replace("\u200b", "")
        line = raw.strip()
        if line and MAIL.quoted(line):
            index += 1
            continue
        if line and len(line) <= MAX_LINE_LENGTH:
            skipped = MAIL.attribution(lines, index)
            if skipped:
                index += skipped
                continue
            if MAIL.stop(lines, index, line, raw) is not None:
                return "\n".join(kept), True
        kept.append(lines[index])
        index += 1
    return "\n".join(kept), len(kept) != len(lines)


def same(dm: Reading, mail: Reading, *, notes: bool) -> None:
    assert dm.commands == mail.commands
    assert dm.password == mail.password
    if notes:
        assert dm.ignored == mail.ignored


def check(text: str) -> bool:
    """The property for one body; True when mail's conventions found nothing in it."""
    mail = read_commands("", text)
    own, cut = own_lines(text)
    if len(own) <= MAX_CHARACTERS:
        same(read_direct_message(own), mail, notes=False)
    if not cut and len(text) <= MAX_CHARACTERS:
        same(read_direct_message(text), mail, notes=True)
    return not cut


def test_every_corpus_body_reads_as_a_dm_as_it_reads_as_mail() -> None:
    cases = tomllib.loads((CORPUS / "manifest.toml").read_text(encoding="utf-8"))["case"]
    files = [CORPUS / case["file"] for case in cases if "file" in case]  # the rest are generated (big)
    bodies = [read_mail(path.read_bytes(), 10 * 1024 * 1024).text for path in files]
    plain = [check(text) for text in bodies if text.strip()]
    print(f"[dm = mail] {len(plain)} corpus bodies, {sum(plain)} with nothing of mail's own")
    assert len(plain) >= 50 and sum(plain) >= 20  # the corpus is read, and most of it compared whole


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(0, 2**32 - 1))
def test_a_body_of_the_vocabulary_reads_as_a_dm_as_it_reads_as_mail(data: st.DataObject, seed: int) -> None:
    text = "\n".join(body_lines(Choices(data.draw, random.Random(seed))))
    check(text)


def test_the_reading_table_of_mail_reads_alike_by_dm() -> None:
    """A few bodies of tests/email/test_reading.py, GM commands among them, read alike whole."""
    bodies = [
        "ORDERS demo\nPASSWORD amber-raven-1001\nplay 6 bank 2\nmove 3\nSTATUS demo\nGAME club: play 1\nplay 2\n",
        "ORDERS demo\nplay 6\n\nThanks,\nAnn",
        "JOIN demo AS Ann\nLIST\nwhat is this\nSTATUS demo",
        "PAUSE g1\nREASON a holiday\nEXTEND g1 1d\nCREATE g2 golden-strider SEATS 4\nREASON x",
        "HELP\nEND\nORDERS demo\nplay 1",
    ]
    assert all(check(text) for text in bodies)
