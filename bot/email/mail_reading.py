"""Reading a mail's commands: what is mail's own around the text language of :mod:`bot.text.reading`.

The commands are read from the text by :func:`bot.text.reading.read_text`, as every text channel reads
them (a Discord DM in free text too); mail adds:

* the subject: it counts as the first line only when it is a command once its
  ``Re:``/``Fwd:`` prefixes and ``[tags]`` are removed (:func:`subject_text`);
  otherwise it is not read (so replying to a report is not an error).  A reply's
  subject ("Re: EXTEND g1 1d") is never read as a GM command that changes a game,
  and a press message's tag kept in a reply's subject (``[gs1 press P7K2]``,
  ``templates/email/press.txt.j2``) makes the body the answer to that press;
* what of a body is not its sender's words (:class:`MailConventions`): quoted
  lines (``>``), attribution lines ("On ... wrote:"), and everything after a
  signature (``-- ``), a phone signature ("Sent from my iPhone"), or the start
  of a quoted message that is not marked with ``>`` (Outlook's
  "-----Original Message-----", a "From:" / "Sent:" header block, a
  forwarded-message line, the referee's own reply).
"""

from __future__ import annotations

import re

from bot.core.basics import linear
from bot.text.reading import MAX_LINE_LENGTH, Conventions, Heading, Reading, clip, read_text, too_long

_SUBJECT_PREFIX = linear.compile(
    r"^\s*(?:(?:re|fw|fwd|aw|sv|vs|antw|wg|tr|rv|ref|odp|res)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*|\[[^\]]*\]\s*)",
    re.IGNORECASE,
)
_REPLY_SUBJECT = linear.compile(
    r"^\s*(?:\[[^\]]*\]\s*)*(?:re|fw|fwd|aw|sv|vs|antw|wg|tr|rv|ref|odp|res)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]",
    re.IGNORECASE,
)
_SUBJECT_TAG = linear.compile(r"\s*\[[^\]]*\]\s*$")
_PRESS_TAG = linear.compile(r"\[\s*([A-Za-z0-9][A-Za-z0-9_-]{0,39})\s+press\s+([A-Za-z0-9]{4})\s*\]", re.IGNORECASE)
"""The tag of a press message's subject (``[gs1 press P7K2]``, ``templates/email/press.txt.j2``): a reply
that keeps it answers that message's sender (:func:`subject_heading`)."""

_ATTRIBUTION_START = linear.compile(r"^(on|le|am|el|il|op|em|den|på|w dniu)(?:$|\W)", re.IGNORECASE)
_ATTRIBUTION_END = linear.compile(
    r"(wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev|napisał|kirjoitti)\s*(.*)?:\s*$", re.IGNORECASE
)
_QUOTED_MESSAGE = linear.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|mensaje original)"
    r"\s*-{2,}|_{10,}|begin forwarded message:?|receipt R[0-9A-F]{8} -- )",
    re.IGNORECASE,
)
_HEADER_BLOCK_FROM = linear.compile(r"^\*?(from|von|de|van|da)\*?\s*:\s*\S", re.IGNORECASE)
_HEADER_BLOCK_NEXT = linear.compile(
    r"^\*?(sent|date|to|subject|gesendet|envoyé|enviado|datum|an|à)\*?\s*:", re.IGNORECASE
)
_PHONE_SIGNATURE = linear.compile(
    r"^(sent from my |sent from (mail|outlook|yahoo mail) for |get outlook for |sent with proton ?mail|"
    r"envoyé de mon |von meinem .* gesendet|enviado desde mi )",
    re.IGNORECASE,
)


class MailConventions(Conventions):
    """A mail body's quoted lines, attributions, signatures and quoted messages (see the module docstring)."""

    def quoted(self, line: str) -> bool:
        return line.startswith(">") or line.startswith("|>")

    def attribution(self, lines: list[str], index: int) -> int:
        """1 or 2 when the line (with the next one) is an attribution such as "On Mon, ... Ann wrote:"."""
        line = lines[index].strip()
        if _ATTRIBUTION_END.search(line) and (_ATTRIBUTION_START.match(line) or line.endswith("wrote:")):
            return 1
        if (
            _ATTRIBUTION_START.match(line)
            and index + 1 < len(lines)
            and _ATTRIBUTION_END.search(lines[index + 1].strip())
        ):
            return 2
        return 0

    def stop(self, lines: list[str], index: int, line: str, raw: str) -> str | None:
        if raw.rstrip("\r\n") in ("-- ", "--") or line == "--":
            return "signature ({n} line{s})"
        if _PHONE_SIGNATURE.match(line):
            return f"signature '{clip(line)}'"
        if _QUOTED_MESSAGE.match(line):
            return "quoted message ({n} line{s})"
        if _HEADER_BLOCK_FROM.match(line):
            following = [text.strip() for text in lines[index + 1 : index + 5] if text.strip()]
            if any(_HEADER_BLOCK_NEXT.match(text) for text in following[:3]):
                return "quoted message ({n} line{s})"
        return None

    def quoted_note(self, count: int) -> str:
        return f"{count} quoted line{'' if count == 1 else 's'} (starting with > or 'On ... wrote:')"


MAIL = MailConventions()


def subject_text(subject: str) -> str:
    """The subject without its reply/forward prefixes and bracketed tags."""
    text = subject.strip()
    while True:
        stripped = _SUBJECT_PREFIX.sub("", text, count=1)
        stripped = _SUBJECT_TAG.sub("", stripped)
        if stripped == text:
            return text.strip()
        text = stripped


def subject_heading(subject: str) -> Heading:
    """The subject as the heading of the body (see the module docstring)."""
    if len(subject.strip()) > MAX_LINE_LENGTH:  # tried against no pattern, the press tag's either
        return Heading("", unread=f"the subject was not read as a command: {too_long(subject.strip())}")
    tag = _PRESS_TAG.search(subject)
    return Heading(
        subject_text(subject),
        reply=_REPLY_SUBJECT.match(subject) is not None,
        press=None if tag is None else (tag.group(1), tag.group(2)),
    )


def read_commands(subject: str, text: str) -> Reading:
    """Read a mail's subject and body ``text`` (see the module docstring); never raises."""
    return read_text(text, MAIL, subject_heading(subject))
