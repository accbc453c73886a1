"""Hypothesis strategies that build whole mails as raw bytes, for fuzzing the mail reader.

A built mail mixes, at random:

* bodies from the real command vocabulary (bot.text.reading): JOIN / ORDERS /
  GAME / PASSWORD / STATUS / HELP / LIST / RESIGN / END lines with valid and
  near-valid arguments, order lines of the games, quoted replies,
  attributions, signatures, Outlook header blocks, free text in many scripts;
* MIME structures: one text part, multipart/alternative, multipart/mixed with
  attachments (binary, text with a filename, a forwarded message/rfc822),
  nesting, HTML only, a report, a multipart with no boundary, with a boundary
  that never appears, without its closing line, with a preamble, no MIME at all;
* charsets: UTF-8, Latin-1, Windows-1252, ISO-2022-JP, UTF-16 (base64),
  US-ASCII, names Python does not know, names of codecs that are not
  character sets (base64, zlib, idna, ...), and a charset that is not the one
  the bytes are in;
* transfer encodings: 7bit, 8bit, binary, base64 (wrapped or not, upper case),
  quoted-printable, unknown ones, and broken ones (bad base64 characters, cut
  padding, bad ``=XY``);
* headers: RFC 2047 encoded words (B and Q, known and unknown charsets, split
  over folded lines), folded lines, raw 8-bit bytes, missing From / Subject /
  Date / Message-ID, odd addresses and groups, Auto-Submitted / Precedence /
  List-Id / X-Autoreply variants, Sender and Authentication-Results, LF or
  CRLF line ends, a line without a colon.

Speed: Hypothesis spends some microseconds on every value it draws, and a
mail needs hundreds of choices.  So the *shape* of a mail (structure,
charsets, encodings, header forms, how many lines) is drawn through
Hypothesis, where it shrinks, and the *content* of the lines from a
``random.Random`` seeded by one drawn integer (the same seed and a shorter
line count give a prefix of the same lines, so failures still shrink well).

Each example says what an exact reader must find when the mail is *faithful*
(every text part well formed and in the charset it declares, the From
aligned with the Return-Path, no automatic-mail header, a subject whose
decoding is known): ``text`` is the text the reader must see and ``subject``
the subject (cleaned as every free text is, bot/core/basics/free_text.py).
For the rest only the invariants of the fuzz test apply.
"""

from __future__ import annotations

import base64
import functools
import html
import quopri
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st

from bot.core.basics.free_text import clean_line

T = TypeVar("T")

SECRETS = ("amber-raven-1001", "birch-cobalt-1002", "quartz-violet-0042")
TEXT_CHARSETS = ("utf-8", "iso-8859-1", "windows-1252", "iso-2022-jp", "us-ascii", "utf-16")
BOGUS_CHARSETS = (
    "x-unknown", "utf8mb4", "unicode-1-1-utf-7", "", '"utf-8"', "UTF-8 ", "latin-99", "base64", "zlib", "hex",
    "rot13", "uu", "idna", "punycode", "unicode_escape", "utf-7", "hz", "cp65001", "ks_c_5601-1987", "gb2312",
    "utf-8'en'", "=?utf-8?", "\u00e9", "utf\x00-8",
)  # fmt: skip


@functools.cache
def _sampled(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    """``st.sampled_from(options)``, made once per tuple of options (a strategy made anew is validated anew,
    which cost a generated mail more than drawing from it)."""
    return st.sampled_from(options)


@functools.cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``, made once per range (as :func:`_sampled`)."""
    return st.integers(low, high)


class Choices:
    """Where a builder's choices come from: ``shape`` through Hypothesis, ``pick`` from the seeded rng."""

    def __init__(self, draw: st.DrawFn, rng: random.Random) -> None:
        self.draw = draw
        self.rng = rng

    def shape(self, options: tuple[T, ...]) -> T:
        return self.draw(_sampled(options))

    def shape_int(self, low: int, high: int) -> int:
        return self.draw(_integers(low, high))

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def number(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def chance(self, probability: float) -> bool:
        return self.rng.random() < probability


# -- bodies ---------------------------------------------------------------------------------

GAMES = ("demo", "club", "newgame", "[demo]", "DEMO", "gs-1", "x" * 41, "dem o", "dém", "", "demo]", "[demo")
NAMES = ("Ann", "Ann Archer", "O'Brien", "Jörg", "李", "x" * 45, "", "Ann\tArcher", "A.N. Other-Smith", "Ann  ")
ORDERS = (
    "cards 10 8 6 4 2", "cards 9 8 7 4 2", "cards 10 8 6 4", "cards 10 8 6 4 x", "cards 10 8 6 4 2 1",
    "play 6 bank 2", "play 10/0 bank 0", "play 6", "bank 2", "play ²", "play -1 bank 99", "move A3-B4",
    "bid 3", "take", "pass", "roll", "stop", "offer 5", "ride 2", "PLAY 6 BANK 2", "play\t6  bank 2",
)  # fmt: skip
TEMPLATES = (
    "JOIN {game}", "JOIN {game} AS {name}", "JOIN", "join {game} as", "JOIN {game} {game}", "ORDERS {game}",
    "ORDERS {game}: {order}", "GAME {game}", "ORDERS", "ORDERS {game} now", "ORDERS{game}", "orders {game} :",
    "PASSWORD {secret}", "password: {secret}", "Password = {secret}", "PASSWORD", "PASSWORD {secret} {secret}",
    "STATUS {game}", "STATUS", "status {game} please", "HELP", "HELP {game}", "HELP golden-strider", "help me",
    "LIST", "LIST games", "RESIGN {game}", "RESIGN", "END", "SIGNOFF", "end.", "{order}", "{order}", "{order}",
    "my password is {secret}", "{pad} {secret}", "{order} PASSWORD {secret}",
)  # fmt: skip
OTHER_LINES = (
    "On Mon, 2 Mar 2026 at 12:00, Referee <referee@example.com> wrote:", "On Mon, 2 Mar 2026, Ann",
    "wrote:", "Am 02.03.2026 um 12:00 schrieb Referee:", "-- ", "--", "Sent from my iPhone",
    "-----Original Message-----", "From: Referee <referee@example.com>", "Sent: Monday", "To: Ann",
    "Subject: Re: orders", "________________________________", "Begin forwarded message:",
    "receipt R0123ABCD -- 2026-03-02", "> > nested quote", ">", "|> old quote", "", "", "",
    "Hello, which games can I join?", "Thanks!", "Grüße aus Köln", "日本語のテキスト", "Привет", "🙂👍",
    "ça va ? – “quotes” … €", "\u00a0ORDERS demo", "\ufeffHELP", "HELP\u200b", "   ", "\t", "=3D=3D",
    "\x00", "a\x00b", "\u2028", "\x85", "\x0c", "\r", "<b>HELP</b>", "&amp; &lt;", "=?utf-8?q?HELP?=",
)  # fmt: skip
_WORDS = ("amber", "raven", "birch", "cobalt", "quartz", "violet", "ab", "zephyrzephyr")
_GAME_CHARS = "abcdefgxyzDEMO0189_-[]"
_PUNCTUATION = ("", "", "", ".", ":", "!", " ?", ",", ";;")


def secret(ch: Choices) -> str:
    """A seat secret, or something shaped nearly like one."""
    if ch.chance(0.5):
        return ch.pick(SECRETS)
    return f"{ch.pick(_WORDS)}-{ch.pick(_WORDS)}-{ch.number(0, 99999):04d}"


def game(ch: Choices) -> str:
    if ch.chance(0.7):
        return ch.pick(GAMES)
    return "".join(ch.pick(_GAME_CHARS) for _ in range(ch.number(1, 45)))


def command_line(ch: Choices) -> str:
    """One line of the command vocabulary, valid or nearly so."""
    template = ch.pick(TEMPLATES)
    fields = {
        "game": game(ch) if "{game}" in template else "",
        "secret": secret(ch) if "{secret}" in template else "",
        "name": ch.pick(NAMES),
        "order": ch.pick(ORDERS),
        "pad": "x" * ch.number(100, 170),
    }
    line = template.format(**fields)
    line = ch.pick((str, str, str, str.lower, str.upper, str.title))(line)
    return ch.pick(("", "", "  ", "\t", "\u00a0")) + line + ch.pick(_PUNCTUATION)


def body_line(ch: Choices) -> str:
    roll = ch.number(0, 9)
    if roll < 6:
        return command_line(ch)
    if roll < 7:
        return "> " + command_line(ch)
    return ch.pick(OTHER_LINES)


_FREE = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


def body_lines(ch: Choices) -> list[str]:
    """A body: commands and orders, mixed with quotes, attributions, signatures and free text."""
    lines = [body_line(ch) for _ in range(ch.shape_int(0, 16))]
    if ch.shape((False, False, True)):  # and one line of Hypothesis' own unicode, anywhere
        lines.insert(ch.number(0, len(lines)), ch.draw(_FREE))
    return lines


# -- charsets and transfer encodings ---------------------------------------------------------


def encodable(text: str, charset: str) -> bool:
    try:
        text.encode(charset)
    except (UnicodeError, LookupError):
        return False
    return True


@dataclass(frozen=True)
class Part:
    """One MIME part as bytes (headers and body), and what reading it must give when faithful."""

    raw: bytes
    text: str | None = None
    """The text a reader must find in this part, when it is the part read and was encoded faithfully."""
    kind: str = "text/plain"


def encoded_body(ch: Choices, text: str) -> tuple[str, str, bytes, bool]:
    """(charset declared, transfer encoding, body bytes, faithful) for ``text``."""
    kind = ch.shape(("faithful",) * 5 + ("bogus", "wrong", "broken"))
    charset = ch.shape(TEXT_CHARSETS)
    if kind == "faithful" and not encodable(text, charset):
        charset = "utf-8"
    payload = text.encode(charset, "replace")
    declared = charset
    faithful = kind == "faithful"
    if kind == "bogus":
        declared = ch.shape(BOGUS_CHARSETS)
    elif kind == "wrong":
        declared = TEXT_CHARSETS[(TEXT_CHARSETS.index(charset) + ch.shape_int(1, 5)) % len(TEXT_CHARSETS)]
    if charset == "utf-16" or (charset == "us-ascii" and not payload.isascii()):
        encodings: tuple[str, ...] = ("base64", "BASE64")
    else:
        encodings = ("base64", "base64-unwrapped", "BASE64", "quoted-printable", "8bit", "7bit", "binary", "x-weird")
    encoding = ch.shape(encodings)
    if (encoding == "7bit" and not payload.isascii()) or encoding == "x-weird":
        faithful = False  # 8-bit bytes declared 7-bit, or an unknown encoding: read, but nothing exact promised
    if kind == "broken":
        encoding = ch.shape(("base64", "quoted-printable"))
    newline = ch.shape((b"\n", b"\r\n"))
    if encoding.lower().startswith("base64"):
        data = base64.b64encode(payload)
        if encoding == "base64-unwrapped":
            encoding = "base64"
        else:
            data = newline.join(data[i : i + 76] for i in range(0, len(data), 76))
        if kind == "broken":
            breakages = (data + b"!!!*", data.rstrip(b"="), data[: max(0, len(data) - 3)], b"%%" + data, data + b"===")
            data = ch.shape(breakages)
        body = data + newline
    elif encoding == "quoted-printable":
        body = quopri.encodestring(payload.replace(b"\r\n", b"\n")).replace(b"\n", newline)
        if kind == "broken":
            body = body + b"=Z9=\n=4" + newline
    else:
        body = payload.replace(b"\r\n", b"\n").replace(b"\n", newline) + newline
    return declared, encoding, body, faithful


def _charset_parameter(declared: str) -> str:
    if declared == "":
        return "; charset="
    if declared.startswith('"'):
        return f"; charset={declared}"
    return f'; charset="{declared}"'


def text_part(ch: Choices, kind: str = "text/plain") -> Part:
    """A text/plain or text/html part built from a body of the vocabulary."""
    body = body_lines(ch)
    text = "\n".join(body) + ("\n" if body and ch.chance(0.5) else "")
    if kind == "text/html":
        wrappers = ("<div>{}</div>", "<p>{}</p>", "{}<br>", "<blockquote>{}</blockquote>")
        markup = "".join(ch.pick(wrappers).format(html.escape(line)) for line in body)
        text = f"<html><head><style>p {{}}</style></head><body>{markup}</body></html>"
    declared, encoding, raw_body, faithful = encoded_body(ch, text)
    headers = [f"Content-Type: {kind}{_charset_parameter(declared)}"]
    if encoding != "7bit" or ch.chance(0.5):
        headers.append(f"Content-Transfer-Encoding: {encoding}")
    if ch.chance(0.1):
        headers.append("Content-Disposition: inline")
    raw = ("\n".join(headers) + "\n\n").encode() + raw_body
    return Part(raw, text if faithful else None, kind)


def attachment(ch: Choices) -> Part:
    """A part that is not read: binary, a named text file, a forwarded message, a calendar."""
    choice = ch.shape(("pdf", "image", "named-text", "forwarded", "calendar", "octet-noname"))
    data = ch.rng.randbytes(ch.number(0, 300))
    if choice == "pdf":
        raw = (
            b'Content-Type: application/pdf; name="orders.pdf"\nContent-Disposition: attachment; filename="orders.pdf"\n'
            b"Content-Transfer-Encoding: base64\n\n"
        ) + base64.encodebytes(b"%PDF-1.4 " + data)
    elif choice == "image":
        name = ch.pick(("photo.jpg", "=?utf-8?q?f=C3=B6to.jpg?=", "a b.jpg", "", "x\x00.jpg", "=?x-bad?q?a?="))
        raw = (
            f'Content-Type: image/jpeg\nContent-Disposition: attachment; filename="{name}"\n'
            "Content-Transfer-Encoding: base64\n\n"
        ).encode() + base64.encodebytes(data)
    elif choice == "named-text":
        raw = b'Content-Type: text/plain; charset=utf-8; name="orders.txt"\n\nORDERS demo\ncards 10 8 6 4 2\n'
    elif choice == "forwarded":
        inner = ch.pick((b"From: ben@example.org\nSubject: ORDERS demo\n\nRESIGN demo\n", b"", b"x"))
        raw = b"Content-Type: message/rfc822\nContent-Disposition: inline\n\n" + inner
    elif choice == "calendar":
        raw = b"Content-Type: text/calendar; method=REQUEST\n\nBEGIN:VCALENDAR\nEND:VCALENDAR\n"
    else:
        raw = b"Content-Type: application/octet-stream\n\n" + data.replace(b"\r", b"")
    return Part(raw, None, "attachment")


def _attachments(ch: Choices, low: int, high: int) -> list[Part]:
    return [attachment(ch) for _ in range(ch.shape_int(low, high))]


def _multipart(subtype: str, boundary: str, parts: list[Part], preamble: str = "", closed: bool = True) -> bytes:
    head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\n\n{preamble}'.encode()
    body = b"".join(b"--" + boundary.encode() + b"\n" + part.raw + b"\n" for part in parts)
    return head + body + ((b"--" + boundary.encode() + b"--\n") if closed else b"")


@dataclass(frozen=True)
class Body:
    """The MIME body of a message (Content-Type and the rest), and what reading it must give."""

    raw: bytes
    text: str | None
    kind: str
    """The kind of the part read: text/plain or text/html; else why nothing exact is known."""


def _first_read(parts: list[Part]) -> Part | None:
    """The part the reader reads: the first inline text/plain leaf, else the first text/html leaf."""
    plain = [p for p in parts if p.kind == "text/plain"]
    if plain:
        return plain[0]
    markup = [p for p in parts if p.kind == "text/html"]
    return markup[0] if markup else None


STRUCTURES = (
    "single", "single", "single", "html", "alternative", "mixed", "nested", "report", "no-boundary",
    "missing-boundary", "unclosed", "preamble", "empty-multipart", "no-content-type", "garbage-type",
)  # fmt: skip


def mime_body(ch: Choices) -> Body:
    """One of the structures of the module docstring."""
    structure = ch.shape(STRUCTURES)
    boundary = ch.shape(("b1", "=_Part_0_123.456", "----=_NextPart_000_0001", "a b", "x" * 70))
    if structure in ("single", "html"):
        part = text_part(ch, "text/plain" if structure == "single" else "text/html")
        return Body(part.raw, part.text, part.kind)
    if structure == "no-content-type":  # no MIME at all: US-ASCII by default
        text = "\n".join(body_lines(ch)) + "\n"
        return Body(b"\n" + text.encode("utf-8"), text if text.isascii() else None, "text/plain")
    if structure == "garbage-type":
        kind = ch.shape(
            ("text", ";;;", "text/plain; charset", "multipart/", "/", "text/plain;;a=b=c", "text/plain; charset*=''")
        )
        return Body(f"Content-Type: {kind}\n\nHELP\nLIST\n".encode(), None, "garbage")
    if structure == "alternative":
        plain, markup = text_part(ch, "text/plain"), text_part(ch, "text/html")
        parts = [plain, markup] if ch.shape((True, False)) else [markup, plain]
        raw = _multipart("alternative", boundary, parts)
    elif structure == "mixed":
        parts = [text_part(ch), *_attachments(ch, 1, 3)]
        if ch.shape((False, True)):
            parts.reverse()
        raw = _multipart("mixed", boundary, parts)
    elif structure == "nested":
        alternative = [text_part(ch), text_part(ch, "text/html")]
        inner = Part(_multipart("alternative", boundary + "-inner", alternative), None, "multipart")
        raw = _multipart("mixed", boundary, [inner, *_attachments(ch, 0, 2)])
        parts = alternative
    elif structure == "report":
        parts = [text_part(ch), Part(b"Content-Type: message/delivery-status\n\nStatus: 5.1.1\n", None, "status")]
        return Body(_multipart("report; report-type=delivery-status", boundary, parts), None, "report")
    elif structure == "no-boundary":
        return Body(b"Content-Type: multipart/mixed\n\n" + text_part(ch).raw, None, "broken")
    elif structure == "missing-boundary":
        head = f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n'.encode()
        return Body(head + text_part(ch).raw, None, "broken")
    elif structure == "unclosed":
        parts = [text_part(ch), *_attachments(ch, 0, 1)]
        return Body(_multipart("mixed", boundary, parts, closed=False), None, "broken")
    elif structure == "preamble":
        parts = [text_part(ch)]
        preamble = "This is a multi-part message in MIME format.\nORDERS demo\nplay 6 bank 2\n"
        raw = _multipart("mixed", boundary, parts, preamble=preamble)
    else:  # empty-multipart
        return Body(f'Content-Type: multipart/mixed; boundary="{boundary}"\n\n--{boundary}--\n'.encode(), None, "empty")
    chosen = _first_read(parts)
    texts = [p for p in parts if p.kind in ("text/plain", "text/html")]
    clean = all(p.text is not None for p in texts) and not any(b"--" + boundary.encode() in p.raw for p in parts)
    if chosen is None or not clean:
        return Body(raw, None, "unclean")
    return Body(raw, chosen.text, chosen.kind)


# -- headers ----------------------------------------------------------------------------------

ADDRESSES = (
    "Ann Archer <ann@example.org>", "ann@example.org", '"Archer, Ann" <ann@example.org>',
    "=?utf-8?q?J=C3=B6rg_M=C3=BCller?= <jorg@example.org>", "<ann@example.org>", "ann@example.org (Ann)",
    "undisclosed-recipients:;", "", "Ann <ann@>", "@example.org", "ann", "friends: ann@example.org, b@x.org;",
    "MAILER-DAEMON@example.org", "noreply@example.org", "Referee <referee@example.com>", '"ann smith"@example.org',
    "ann@bücher.example", "Ann <ann@example.org>, Ben <ben@example.org>", "<<ann@example.org>>",
    "Ann Archer <ann@example.org", "=?x-unknown?b?QW5u?= <ann@example.org>", "ann@[192.0.2.1]",
    'Ann "The Archer" <ann@example.org>', "ann@example.org\t(Ann\n Archer)", "a" * 300 + "@example.org",
    "Ann <ann@example.org> (comment (nested))", "=?utf-8?b?invalid?= <ann@example.org>", "a\x00n@example.org",
    "Ann <ann@example.org>>", "\"unterminated <ann@example.org>", "ann@example.org;", "=?utf-8?q?=00?= <a@b.org>",
)  # fmt: skip
DATES = ("Mon, 02 Mar 2026 13:05:00 +0100", "2 Mar 2026 13:05 GMT", "yesterday", "Mon, 32 Foo 2026 25:61:00 +9999", "")
MESSAGE_IDS = (
    "<m1@example.org>", "<>", "no-brackets@example.org", "<a@b> <c@d>", "<garbage", "<x>", "<" + "m" * 300 + "@x>",
    "<m@example.org> (comment)", "<ü@example.org>", "<a\x00b@example.org>", "<m1@example.org>,<m2@example.org>",
)  # fmt: skip
AUTOMATIC = (
    ("Auto-Submitted", "auto-replied"), ("Auto-Submitted", "auto-generated"), ("Auto-Submitted", "Auto-Notified"),
    ("Auto-Submitted", "auto-replied; owner-email=ann@example.org"), ("Precedence", "bulk"),
    ("Precedence", "JUNK"), ("Precedence", "list"), ("List-Id", "<games.example.org>"),
    ("List-Unsubscribe", "<mailto:leave@example.org>"), ("X-Autoreply", "yes"), ("X-Autorespond", "1"),
    ("Feedback-Type", "abuse"), ("Return-Path", "<>"),
)  # fmt: skip
HARMLESS = (
    ("Auto-Submitted", "no"), ("Auto-Submitted", "No"), ("Precedence", "first-class"), ("X-Autoreply", "no"),
    ("X-Mailer", "Fuzz 1.0"), ("Received", "from a by b; Mon, 2 Mar 2026"), ("X-Empty", ""),
    ("MIME-Version", "1.0"), ("MIME-Version", "2.0"), ("Importance", "high"), ("Cc", "ben@example.org"),
)  # fmt: skip
UNTRUSTED = (
    ("Sender", "bounce@lists.example.net"), ("Authentication-Results", "mx.example.com; dmarc=fail"),
    ("X-Auto-Response-Suppress", "All"),
)  # fmt: skip
SUBJECTS = ("my orders", "Re: [demo] ORDERS demo", "STATUS demo", "Re: Re: Fwd: HELP", "", "LIST", "AW: [x] y")
SUBJECT_FORMS = ("plain", "plain", "plain", "q", "b", "split-words", "folded", "bogus", "8bit", "missing")
_PRINTABLE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


def subject_header(ch: Choices) -> tuple[str | None, str | None]:
    """(the header value, the subject a reader must read from it, when known)."""
    source = ch.shape(("fixed", "command", "unicode"))
    if source == "fixed":
        text = ch.pick(SUBJECTS)
    elif source == "command":
        text = command_line(ch).replace("\x00", "")
    else:
        text = ch.draw(_PRINTABLE)
    form = ch.shape(SUBJECT_FORMS)
    expected: str | None = " ".join(clean_line(text).split())  # a subject is free text: cleaned as it is read
    if form == "missing":
        return None, ""
    if form == "plain":
        return text, expected if text.isascii() and "=?" not in text else None
    charset = ch.shape(("utf-8", "iso-8859-1", "iso-2022-jp", "windows-1252"))
    if not encodable(text, charset):
        charset = "utf-8"
    data = text.encode(charset)
    if form == "q":
        word = quopri.encodestring(data, header=True).decode("ascii").replace("=\n", "").replace("?", "=3F")
        return f"=?{charset}?q?{word}?=", expected
    if form == "b":
        return f"=?{charset}?b?{base64.b64encode(data).decode()}?=", expected
    if form == "split-words":
        charset = "utf-8" if charset == "iso-2022-jp" else charset
        middle = len(text) // 2
        words = [
            f"=?{charset}?b?{base64.b64encode(chunk.encode(charset)).decode()}?="
            for chunk in (text[:middle], text[middle:])
            if chunk
        ]
        if not words:
            return '""', None
        return ch.shape((" ", "\n ", "\r\n\t")).join(words), expected
    if form == "folded":
        words = text.split(" ")
        known = expected if text.isascii() and "=?" not in text else None
        if len(words) < 2:
            return text, known
        return words[0] + "\n " + " ".join(words[1:]), known
    if form == "bogus":
        return f"=?x-unknown-{charset}?q?{text.encode('utf-8').hex()}?=", None
    return text, None  # raw 8-bit bytes in the header (written as UTF-8 below)


@dataclass(frozen=True)
class Mail:
    """A generated mail and what an exact reader must find in it (None: nothing exact is promised)."""

    raw: bytes
    text: str | None
    """The decoded text part (HTML source when ``kind`` is text/html)."""
    kind: str
    subject: str | None
    automatic: bool | None
    """True: an automatic-mail header stands among the headers; None: not known."""
    faithful: bool


SENDERS = ("Ann Archer <ann@example.org>", "ann@example.org", "ANN@Example.ORG") * 2 + ("odd", "missing")
RETURN_PATHS = ("<ann@example.org>",) * 5 + ("<x@other.org>", "<ann@mail.example.org>", None)


@st.composite
def mails(draw: st.DrawFn) -> Mail:
    """A whole message: headers of the forms of the module docstring, then a MIME body."""
    ch = Choices(draw, random.Random(draw(st.integers(0, 2**32 - 1))))
    body = mime_body(ch)
    headers: list[tuple[str, str]] = []
    aligned = True
    sender = ch.shape(SENDERS)
    from_value: str | None = sender
    if sender == "odd":
        from_value, aligned = ch.shape(ADDRESSES), False
    elif sender == "missing":
        from_value, aligned = None, False
    return_path = ch.shape(RETURN_PATHS)
    if return_path not in ("<ann@example.org>", "<ann@mail.example.org>"):
        aligned = False
    if return_path is not None:
        headers.append(("Return-Path", return_path))
    if from_value is not None:
        headers.append(("From", from_value))
    headers.append(("To", ch.pick(("Referee <referee@example.com>", "referee@example.com", ""))))
    subject, expected_subject = subject_header(ch)
    if subject is not None:
        headers.append(("Subject", subject))
    if ch.chance(0.8):
        headers.append(("Date", ch.pick(DATES)))
    if ch.chance(0.8):
        headers.append(("Message-ID", ch.shape(MESSAGE_IDS)))
    if ch.chance(0.5):
        headers.append((ch.pick(("In-Reply-To", "References")), ch.pick(MESSAGE_IDS)))
    automatic: bool | None = False
    if ch.shape((False,) * 5 + (True,)):
        marker = ch.shape(AUTOMATIC)
        headers = [h for h in headers if h[0] != marker[0]]  # the first Return-Path is the one that counts
        headers.append(marker)
        automatic = True
    marked = {name for name, _ in headers if automatic and (name, _) in AUTOMATIC}
    headers += [h for h in (ch.pick(HARMLESS) for _ in range(ch.number(0, 2))) if h[0] not in marked]
    if ch.shape((False,) * 7 + (True,)):
        headers.append(ch.shape(UNTRUSTED))
        aligned = False
    if ch.shape((False,) * 9 + (True,)):
        headers.insert(ch.number(0, len(headers)), ("", "a header line without a colon"))
        aligned = False
        automatic = None  # the headers after it are read as body: whether it is automatic is not known
    if ch.chance(0.2):
        ch.rng.shuffle(headers)
    newline = ch.shape((b"\n", b"\r\n"))
    head = newline.join(
        (f"{name}: {value}" if name else value).replace("\r\n", "\n").replace("\n", newline.decode()).encode("utf-8")
        for name, value in headers
    )
    mime = body.raw.replace(b"\r\n", b"\n").replace(b"\n", newline) if newline == b"\r\n" else body.raw
    mime_head = b"MIME-Version: 1.0" + newline if ch.chance(0.7) else b""
    raw = head + newline + mime_head + mime
    faithful = aligned and not automatic and body.text is not None and expected_subject is not None
    return Mail(raw, body.text, body.kind, expected_subject, automatic, faithful)


_MAILS = mails()
_ACTIONS = ("cut", "drop", "flip", "insert", "duplicate", "nul", "line")


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A generated mail, then cut, spliced or with bytes changed: what a broken relay or disk delivers."""
    raw = draw(_MAILS).raw
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(1, 4))):
        if not raw:
            break
        where = rng.randrange(len(raw))
        action = draw(st.sampled_from(_ACTIONS))
        if action == "cut":
            raw = raw[:where]
        elif action == "drop":
            raw = raw[:where] + raw[where + rng.randint(1, 40) :]
        elif action == "flip":
            raw = raw[:where] + bytes([raw[where] ^ (1 << rng.randrange(8))]) + raw[where + 1 :]
        elif action == "insert":
            raw = raw[:where] + rng.randbytes(rng.randint(1, 20)) + raw[where:]
        elif action == "duplicate":
            raw = raw[:where] + raw[where:] + raw[where:]
        elif action == "nul":
            raw = raw[:where] + b"\x00" + raw[where:]
        else:  # a header-ish or boundary-ish line spliced in
            raw = (
                raw[:where]
                + rng.choice((b"\n--b1\n", b"\nContent-Type: multipart/mixed\n", b"\n\n", b"=?"))
                + raw[where:]
            )
    return raw
