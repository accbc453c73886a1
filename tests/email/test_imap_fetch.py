"""The fast FETCH parser gives exactly what imapclient's parser gives, on Dovecot's answers and on odd ones."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from imapclient.exceptions import ProtocolError
from imapclient.response_parser import parse_fetch_response

from bot.email.imap import PROTOCOL_LOGGER, ImapMailbox
from bot.email.imap_fetch import parse, parse_fast, uid_fetch
from tests.email.mailboxes import append, client_for, config_for

Data = list[bytes | tuple[bytes, bytes]]


def imapclient_parse(data: Data, uids: list[int]) -> dict[int, dict[bytes, object]]:
    response = parse_fetch_response(list(data), False, True)
    return {uid: response[uid] for uid in uids if uid in response}


LISTING: Data = [
    b'1 (UID 11 RFC822.SIZE 27 INTERNALDATE "01-Dec-2026 14:47:59 +0000")',
    b'2 (UID 12 RFC822.SIZE 19 INTERNALDATE " 1-Dec-2026 04:07:09 -0130")',
]
BODIES: Data = [
    (b"1 (UID 11 BODY[] {27}", b"Subject: a\r\n\r\nhello (x) )\r\n"),
    b")",
    (b"2 (UID 12 BODY[] {5}", b")\r\n()"),
    b")",
]

FAST_SHAPES: dict[str, Data] = {
    "listing": LISTING,
    "bodies, literals holding parentheses, ) and CRLF": BODIES,
    "a partial body": [(b"3 (UID 13 BODY[]<0> {4}", b"abc)"), b")"],
    "an empty body": [(b"4 (UID 14 BODY[] {0}", b""), b")"],
    "an INTERNALDATE that cannot be read": [b'1 (UID 11 RFC822.SIZE 5 INTERNALDATE "yesterday")'],
    "two responses for one message, merged": [LISTING[0], BODIES[0], BODIES[1]],
}

ODD_SHAPES: dict[str, Data] = {
    "items in another order": [b'1 (RFC822.SIZE 27 UID 11 INTERNALDATE "01-Dec-2026 14:47:59 +0000")'],
    "UID after the body": [(b"1 (BODY[] {3}", b"abc"), b" UID 11)"],
    "lowercase items": [b'1 (uid 11 rfc822.size 27 internaldate "01-Dec-2026 14:47:59 +0000")'],
    "a quoted string with an escape": [b'1 (UID 11 RFC822.SIZE 27 INTERNALDATE "01-Dec-2026 \\"14:47:59 +0000")'],
    "NIL body": [b"1 (UID 11 BODY[] NIL)"],
    "NIL date": [b"1 (UID 11 RFC822.SIZE 27 INTERNALDATE NIL)"],
    "a body as a quoted string": [b'1 (UID 11 BODY[] "abc (x)")'],
    "an unsolicited FETCH FLAGS among the bodies": [BODIES[0], BODIES[1], b"5 (FLAGS (\\Seen $RefereeDone))"],
    "flags added to a body response": [(b"1 (UID 11 BODY[] {3}", b"abc"), b" FLAGS (\\Seen))"],
    "FLAGS for the same message in its own response": [*BODIES[:2], b"1 (UID 11 FLAGS (\\Seen))"],
    "two literals in one response": [(b"1 (UID 11 BODY[1] {1}", b"a"), (b" BODY[] {3}", b"abc"), b")"],
    "a literal shorter than announced": [(b"1 (UID 11 BODY[] {30}", b"abc"), b")"],
}


@pytest.mark.parametrize("data", FAST_SHAPES.values(), ids=FAST_SHAPES.keys())
def test_the_shapes_dovecot_sends_are_read_fast_and_as_imapclient_reads_them(data: Data) -> None:
    assert parse_fast(data) is not None, "this shape should not need imapclient's parser"
    assert parse(data, [11, 12, 13, 14]) == imapclient_parse(data, [11, 12, 13, 14])


def outcome(read: Callable[[Data, list[int]], object], data: Data) -> object:
    """What ``read`` returns, or the error it raises (its type and message)."""
    try:
        return read(data, [11, 12])
    except ProtocolError as error:
        return (type(error), str(error))


@pytest.mark.parametrize("data", ODD_SHAPES.values(), ids=ODD_SHAPES.keys())
def test_any_other_shape_goes_to_imapclient_and_gives_the_same(data: Data) -> None:
    assert parse_fast(data) is None
    assert outcome(parse, data) == outcome(imapclient_parse, data)


def test_messages_not_asked_for_or_not_answered_are_left_out() -> None:
    """An unsolicited response for another message is dropped; a message expunged meanwhile is missing."""
    assert set(parse(LISTING, [11, 99])) == {11}
    assert parse(LISTING, [11])[11][b"SEQ"] == 1
    assert parse([], [11]) == {}


@pytest.mark.integration
def test_on_dovecot_it_answers_as_imapclient_fetch(dovecot, imap_user):
    tricky = b'Subject: (x) {3}\r\n\r\n)\r\n* 1 FETCH (UID 9)\r\nNIL "q\\"" )'
    append(dovecot, imap_user, b"Subject: a\r\n\r\nhello\r\n", tricky, b"Subject: c\r\n\r\n" + b"x" * 5000 + b"\r\n")
    client = client_for(dovecot, imap_user)
    try:
        client.normalise_times = False
        client.select_folder("INBOX")
        uids = sorted(client.search(["ALL"]))
        client.delete_messages([uids[1]])
        client.expunge()  # one message gone meanwhile: missing from both answers
        asked = [*uids, 999]
        for items, names in [
            ("(RFC822.SIZE INTERNALDATE)", ["RFC822.SIZE", "INTERNALDATE"]),
            ("(BODY.PEEK[])", ["BODY.PEEK[]"]),
            ("(BODY.PEEK[]<0.100>)", ["BODY.PEEK[]<0.100>"]),
            ("(FLAGS BODY.PEEK[])", ["FLAGS", "BODY.PEEK[]"]),
        ]:
            expected = client.fetch(asked, names)
            assert uid_fetch(client, asked, items) == expected, items
            assert set(expected) == {uids[0], uids[2]}
        append(dovecot, imap_user, tricky)
        client.noop()
        uids = sorted(client.search(["ALL"]))
        bodies = uid_fetch(client, uids, "(BODY.PEEK[])")
        assert bodies[uids[-1]][b"BODY[]"] == tricky
        assert bodies == client.fetch(uids, ["BODY.PEEK[]"])
        assert not any(b"\\Seen" in flags for flags in client.get_flags(uids).values()), "PEEK must not set \\Seen"
    finally:
        client.logout()


@pytest.mark.integration
def test_imaplib_formats_no_protocol_log_unless_someone_logs_it(dovecot, imap_user, caplog):
    """Not logging the protocol, imaplib's debug level is 0 (it would repr every message fetched);
    with ``imapclient.imaplib`` at DEBUG, the protocol is still logged line by line."""
    append(dovecot, imap_user, b"Subject: a\r\n\r\nhello\r\n")
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    try:
        assert mailbox.client._imap.debug == 0
        assert len(mailbox.read_many(mailbox.unacknowledged(), 1000)) == 1
    finally:
        mailbox.close()
    caplog.set_level(logging.DEBUG, logger=PROTOCOL_LOGGER)
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    try:
        assert mailbox.client._imap.debug == 5
        mailbox.read_many(mailbox.unacknowledged(), 1000)
    finally:
        mailbox.close()
    assert any("BODY[] {" in record.getMessage() for record in caplog.records if record.name == PROTOCOL_LOGGER)
