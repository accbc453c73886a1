"""The sender against a real SMTP server (aiosmtpd): TLS modes, AUTH, refusals, and the server going away."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.model import commands as c
from bot.email.maildir import MaildirTransport
from bot.email.render import MailIdentity, compose
from bot.email.smtp import SmtpConfig, SmtpTransport, TransportUnavailable
from bot.email.transport import MailSender, MailTransport, _MailSession
from bot.host.cli import main
from tests.email.mailboxes import eventually
from tests.email.world import GM, PASSWORDS, PLAYERS, REFEREE, SETUP_ORDERS, START, apply, outbox_rows, service_for
from tests.support.smtp_sink import SmtpSink

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS"),  # implicit TLS: aiosmtpd cannot tell
]

IDENTITY = MailIdentity(REFEREE, "Referee")


def sender_for(
    sessions: sessionmaker[Session], transport: object, clock: SimulatedClock, connections: int = 1
) -> MailSender:
    return MailSender(
        OutboxDrain(sessions),
        transport,  # type: ignore[arg-type]
        clock,
        IDENTITY,
        interval=0.05,
        retry_min=0.05,
        retry_max=0.2,
        connections=connections,
    )


@pytest.fixture(params=[1, 2], ids=["one-session", "two-sessions"])
def connections(request: pytest.FixtureRequest) -> int:
    """SMTP sessions a sending pass uses (``smtp_connections``): each keeps the guarantees on its own."""
    return int(request.param)


def smtp_config(sink: SmtpSink, **changes: object) -> SmtpConfig:
    values: dict[str, object] = dict(host=sink.host, port=sink.port, security="none", envelope_from=REFEREE, timeout=5)
    values.update(changes)
    return SmtpConfig(**values)  # type: ignore[arg-type]


def order_everyone(sessions: sessionmaker[Session], clock: SimulatedClock) -> None:
    service = service_for(sessions)
    for name, address in PLAYERS.items():
        envelope = c.Envelope(
            c.Sender("email", address, name), (c.SubmitOrders("demo", SETUP_ORDERS[name]),), f"setup:{name}",
            clock.now(), {"subject": "orders", "message_id": f"<{name}@example.org>"}, PASSWORDS[name],
        )  # fmt: skip
        assert "orders_accepted" in service.apply(envelope).results


async def test_plain_smtp_delivers_rfc5322_messages(world, smtp, connections):
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    result = await sender_for(world, SmtpTransport(smtp_config(smtp)), clock, connections).drain_all()
    assert (result.sent, result.failed) == (6, 0)
    assert outbox_rows(world) == []
    received = smtp.messages()
    assert {r.recipients for r in received} == {(address,) for address in PLAYERS.values()}
    assert {r.mail_from for r in received} == {REFEREE}
    first = received[0].message
    for header in ("Message-ID", "Date", "From", "To", "Subject", "In-Reply-To", "References", "Auto-Submitted"):
        assert first[header], header
    assert first["Auto-Submitted"] == "auto-replied"
    assert first["From"] == f"Referee <{REFEREE}>"
    assert first.get_content_type() == "text/plain" and first.get_content_charset() == "us-ascii"  # plain ASCII: 7bit


@pytest.mark.parametrize("security", ["starttls", "tls"])
async def test_tls_and_auth(world, security):
    sink = SmtpSink(tls=security, login=("referee", "s3cret"))
    sink.start()
    try:
        clock = SimulatedClock(START)
        apply(service_for(world), "ann@example.org", "Ann", c.ShowStatus("demo"))
        config = smtp_config(sink, security=security, user="referee", password="s3cret", ca_file=str(sink.cert))
        assert (await sender_for(world, SmtpTransport(config), clock).drain_all()).sent == 1
        assert len(sink.messages()) == 1
        assert "s3cret" not in repr(config)

        apply(service_for(world), "ann@example.org", "Ann", c.ShowStatus("demo"))
        wrong = smtp_config(sink, security=security, user="referee", password="wrong", ca_file=str(sink.cert))
        with pytest.raises(TransportUnavailable):
            await sender_for(world, SmtpTransport(wrong), clock).drain_all()
        assert len(outbox_rows(world)) == 1, "nothing is marked when the server refuses the session"
    finally:
        sink.close()


async def test_a_recipient_refused_for_now_is_retried_later_and_the_rest_go_through(world, smtp, connections):
    """A 4xx for one recipient: that row is retried with back-off, never parked."""
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    smtp.defer.add("cat@example.org")
    sender = sender_for(world, SmtpTransport(smtp_config(smtp)), clock, connections)
    result = await sender.drain_all()
    assert (result.sent, result.failed) == (5, 1)
    (left,) = outbox_rows(world)
    assert left.recipient == "cat@example.org" and left.attempts == 1 and "450" in (left.last_error or "")
    assert OutboxDrain(world).parked() == []
    assert (await sender.drain_all()).sent == 0, "not before its back-off"
    clock.advance(timedelta(minutes=1))
    assert (await sender.drain_all()).failed == 1, "still refused for now: tried again"
    smtp.defer.clear()
    clock.advance(timedelta(minutes=1))
    assert (await sender.drain_all()).sent == 1
    assert Counter(r.recipients[0] for r in smtp.messages())["cat@example.org"] == 1


async def test_a_recipient_refused_for_good_is_parked_with_the_reason_for_the_host(world, world_path, smtp, tmp_path,
                                                                                   capsys, connections):  # fmt: skip
    """A 5xx for one recipient parks that row (shown by ``referee outbox list``); it is not retried hourly."""
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    smtp.reject.add("cat@example.org")
    sender = sender_for(world, SmtpTransport(smtp_config(smtp)), clock, connections)
    result = await sender.drain_all()
    assert (result.sent, result.failed) == (5, 1)
    assert OutboxDrain(world).unsent_count("email") == 0, "a parked row is not waiting"
    ((parked, reason),) = OutboxDrain(world).parked("email")
    assert parked.recipient == "cat@example.org" and "550" in reason and "no such user" in reason
    smtp.reject.clear()
    clock.advance(timedelta(days=2))
    assert (await sender.drain_all()).sent == 0, "never retried"
    assert [r.recipients[0] for r in smtp.messages()].count("cat@example.org") == 0

    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{world_path}"\n')
    assert main(["--config", str(config), "outbox", "list"]) == 0
    out = capsys.readouterr().out
    assert "1 parked" in out and "cat@example.org" in out and "550" in out


async def test_the_server_goes_away_during_a_turn_and_every_report_arrives_once(world, smtp, connections):
    """Reports written while the server is down wait; when it is back (flapping at first), each arrives once."""
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    sender = sender_for(world, SmtpTransport(smtp_config(smtp)), clock, connections)
    stop = asyncio.Event()
    task = asyncio.create_task(sender.run(stop))
    try:
        await eventually(lambda: len(smtp.messages()) == 6)
        smtp.stop()
        clock.advance(timedelta(hours=49))
        assert sorted(service_for(world).resolve_due(clock.now())) == [("club", 0), ("demo", 0)]
        reports = [row for row in outbox_rows(world) if row.kind == "report"]
        assert sorted(row.recipient for row in reports) == sorted([*PLAYERS.values(), GM] * 2)
        await asyncio.sleep(0.5)
        assert len(smtp.messages()) == 6 and len(outbox_rows(world)) == 14

        smtp.accept_limit = 9  # back, but drops the session after three more messages
        smtp.start()
        await eventually(lambda: len(smtp.messages()) == 9)
        await asyncio.sleep(0.3)
        assert len(outbox_rows(world)) == 11
        smtp.accept_limit = None
        await eventually(lambda: len(smtp.messages()) == 20)
        await asyncio.sleep(0.3)
    finally:
        stop.set()
        await task
    received = smtp.messages()
    ids = Counter(str(r.message["Message-ID"]) for r in received)
    assert len(received) == 20 and max(ids.values()) == 1, "no message was sent twice"
    assert {row.message_id for row in reports} <= set(ids)
    assert outbox_rows(world) == []
    report = next(
        r.message
        for r in received
        if r.recipients == ("ann@example.org",) and "[demo] Golden Strider: turn 0 report" in r.message["Subject"]
    )
    body = report.get_body(("plain",)).get_content()  # beside it: the next deadline's deadline.ics
    assert report["Auto-Submitted"] == "auto-generated"
    assert "Deadline: 2026-03-06 12:00 UTC (Fri 13:00 CET, Europe/Paris)" in body
    assert "Copy for Ann" in body
    gm_copy = next(
        r.message for r in received if r.recipients == (GM,) and "[demo] Golden Strider: turn 0" in r.message["Subject"]
    )
    assert "copy for" not in gm_copy.get_body(("plain",)).get_content() and gm_copy["Subject"] == report["Subject"]


async def test_the_maildir_transport_writes_each_message_once(world, tmp_path: Path):
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    transport = MaildirTransport(tmp_path / "outbox")
    pending = OutboxDrain(world).due("email", clock.now(), lease=timedelta(0))  # look, without holding them
    sender = sender_for(world, transport, clock)
    assert (await sender.drain_all()).sent == 6
    files = sorted((tmp_path / "outbox" / "new").iterdir())
    assert len(files) == 6
    async with transport.connect() as connection:  # a retry after a crash between writing and marking
        for row in pending:
            await connection.send(compose(row, IDENTITY, clock.now()), row.recipient)
    assert sorted((tmp_path / "outbox" / "new").iterdir()) == files
    parsed = message_from_bytes(files[0].read_bytes(), policy=policy.default)
    assert parsed["Auto-Submitted"] == "auto-replied"


async def test_a_reply_committed_while_the_sender_waits_goes_out_at_once(world, smtp):
    """The sender wakes when outbox rows are committed in this process (bot.core.messaging.outbox_bell), not at
    its next interval; here the interval is a minute and the reply is committed by another thread."""
    clock = SimulatedClock(START)
    bell = OutboxBell().listen(world)  # as the composition root makes it (bot.host.wiring)
    sender = MailSender(OutboxDrain(world), SmtpTransport(smtp_config(smtp)), clock, IDENTITY, interval=60, bell=bell)
    stop = asyncio.Event()
    task = asyncio.create_task(sender.run(stop))
    try:
        await asyncio.sleep(0.3)  # the first pass is over: it waits its minute
        before = len(smtp.messages())
        await asyncio.to_thread(apply, service_for(world), "ann@example.org", "Ann", c.ShowStatus("demo"))
        started = asyncio.get_running_loop().time()
        await eventually(lambda: len(smtp.messages()) == before + 1, timeout=5)
        assert asyncio.get_running_loop().time() - started < 2
    finally:
        stop.set()
        await asyncio.wait_for(task, 1)  # stopping does not wait the interval either
        bell.stop_listening(world)


async def test_on_two_sessions_one_recipients_mail_arrives_in_order_and_every_row_once(world, smtp, monkeypatch):
    """A pass on two sessions deals recipients, not rows: each recipient's mail comes in the order written."""
    clock = SimulatedClock(START)
    service = service_for(world)
    for _ in range(5):
        for name, address in PLAYERS.items():
            apply(service, address, name, c.ShowStatus("demo"))
    written = [(row.recipient, row.message_id) for row in outbox_rows(world)]
    sender = sender_for(world, SmtpTransport(smtp_config(smtp)), clock, connections=2)
    sessions: list[int] = []
    smtp_connect = SmtpTransport.connect

    def counted(self: SmtpTransport) -> object:
        sessions.append(1)
        return smtp_connect(self)

    monkeypatch.setattr(SmtpTransport, "connect", counted)
    result = await sender.drain_all()
    assert result.sent == len(written) and len(sessions) == 2
    received = [(r.recipients[0], str(r.message["Message-ID"])) for r in smtp.messages()]
    assert sorted(received) == sorted(written), "every row once"
    for address in PLAYERS.values():
        assert [mid for who, mid in received if who == address] == [mid for who, mid in written if who == address]
    assert outbox_rows(world) == []


def many_replies(sessions: sessionmaker[Session], rounds: int) -> list[tuple[str, str]]:
    """``rounds`` replies to each player (a status each), as (recipient, Message-ID) in the order written."""
    service = service_for(sessions)
    for _ in range(rounds):
        for name, address in PLAYERS.items():
            apply(service, address, name, c.ShowStatus("demo"))
    return [(row.recipient, row.message_id) for row in outbox_rows(sessions)]


async def test_the_next_passs_rows_are_built_while_a_pass_sends_and_each_arrives_once_in_order(
    world, smtp, connections, monkeypatch
):
    """A full claim (more rows due) has the next pass's rows claimed and built while this pass sends
    (bot.core.messaging.sender_loop: claiming ahead); they go out only after it, each once, in the order
    written to each recipient.  Each send of pass n first waits (up to 5 s) for pass n + 1 to be begun, so
    what the test sees does not hang on the machine's pace: with claiming ahead it is begun at once, before
    any of pass n's mails reach the server; without, it never is while pass n sends."""
    written = many_replies(world, 4)
    sender = MailSender(OutboxDrain(world), SmtpTransport(smtp_config(smtp)), SimulatedClock(START), IDENTITY,
                        batch=5, connections=connections)  # fmt: skip
    events: list[tuple[str, int]] = []
    begin, send = MailTransport.begin, _MailSession.send
    sends, gave_up = 0, False

    async def begun(self: MailTransport, rows: list[PendingMessage]) -> None:
        events.append(("begin", len(smtp.messages())))
        await begin(self, rows)

    async def sent(self: _MailSession, row: PendingMessage) -> object:
        nonlocal sends, gave_up
        sends += 1
        wanted = min((sends - 1) // 5 + 2, 5)  # this row's pass, and the next (the fifth, of 4 rows, is the last)
        waited = 0.0
        while sum(kind == "begin" for kind, _ in events) < wanted and not gave_up:
            await asyncio.sleep(0.01)
            waited += 0.01
            gave_up = waited > 5  # not begun meanwhile: it would not be (the assertion below says so)
        outcome = await send(self, row)
        events.append(("sent", len(smtp.messages())))
        return outcome

    monkeypatch.setattr(MailTransport, "begin", begun)
    monkeypatch.setattr(_MailSession, "send", sent)
    result = await sender.drain_all()
    assert result.sent == len(written) == 24
    begins = [at for kind, at in events if kind == "begin"]
    assert len(begins) == 5 and begins[0] == 0
    # without claiming ahead, pass n + 1 would be begun only once pass n had sent its 5: at 5 n
    assert all(at < 5 * n for n, at in enumerate(begins[1:], 1)), f"built ahead of the sends: {events}"
    received = [(r.recipients[0], str(r.message["Message-ID"])) for r in smtp.messages()]
    assert sorted(received) == sorted(written), "every row once"
    for address in PLAYERS.values():
        assert [mid for who, mid in received if who == address] == [mid for who, mid in written if who == address]
    assert outbox_rows(world) == []


async def test_when_the_server_goes_away_the_rows_claimed_ahead_are_given_back_at_once(world, smtp):
    """The pass stops at the server going away: its unsent rows and the next pass's, claimed ahead, are due
    again at once (no lease left on them, no attempt counted), and all arrive once when it is back."""
    written = many_replies(world, 4)
    clock = SimulatedClock(START)
    sender = MailSender(OutboxDrain(world), SmtpTransport(smtp_config(smtp)), clock, IDENTITY, batch=5)
    smtp.accept_limit = 3
    with pytest.raises(TransportUnavailable):
        await sender.send_due()
    assert len(smtp.messages()) == 3
    due = OutboxDrain(world).due("email", clock.now(), limit=100, lease=timedelta(0))
    assert len(due) == len(written) - 3 and all(row.attempts == 0 for row in due)
    smtp.accept_limit = None
    assert (await sender.drain_all()).sent == len(written) - 3
    ids = Counter(str(r.message["Message-ID"]) for r in smtp.messages())
    assert sorted(ids) == sorted(mid for _, mid in written) and max(ids.values()) == 1


@pytest.mark.parametrize(
    ("address", "plain"),
    [("ann@example.org", True), ("first.last+tag@mail.example.org", True), ("o'neil@example.org", True),
     ("x_y-z=1@example.co.uk", True), ('"a b"@example.org', False), ("Ann <ann@example.org>", False),
     ("ann@example.org ", False), ("ann@exämple.org", False), ("a@b@example.org", False),
     ("ann@example.org> SIZE=1", False), ("", False), ("@example.org", False), ("ann@", False),
     ("ann@example.org\r\nRCPT TO:<x@y>", False), ("ann\x00@example.org", False)],
)  # fmt: skip
def test_an_address_goes_into_the_envelope_as_it_is_only_when_the_library_would_not_change_it(address, plain):
    """MAIL FROM and RCPT TO skip aiosmtplib's parsing for a plain address (bot.email.smtp.is_plain_address),
    one its quote_address gives back unchanged; any other goes through the library's mail and rcpt."""
    from aiosmtplib.email import quote_address

    from bot.email.smtp import is_plain_address

    assert is_plain_address(address) == plain
    if plain:
        assert quote_address(address) == f"<{address}>"


@pytest.mark.parametrize("raw", [b"", b"a\r\nb\r\n", b"a\nb\n", b"a\rb", b"a\r\n\nb\r", b"\r\r\n\n", b"no line end"])
def test_the_size_declared_is_the_size_data_sends(raw):
    """SIZE (RFC 1870) is counted on the bytes DATA sends, every line ending made CRLF (aiosmtplib's
    normalize_message_line_endings), whether or not the message's were already."""
    from aiosmtplib.protocol import normalize_message_line_endings

    from bot.email.smtp import smtp_size

    assert smtp_size(raw) == len(normalize_message_line_endings(raw))
