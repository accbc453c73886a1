"""The fast paths of bot.email.plainmime read every mail as the email package does.

Each mail is read twice, with the fast paths (``bot.email.mime.FAST_PATHS``) and without them,
and everything the intake takes from it must be the same: the parse itself (the headers, payload
and defects the feed parser gives), the Message-ID, the content digest, the MailText, and the
envelope ``understand`` makes of it.  Over the corpus (as stored and with CRLF line ends), the
fuzzers' generated and damaged mails (tests/email/fuzz/strategies.py), and generated mails of
the simple shape the fast paths take, with the near-misses they must refuse; the address and
Content-Type readers are also compared field by field on generated values.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from email import policy
from email.message import Message
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import world
from bot.email import mime
from bot.email.mime import content_digest, message_id_of, parse_plain, read_mail
from bot.email.plainmime import PlainMessage, split_plain
from bot.email.understand import IntakePolicy, understand
from tests.email.fuzz.strategies import Mail, damaged, mails

CORPUS = Path(__file__).parent / "corpus"
RAWS = sorted(CORPUS.glob("*.eml"))
MAX_BYTES = 1024 * 1024
POLICY = IntakePolicy(own_addresses=frozenset({"referee@example.com"}), max_message_bytes=MAX_BYTES)
AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def examples(count: int) -> settings:
    return settings(
        max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
    )


@contextmanager
def slow_paths() -> Iterator[None]:
    mime.FAST_PATHS = False
    try:
        yield
    finally:
        mime.FAST_PATHS = True


def _parse_fields(message: Message | None) -> object:
    if message is None:
        return None
    return (
        type(message) is PlainMessage,
        message._headers,  # type: ignore[attr-defined]
        message._payload,  # type: ignore[attr-defined]
        [repr(defect) for defect in message.defects],
        message.get_unixfrom(),
        message.preamble,
        message.epilogue,
        message.get_default_type(),
        message.get_charset(),
        message.items(),
        message.get_content_type(),
        message.get_payload(decode=True),
    )


def _everything(raw: bytes) -> tuple[Any, ...]:
    """All the intake takes from ``raw``, from one parse (as the intake reads) and from none."""
    parsed = parse_plain(raw, MAX_BYTES)
    reading = understand(raw, "key", AT, POLICY, None, parsed)
    return (
        message_id_of(raw, parsed),
        message_id_of(raw),
        content_digest(raw, parsed),
        content_digest(raw),
        read_mail(raw, MAX_BYTES, None, parsed),
        read_mail(raw, MAX_BYTES),
        reading.envelope,
        reading.skip,
        reading.summary,
    )


def _same_either_way(raw: bytes) -> bool:
    """Checks ``raw``; returns whether the fast parse took it."""
    fast = _everything(raw)
    with slow_paths():
        slow = _everything(raw)
    assert fast == slow
    simple = split_plain(raw)
    if simple is not None:
        assert _parse_fields(simple)[1:] == _parse_fields(BytesParser(policy=policy.compat32).parsebytes(raw))[1:]
        if simple.simple_text is not None:
            assert simple.simple_text.content_type == simple.get_content_type() == "text/plain"
            assert simple.simple_text.charset == simple.get_content_charset()
            assert simple.get_filename() is None and simple.get_content_disposition() is None
    return simple is not None


@pytest.mark.parametrize("path", RAWS, ids=[path.name for path in RAWS])
def test_corpus_mail_reads_the_same_by_the_fast_paths(path: Path) -> None:
    raw = path.read_bytes()
    _same_either_way(raw)
    _same_either_way(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


def test_the_fast_parse_takes_the_plain_corpus_mails_and_the_bench_mails() -> None:
    taken = sum(split_plain(path.read_bytes()) is not None for path in RAWS)
    assert taken >= len(RAWS) // 4, f"only {taken} of {len(RAWS)} corpus mails take the fast parse"
    for number in range(50):
        raw = world.order_mail(number % 5, number % world.SEATS, 40, number)
        assert isinstance(parse_plain(raw, MAX_BYTES), PlainMessage)
        assert _same_either_way(raw)


@examples(300)
@given(mails())
def test_generated_mail_reads_the_same_by_the_fast_paths(mail: Mail) -> None:
    _same_either_way(mail.raw)


@examples(200)
@given(damaged())
def test_damaged_mail_reads_the_same_by_the_fast_paths(raw: bytes) -> None:
    _same_either_way(raw)


# Mails of the simple shape, and the near-misses: each header drawn from forms the fast paths
# take and forms that look like them.
_NAMES = ("Ann", "Ann Archer", "J. Smith", "O'Neil", "ann-b", "A_B+C", "Seat 2", "", " ", "Ann  Archer")
_ADDRESSES = ("ann@example.org", "a.b@c.d", "a+b@c-d.org", "a..b@c.d", ".a@b.c", "a.@b.c", "a@b..c", "a@b.",
              "a@[1.2.3.4]", "a@b@c", "a b@c", "a", "@b", "a@", "ANN@Example.ORG", "\"a b\"@c.d")  # fmt: skip


@st.composite
def _address_value(draw: st.DrawFn) -> str:
    address = draw(st.sampled_from(_ADDRESSES))
    name = draw(st.sampled_from(_NAMES))
    form = draw(st.sampled_from(("bare", "angled", "named", "named-tight", "quoted", "free")))
    if form == "bare":
        return address
    if form == "angled":
        return f"<{address}>"
    if form == "named":
        return f"{name} <{address}>"
    if form == "named-tight":
        return f"{name}<{address}>"
    if form == "quoted":
        inner = draw(st.sampled_from((name, "Archer, Ann", "Ann (the GM)", 'a\\"b', 'a"b', "é", "x@y", "")))
        return f'"{inner}" <{address}>'
    return draw(st.text(alphabet="aZ09 .'_+-\"<>@,()\\:;[]", max_size=30))


_TYPES = ("text/plain", "TEXT/Plain", "text/html", "application/pdf", "text", "text/plain/x", "multipart/mixed",
          "message/rfc822", " text/plain ", "text/x-unknown")  # fmt: skip
_PARAMETERS = ("charset=utf-8", 'charset="UTF-8"', "charset=us-ascii", "Charset=ISO-8859-1", "charset=x-unknown",
               'charset=""', "charset=", 'charset="utf-8', "format=flowed", "delsp=yes", 'name="a.txt"', "NAME=a",
               "charset*=utf-8''x", "charset=utf-8; charset=latin-1", 'charset="<utf-8>"', "charset = utf-8",
               'boundary="b"', "charset=base64", "charset=utf\\-8", 'charset=" utf-8 "')  # fmt: skip
_ENCODINGS = (None, "7bit", "8bit", "binary", "quoted-printable", "Quoted-Printable", "base64", " 7bit", "8bit ",
              "x-uuencode", "x-unknown")  # fmt: skip
_BODIES = ("ORDERS demo\ncards 10 8 6 4 2\nPASSWORD amber-raven-1001\n", "JOIN demo AS Ann\n", "caf=C3=A9 =\nsoft\n",
           "café ✓\n", "caf\xe9\n", "", "HELP\n-- \nAnn\n", "<p>ORDERS demo</p>\n", "Content-Type: text/plain\n",
           "\x00\x0c\r lone cr\n", "line=\n")  # fmt: skip
_EXTRA = (("To", "referee@example.com"), ("Subject", "orders demo"), ("Subject", "=?utf-8?q?caf=C3=A9?="),
          ("Subject", "Re: orders\n\tfolded"), ("Date", "Mon, 02 Mar 2026 11:30:00 +0000"),
          ("Message-ID", "<m1@example.org>"), ("Message-ID", "m2@example.org"), ("References", "<a@b> <c@d>"),
          ("Sender", "list@example.org"), ("Auto-Submitted", "auto-replied"), ("X-Odd", ""), ("X-Café", "é"),
          ("Content-Disposition", "inline"), ("Authentication-Results", "mx.example.com; dmarc=pass"),
          ("MIME-Version", "1.0"), ("", "From not a field"), ("", " continued"), ("", "no colon"),
          ("X-Ctl", "a\x0bb"), ("X-Cr", "a\rb"))  # fmt: skip


@st.composite
def simple_mails(draw: st.DrawFn) -> bytes:
    headers: list[tuple[str, str]] = []
    if draw(st.booleans()):
        headers.append(("Return-Path", draw(st.sampled_from(("<ann@example.org>", "<>", "", "ann@example.org")))))
    headers.append(("From", draw(_address_value())))
    if draw(st.booleans()):
        parameters = draw(st.lists(st.sampled_from(_PARAMETERS), max_size=3))
        kind = draw(st.sampled_from(_TYPES))
        separator = draw(st.sampled_from(("; ", ";", " ;\n\t", ";\r\n ")))
        headers.append(("Content-Type", separator.join([kind, *parameters]) + draw(st.sampled_from(("", ";", " ")))))
    encoding = draw(st.sampled_from(_ENCODINGS))
    if encoding is not None:
        headers.append(("Content-Transfer-Encoding", encoding))
    headers += draw(st.lists(st.sampled_from(_EXTRA), max_size=4))
    headers = draw(st.permutations(headers))
    newline = draw(st.sampled_from(("\n", "\r\n")))
    head = newline.join(f"{name}: {value}" if name else value for name, value in headers)
    body = draw(st.sampled_from(_BODIES)).replace("\n", newline)
    return (head + newline + newline + body).encode("utf-8", "surrogateescape")


@examples(1500)
@given(simple_mails())
def test_simple_shaped_mail_reads_the_same_by_the_fast_paths(raw: bytes) -> None:
    _same_either_way(raw)


def test_the_simple_shapes_are_mostly_taken() -> None:
    """The generator above feeds the fast paths, not only the fallback (else it would prove nothing)."""
    taken = []

    @settings(max_examples=300, database=None, deadline=None)
    @given(simple_mails())
    def count(raw: bytes) -> None:
        taken.append(split_plain(raw) is not None)

    count()
    assert sum(taken) >= len(taken) // 3, f"{sum(taken)} of {len(taken)} generated simple mails took the fast parse"
