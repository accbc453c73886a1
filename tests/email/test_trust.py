"""Who is vouched for and what makes two mails one, without servers."""

from __future__ import annotations

import pytest

from bot.core import commands as c
from bot.email.mime import content_digest, read_mail
from bot.email.policy import sender_vouched
from bot.email.understand import IntakePolicy, understand
from tests.email.pipeline import message
from tests.email.world import START

TRUSTED = frozenset({"mx.referee.test"})


def mail(return_path: str | None, *results: str) -> bytes:
    raw = message("ORDERS club\ncards 10 8 6 4 2\n", sender="steve@players.test", return_path=return_path)
    return b"".join(f"Authentication-Results: {r}\r\n".encode() for r in results) + raw


@pytest.mark.parametrize(
    ("return_path", "results", "vouched"),
    [
        ("same", (), "the envelope sender is the From address"),
        ("STEVE@Players.test", (), "the envelope sender is the From address"),
        ("mallory@players.test", (), None),
        (None, (), None),
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=players.test header.s=k1",), "dkim=pass"),
        ("b@players.test", ("mx.referee.test 1; dkim=pass (good signature) header.i=@players.test",), "dkim=pass"),
        ("b@players.test", ("MX.Referee.Test; dkim=pass header.d=test",), "dkim=pass"),  # parent domain signed
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=ayers.test",), None),  # not a parent domain
        ("b@players.test", ("mx.referee.test; dkim=fail header.d=players.test",), None),
        ("srs@relay.test", ("mx.referee.test; spf=fail; dmarc=pass (p=reject) header.from=players.test",), "dmarc"),
        ("b@players.test", ("mx.referee.test; dmarc=pass header.from=other.test",), None),
        ("b@players.test", ("forger.test; dkim=pass header.d=players.test",), None),  # untrusted authserv-id
        ("b@players.test", ("mx.referee.test; dkim=pass header.d=players.test; dmarc=fail header.from=players.test",), None),
        # a forged header further down does not help once the trusted server says fail
        ("b@players.test", ("mx.referee.test; dmarc=fail header.from=players.test", "mx.referee.test; dmarc=pass header.from=players.test"), None),
    ],
)  # fmt: skip
def test_who_is_vouched_for(return_path, results, vouched):
    found = sender_vouched(read_mail(mail(return_path, *results), 1 << 20), TRUSTED)
    if vouched is None:
        assert found is None
    else:
        assert found is not None and vouched in found


def test_the_envelope_carries_the_trust_and_the_core_rule_reads_it():
    policy = IntakePolicy(trusted_authserv_ids=TRUSTED)
    forged = understand(mail("mallory@players.test"), "k1", START, policy).envelope
    own = understand(mail("same"), "k2", START, policy).envelope
    assert forged is not None and own is not None
    assert (forged.trust, own.trust) == (c.Trust.CLAIMED, c.Trust.VOUCHED)


def test_two_deliveries_of_one_mail_have_one_digest_and_a_reused_message_id_another():
    raw = message("STATUS demo\n", message_id="<same@example.org>")
    relayed = b"Received: from relay.test by mx.test; Tue, 1 Dec 2026 10:00:00 +0000\r\nDelivered-To: r@x\r\n" + raw
    assert content_digest(relayed) == content_digest(raw) == content_digest(raw.replace(b"\r\n", b"\n"))
    other = message("ORDERS demo\ncards 10 8 6 4 2\n", message_id="<same@example.org>")
    assert content_digest(other) != content_digest(raw)
    assert content_digest(b"\xff\xfe garbage") != content_digest(b"")
