"""What the inbox keeps of a processed mail (bot/email/redact.py): every secret masked byte for byte,
and the body dropped where a secret may hide in an encoded part."""

from __future__ import annotations

import base64
from email import policy
from email.message import EmailMessage

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
