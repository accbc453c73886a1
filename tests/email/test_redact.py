"""What the inbox keeps of a processed mail (bot/email/redact.py): every secret masked byte for byte,
and the body dropped where a secret may hide in an encoded part."""

from __future__ import annotations

import base64
import binascii
import html
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from bot.email.redact import BODY_REMOVED, redact_mail

SECRET = "amber-raven-4821"
CODE = "ABCD-EF23"


def mail(body: str, subject: str = "orders", cte: str | None = None) -> bytes:
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = "Ann <ann@example.org>"
    message["Subject"] = subject
    message.set_content(body, cte=cte)
    return message.as_bytes()


def test_password_lines_link_codes_and_secret_shaped_words_are_masked_in_place():
    raw = mail(
        f"ORDERS demo\ncards 10 8 6 4 2\npassword: {SECRET}\nLINK CODE {CODE.lower()}\n"
        f"> Your seat password: {SECRET.upper()}\nP.S. it was {SECRET}, right?\n",
        subject=f"Password {SECRET}",
    )
    kept = redact_mail(raw, [SECRET, CODE])
    assert kept is not None and len(kept) == len(raw)  # same shape: every other byte where it was
    for form in (SECRET, SECRET.upper(), CODE, CODE.lower()):
        assert form.encode() not in kept
    assert b"cards 10 8 6 4 2" in kept and b"ORDERS demo" in kept and b"From: Ann <ann@example.org>" in kept
    assert b"password: " + b"*" * len(SECRET) in kept


def test_a_secret_in_an_encoded_part_leaves_only_the_headers():
    for raw in (
        mail(f"ORDERS demo\nPASSWORD {SECRET}\n", cte="base64"),
        mail(f"ORDERS demo\nPASSWORD {SECRET}\n" + "x" * 100, cte="quoted-printable"),
    ):
        kept = redact_mail(raw, [SECRET])
        assert kept is not None and SECRET.encode() not in kept
        assert b"From: Ann <ann@example.org>" in kept
        assert kept.endswith(BODY_REMOVED) and b"ORDERS" not in kept.split(b"\r\n\r\n", 1)[1]


def test_a_mail_without_a_secret_is_kept_as_it_came():
    assert redact_mail(mail("STATUS demo\nThanks!\n")) is None
    assert redact_mail(mail("STATUS demo\n", cte="base64")) is None
    assert redact_mail(mail("ORDERS demo\ncards 1 2 3\n"), ["not-in-the-mail-0000"]) is None


def test_an_encoded_display_name_is_masked_but_a_plain_body_kept():
    raw = mail(f"ORDERS demo\nPASSWORD {SECRET}\n").replace(b"From: Ann", b"From: =?utf-8?q?Jos=C3=A9?=")
    kept = redact_mail(raw, [SECRET])
    assert kept is not None and len(kept) == len(raw) and b"Jos" not in kept and b"ORDERS demo" in kept
    word = base64.b64encode(f"\u00e9t\u00e9 {SECRET}".encode()).decode()
    raw = mail("ORDERS demo\n").replace(b"Subject: orders", f"Subject: =?utf-8?b?{word}?=".encode())
    kept = redact_mail(raw, [SECRET])
    assert kept is not None and b"=?utf-8?" not in kept and b"ORDERS demo" in kept


def _uuencoded(text: bytes) -> bytes:
    lines = [binascii.b2a_uu(text[i : i + 45], backtick=True).rstrip(b"\n") for i in range(0, len(text), 45)]
    return b"\n".join([b"begin 644 orders.txt", *lines, b"`", b"end", b""])


def _part(cte: str, body: bytes, charset: str = "us-ascii", kind: str = "text/plain") -> bytes:
    return f"Content-Type: {kind}; charset={charset}\nContent-Transfer-Encoding: {cte}\n\n".encode() + body


def _multipart(*parts: bytes) -> bytes:
    head = (b"From: Ann <ann@example.org>\nSubject: orders\nMIME-Version: 1.0\n"
            b'Content-Type: multipart/mixed; boundary="b1"\n\n')  # fmt: skip
    return head + b"".join(b"--b1\n" + part + b"\n" for part in parts) + b"--b1--\n"


def _decoded(raw: bytes) -> str:
    """Every part of ``raw`` decoded (transfer encoding and charset), forwarded messages included: what a
    person reading the stored mail with any mail program sees."""
    texts = [raw.decode("latin-1")]
    for part in message_from_bytes(raw, policy=policy.compat32).walk():
        payload = None if part.is_multipart() else part.get_payload(decode=True)
        if isinstance(payload, bytes):
            texts.append(payload.decode(part.get_content_charset() or "latin-1", "replace"))
    return html.unescape("\n".join(texts)).lower()


LINE = f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {SECRET}\n".encode()
EVERY_ENCODING = {
    "x-uuencode": _multipart(_part("x-uuencode", _uuencoded(LINE))),
    "uuencode": _multipart(_part("uuencode", _uuencoded(LINE))),
    "x-uue": _multipart(_part("x-uue", _uuencoded(LINE))),
    "8bit": _multipart(_part("8bit", LINE.replace(b"ORDERS", "ORDRES é".encode()), "utf-8")),
    "binary": _multipart(_part("binary", LINE)),
    "base64": _multipart(_part("base64", base64.encodebytes(LINE))),
    "quoted-printable": _multipart(_part("quoted-printable", LINE.replace(b"PASSWORD", b"PASS=\nWORD"))),
    "utf-16 in 8bit": _multipart(_part("8bit", LINE.decode().encode("utf-16"), "utf-16")),
    "utf-7": _multipart(_part("7bit", b"PASSWORD +AGEAbQBiAGUAcg--raven-4821\n", "utf-7")),
    "html entities": _multipart(
        _part("7bit", f"<p>PASS&#87;ORD {SECRET.replace('-', '&#45;')}</p>".encode(), kind="text/html")
    ),
    "forwarded, base64 inside": _multipart(
        b"Content-Type: message/rfc822\n\nFrom: Ben <ben@example.org>\nSubject: fwd\n"
        + _part("base64", base64.encodebytes(LINE))
    ),
    "a part the reading did not read": _multipart(
        _part("7bit", b"ORDERS demo\ncards 10 8 6 4 2\n"), _part("base64", base64.encodebytes(LINE))
    ),
}


@pytest.mark.parametrize("name", EVERY_ENCODING)
def test_no_transfer_encoding_or_charset_keeps_a_secret_readable(name: str):
    """The attack: a PASSWORD line (or a secret the reading found) in a part whose bytes are not its text
    (uuencoded, base64, quoted-printable split by a soft break, UTF-16, UTF-7, HTML entities, a forwarded
    message, a part the reading never read) stays readable in the stored mail unless the stored copy is
    checked decoded.  Whether the reading found the secret or not, none is left in any decoded part."""
    raw = EVERY_ENCODING[name]
    assert SECRET in _decoded(raw)  # the attack: readable there, decoded
    for found in ([SECRET], []):
        kept = redact_mail(raw, found)
        assert kept is not None, (name, found)
        shown = _decoded(kept)
        assert SECRET not in shown and "-4821" not in shown, (name, found, kept)
        assert b"From: Ann <ann@example.org>" in kept


def test_an_encoded_mail_without_a_secret_is_kept_as_it_came():
    """Decoding is a check, not a verdict: an encoded mail that shows no secret once decoded is kept whole."""
    for cte, body in (("x-uuencode", _uuencoded(b"STATUS demo\n")), ("base64", base64.encodebytes(b"STATUS demo\n"))):
        assert redact_mail(_multipart(_part("7bit", b"HELP\n"), _part(cte, body))) is None
