"""Who sent a mail and who is vouched for (bot.email.originator, bot.email.policy), and what makes
two mails one, without servers.  The same attacks against the real servers: test_trust_by_mail.py."""

from __future__ import annotations

import time

import pytest

from bot.core.model import commands as c
from bot.email.mime import content_digest, read_mail
from bot.email.originator import read_originator
from bot.email.policy import sender_vouched, vouching
from bot.email.understand import IntakePolicy, understand
from tests.email.pipeline import compact, message
from tests.email.world import START

TRUSTED = frozenset({"mx.referee.test"})


def mail(return_path: str | None, *results: str, sender: str = "steve@players.test") -> bytes:
    raw = message("ORDERS club\ncards 10 8 6 4 2\n", sender=sender, return_path=return_path)
    return b"".join(f"Authentication-Results: {r}\r\n".encode() for r in results) + raw


@pytest.mark.parametrize(
    ("return_path", "results", "vouched"),
    [
        # The envelope sender proves nothing: MAIL FROM is whatever the sender types.
        ("same", (), None),
        ("STEVE@Players.test", (), None),
        ("mallory@players.test", (), None),
        (None, (), None),
        ("same", ("mx.referee.test; spf=fail smtp.mailfrom=players.test; dkim=fail header.d=players.test",), None),
        ("same", ("mx.referee.test; spf=softfail smtp.mailfrom=steve@players.test",), None),
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=players.test header.s=k1",), "dkim=pass"),
        ("b@players.test", ("mx.referee.test 1; dkim=pass (good signature) header.i=@players.test",), "dkim=pass"),
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=sub.players.test",), None),  # a child: not aligned
        ("b@players.test", ("MX.Referee.Test; dkim=pass header.d=test",), None),  # a top-level domain aligns nothing
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=ayers.test",), None),  # not a parent domain
        ("b@players.test", ("mx.referee.test; dkim=fail header.d=players.test",), None),
        ("b@players.test", ("mx.referee.test; dkim=fail header.d=players.test; dkim=pass header.d=players.test",),
         "dkim=pass"),  # two signatures, one good
        ("srs@relay.test", ("mx.referee.test; spf=fail; dmarc=pass (p=reject) header.from=players.test",), "dmarc"),
        ("b@players.test", ("mx.referee.test; dmarc=pass header.from=other.test",), None),
        ("b@players.test", ("mx.referee.test; spf=pass smtp.mailfrom=b@players.test",), "spf=pass"),
        ("b@players.test", ("mx.referee.test; spf=pass smtp.mailfrom=mail.players.test",), None),  # a child domain
        ("b@evil.test", ("mx.referee.test; spf=pass smtp.mailfrom=b@evil.test",), None),  # not aligned
        ("b@players.test", ("forger.test; dkim=pass header.d=players.test",), None),  # untrusted authserv-id
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=players.test; dmarc=fail header.from=players.test",), None),
        # only the topmost run of the trusted server's headers counts: one further down was forged
        ("b@players.test", ("mx.referee.test; dmarc=fail header.from=players.test", "mx.referee.test; dmarc=pass header.from=players.test"), None),
        ("b@players.test", ("mx.referee.test; spf=none", "relay.test; none", "mx.referee.test; dmarc=pass header.from=players.test"), None),
        ("b@players.test", ("other.test; none", "mx.referee.test; dmarc=pass header.from=players.test"), "dmarc"),
    ],
)  # fmt: skip
def test_who_is_vouched_for(return_path, results, vouched):
    found = sender_vouched(read_mail(mail(return_path, *results), 1 << 20), TRUSTED)
    if vouched is None:
        assert found is None
    else:
        assert found is not None and vouched in found


def test_where_the_host_names_no_trusted_server_nobody_is_vouched_for():
    raw = mail("same", "mx.referee.test; dmarc=pass header.from=players.test")
    verdict = vouching(read_mail(raw, 1 << 20), frozenset())
    assert not verdict.vouched and "names no mail server" in verdict.reason


def test_the_envelope_carries_the_trust_and_why_it_is_not_vouched():
    policy = IntakePolicy(trusted_authserv_ids=TRUSTED)
    forged = understand(mail("same"), "k1", START, policy).envelope
    failed = understand(mail("same", "mx.referee.test; spf=fail smtp.mailfrom=players.test"), "k2", START, policy)
    signed = understand(mail("same", "mx.referee.test; dkim=pass header.d=players.test"), "k3", START, policy)
    assert forged is not None and failed.envelope is not None and signed.envelope is not None
    assert (forged.trust, failed.envelope.trust, signed.envelope.trust) == (c.Trust.CLAIMED,) * 2 + (c.Trust.VOUCHED,)
    assert forged.unverified_reason == "the receiving mail server recorded no check of the sender"
    assert (
        failed.envelope.unverified_reason
        == "the receiving mail server's checks did not pass for players.test (spf=fail)"
    )
    assert signed.envelope.unverified_reason == ""


# ---- who sent it: the raw From field -------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "address", "problem"),
    [
        ("Ann Archer <ann@example.org>", "ann@example.org", None),
        ('"Archer, Ann" <Ann@Example.org>', "ann@example.org", None),
        ("ann@example.org (Ann)", "ann@example.org", None),
        ("<ann@example.org>", "ann@example.org", None),
        ('"Ann <ann@example.org>" <mallory@evil.example>', "mallory@evil.example", None),
        # the encoded word decodes to CR LF ann@example.org: a display name, never the address
        ("=?utf-8?b?DQphbm5AZXhhbXBsZS5vcmc=?= <mallory@evil.example>", "mallory@evil.example", None),
        ("=?utf-8?b?RXZpbA0KQmNjOiB4QGV2aWwuZXhhbXBsZQ==?= <mallory@evil.example>", "mallory@evil.example", None),
        ("Ann <ann@example.org>, Mal <mallory@evil.example>", None, "more than one address"),
        ("players: ann@example.org;", None, "more than one address, or a group"),
        ("=?utf-8?q?ann=40example.org?=", None, "could not be read"),
        ("=?utf-8?q?ann?=@example.org", None, "could not be read"),
        ("Ann <=?utf-8?q?ann?=@example.org>", None, "could not be read"),
        ("Ann\x00 <ann@example.org>", "ann@example.org", "control characters"),  # answered there, nothing applied
        ("Ann\rBcc: x@evil.example <mallory@evil.example>", "mallory@evil.example", "control characters"),
        ("Ann\x00 <ann@example.org> <mal@evil.example>", None, "control characters"),
        ('"ann"@example.org', None, "not a plain address"),
        ("Ann <ann@[192.0.2.1]>", None, "not a plain address"),
        ("x" * 3000 + " <ann@example.org>", None, "longer than"),
    ],
)  # fmt: skip
def test_the_sender_is_read_from_the_raw_from_field(field, address, problem):
    found = read_originator([field])
    assert found.address == address
    assert (found.problem is None) if problem is None else (problem in (found.problem or ""))
    assert found.name is None or not any(ord(ch) < 32 for ch in found.name)


def test_two_from_fields_are_not_a_sender():
    found = read_originator(["ann@example.org", "mallory@evil.example"])
    assert found.address is None and found.problem == "the message has more than one From field"


def test_an_unverifiable_from_field_is_answered_at_its_one_address_and_nothing_is_applied():
    raw = message("ORDERS club\ncards 10 8 6 4 2\nRESIGN club\nPASSWORD amber-raven-1001\n")
    raw = raw.replace(b"From: Ann Archer", b"From: Ann\x00Archer")
    envelope = understand(raw, "k1", START, IntakePolicy(trusted_authserv_ids=TRUSTED)).envelope
    assert envelope is not None and envelope.sender.address == "ann@example.org"
    assert [compact(command) for command in envelope.commands] == ["? From:"]
    assert envelope.password is None and envelope.trust is c.Trust.CLAIMED


def test_create_with_address_authentication_needs_a_trusted_server():
    raw = message("CREATE g1 golden-strider\nAUTH address\n", sender="gm@example.org")
    alone = understand(raw, "k1", START, IntakePolicy()).envelope
    trusted = understand(raw, "k2", START, IntakePolicy(trusted_authserv_ids=TRUSTED)).envelope
    assert alone is not None and trusted is not None
    assert [compact(command) for command in alone.commands] == ["? CREATE g1 AUTH address"]
    assert "names none (email_trusted_authserv_ids)" in alone.commands[0].reason  # type: ignore[union-attr]
    assert isinstance(trusted.commands[0], c.CreateGame) and trusted.commands[0].auth == "address"


# ---- every cost is bounded: reading the headers is linear in their length -------------------------


def _with_cc(count: int) -> bytes:
    head, body = message("STATUS demo\n").split(b"\r\n\r\n", 1)
    cc = ",\r\n ".join(f"Person {i} <p{i}@example.net>" for i in range(count))
    return head + f"\r\nCc: {cc}\r\nBcc: {cc}".encode() + b"\r\n\r\n" + body


def _cpu(raw: bytes) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        read_mail(raw, 64 << 20)
        best = min(best, time.process_time() - started)
    return best


def test_ten_thousand_addresses_cost_what_the_same_bytes_of_text_cost():
    """10,000 Cc (and Bcc) addresses took 4.7 s of CPU when every address header was parsed (the
    parse was quadratic: 470 times a mail of the same size whose bytes are body text).  Now no
    address list is parsed: the mail costs what reading that many bytes costs."""
    crowded = _with_cc(10_000)
    text = message("STATUS demo\n" + "".join(f"Person {i} wrote to p{i}@example.net\n" for i in range(20_000)))
    assert len(text) >= len(crowded)
    assert read_mail(crowded, 64 << 20).from_address == "ann@example.org"
    ratio = _cpu(crowded) / max(_cpu(text), 1e-4)
    assert ratio < 20, f"10,000 addresses cost {ratio:.1f}x the CPU of the same bytes of text"


def test_two_deliveries_of_one_mail_have_one_digest_and_a_reused_message_id_another():
    raw = message("STATUS demo\n", message_id="<same@example.org>")
    relayed = b"Received: from relay.test by mx.test; Tue, 1 Dec 2026 10:00:00 +0000\r\nDelivered-To: r@x\r\n" + raw
    assert content_digest(relayed) == content_digest(raw) == content_digest(raw.replace(b"\r\n", b"\n"))
    other = message("ORDERS demo\ncards 10 8 6 4 2\n", message_id="<same@example.org>")
    assert content_digest(other) != content_digest(raw)
    assert content_digest(b"\xff\xfe garbage") != content_digest(b"")
