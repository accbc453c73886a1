"""Sending over SMTP with aiosmtplib: implicit TLS, STARTTLS or plain, optional AUTH.

Errors are sorted for the sender: :class:`TransportUnavailable` when the
server cannot be reached or will not talk (connection refused, TLS or AUTH
failure, disconnection, ``421``): the whole pass waits and retries;
:class:`MessageRejected` when the server refused one message (its recipient,
its size): that row alone is settled: a permanent refusal (a ``5xx`` reply,
RFC 5321 section 4.2.1) is parked with the reason, a transient one (``4xx``)
is marked failed and retried later with back-off.

Each message is serialised once, to bytes, and sent raw (``sendmail``):
aiosmtplib's ``send_message`` would copy and serialise it again.

A message's envelope (``MAIL FROM``, ``RCPT TO``) may be opened first
(:meth:`_SmtpConnection.open_envelope`) and its content handed over later
(:meth:`_SmtpConnection.send`, then ``DATA`` only): the sender opens the next
message's envelope while the previous one's sent mark commits, and hands its
content over only once that mark is committed.  An envelope without content
delivers nothing: a session that ends there (the process killed, ``QUIT``,
``RSET``) leaves no mail behind (RFC 5321 section 4.1.1).  A plain address
(``local@domain``, ASCII, nothing to quote) goes into ``MAIL FROM`` and
``RCPT TO`` as it is, without aiosmtplib's ``email.utils.parseaddr`` on
every message; any other goes through the library's ``mail`` and ``rcpt``.
"""

from __future__ import annotations

import ssl
import string
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses

import aiosmtplib
from aiosmtplib.protocol import normalize_message_line_endings
from aiosmtplib.typing import SMTPStatus

from bot.core.messaging.transport import Unavailable
from bot.email.render import BuiltMail

_LOCAL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "!#$%&'*+/=?^_`{|}~.-")
_DOMAIN_CHARACTERS = frozenset(string.ascii_letters + string.digits + ".-")


def is_plain_address(address: str) -> bool:
    """An ASCII addr-spec with a dot-atom local part and a plain domain (``local@domain``, one ``@``, each
    side from its set of characters): what aiosmtplib's ``quote_address`` returns unchanged (nothing to parse
    or quote), so ``MAIL FROM`` and ``RCPT TO`` can go without it.  Sets, not a pattern: one pass, no
    encoding (this runs twice a mail)."""
    local, at, domain = address.partition("@")
    return (
        bool(local and at and domain) and _LOCAL_CHARACTERS.issuperset(local) and _DOMAIN_CHARACTERS.issuperset(domain)
    )


def smtp_size(raw: bytes) -> int:
    """The ``SIZE`` of ``raw`` as ``DATA`` sends it (every line ending made CRLF, as aiosmtplib does): its
    length when every ``CR`` and ``LF`` in it is already a CRLF (the mails the referee builds), without
    copying it (the library also ends the data with a CRLF when it does not)."""
    crlf = raw.count(b"\r\n")
    if raw.count(b"\r") == crlf and raw.count(b"\n") == crlf and raw.endswith(b"\r\n"):
        return len(raw)
    return len(normalize_message_line_endings(raw))


class TransportUnavailable(Unavailable):
    """The mail server cannot take mail now; nothing was sent in this attempt."""


class MessageRejected(Exception):
    """The server refused this one message; ``code`` is its reply code (0 when unknown)."""

    def __init__(self, reason: str, code: int = 0) -> None:
        super().__init__(reason)
        self.code = code

    @property
    def permanent(self) -> bool:
        """A ``5xx`` refusal: the same message will be refused again (RFC 5321 section 4.2.1)."""
        return 500 <= self.code <= 599


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int = 0
    security: str = "starttls"
    """``tls`` (implicit, port 465), ``starttls`` (port 587) or ``none`` (port 25; tests, localhost)."""
    user: str = ""
    password: str = field(default="", repr=False)
    envelope_from: str = ""
    """MAIL FROM: where bounces go (the referee's own address, whose intake records them as bounces)."""
    timeout: float = 60.0
    ca_file: str | None = None
    validate_certs: bool = True

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "none"):
            raise ValueError(f"SMTP security must be tls, starttls or none, not {self.security!r}")

    @property
    def resolved_port(self) -> int:
        return self.port or {"tls": 465, "starttls": 587, "none": 25}[self.security]


def _sender_of(message: EmailMessage) -> str:
    """MAIL FROM when none is configured: the From address (as ``send_message`` took it)."""
    addresses = getaddresses([str(message.get("From", ""))])
    return addresses[0][1] if addresses else ""


class SmtpTransport:
    """Opens one SMTP session per sending pass (a :class:`bot.email.transport.Transport`)."""

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config

    def connect(self) -> _SmtpConnection:
        return _SmtpConnection(self.config)


class _SmtpConnection:
    def __init__(self, config: SmtpConfig) -> None:
        self.config = config
        context = None
        if config.security != "none":
            context = ssl.create_default_context(cafile=config.ca_file or None)
            if not config.validate_certs:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
        self.client = aiosmtplib.SMTP(
            hostname=config.host, port=config.resolved_port, use_tls=config.security == "tls",
            start_tls=config.security == "starttls", tls_context=context, validate_certs=config.validate_certs,
            username=config.user or None, password=config.password or None, timeout=config.timeout,
        )  # fmt: skip
        self._open: tuple[bytes, str] | None = None
        """The message whose envelope is open (its bytes, its recipient), awaiting its content."""

    async def __aenter__(self) -> _SmtpConnection:
        try:
            await self.client.connect()
            if self.client.is_ehlo_or_helo_needed:  # greeted once: open_envelope reads the extensions
                try:
                    await self.client.ehlo()
                except aiosmtplib.SMTPHeloError:
                    await self.client.helo()
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise TransportUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.client.quit()
        except (aiosmtplib.SMTPException, OSError):
            self.client.close()

    async def open_envelope(self, message: EmailMessage | BuiltMail, recipient: str) -> None:
        """``MAIL FROM`` and ``RCPT TO`` for ``message``; its content goes with the next :meth:`send`.

        Nothing is delivered until that :meth:`send`.  Raises as :meth:`send` does
        (a refused recipient: :class:`MessageRejected`; the envelope is reset).
        """
        envelope_from, raw = self._envelope_of(message)
        self._open = None
        options = [f"size={smtp_size(raw)}"] if self.client.supports_extension("size") else []
        async with self._refusals():
            try:
                await self._mail(envelope_from, options)
                await self._rcpt(recipient)
            except aiosmtplib.SMTPResponseException:
                await self._reset()
                raise
        self._open = (raw, recipient)

    async def send(self, message: EmailMessage | BuiltMail, recipient: str) -> None:
        """Deliver ``message`` to ``recipient``: its content only when :meth:`open_envelope` opened its
        envelope just before, else the whole transaction."""
        envelope_from, raw = self._envelope_of(message)
        opened, self._open = self._open, None
        async with self._refusals():
            if opened == (raw, recipient):
                try:
                    await self.client.data(raw)
                except aiosmtplib.SMTPResponseException:
                    await self._reset()
                    raise
                return
            if opened is not None:  # another message's envelope is open: drop it first
                await self._reset()
            await self.client.sendmail(envelope_from, [recipient], raw)

    async def _mail(self, sender: str, options: list[str]) -> None:
        """``MAIL FROM``, as aiosmtplib's ``mail`` (same command, same errors), without parsing a plain address."""
        if self.client.is_ehlo_or_helo_needed or not is_plain_address(sender):
            await self.client.mail(sender, options=options)
            return
        response = await self.client.execute_command(
            b"MAIL", b"FROM:<" + sender.encode("ascii") + b">", *(option.encode("ascii") for option in options)
        )
        if response.code != SMTPStatus.completed:
            raise aiosmtplib.SMTPSenderRefused(response.code, response.message, sender)

    async def _rcpt(self, recipient: str) -> None:
        """``RCPT TO``, as aiosmtplib's ``rcpt`` (same command, same errors), without parsing a plain address."""
        if self.client.is_ehlo_or_helo_needed or not is_plain_address(recipient):
            await self.client.rcpt(recipient)
            return
        response = await self.client.execute_command(b"RCPT", b"TO:<" + recipient.encode("ascii") + b">")
        if response.code not in (SMTPStatus.completed, SMTPStatus.will_forward):
            raise aiosmtplib.SMTPRecipientRefused(response.code, response.message, recipient)

    def _envelope_of(self, message: EmailMessage | BuiltMail) -> tuple[str, bytes]:
        if isinstance(message, BuiltMail):
            return self.config.envelope_from or message.sender, message.raw
        return self.config.envelope_from or _sender_of(message), message.as_bytes()

    async def _reset(self) -> None:
        """Drop an open envelope after a refusal, as ``sendmail`` does (a failing RSET is not raised)."""
        with suppress(aiosmtplib.SMTPResponseException, aiosmtplib.SMTPServerDisconnected, ConnectionError):
            await self.client.rset()

    @asynccontextmanager
    async def _refusals(self) -> AsyncIterator[None]:
        """aiosmtplib's errors as the sender sorts them (see the module docstring)."""
        try:
            yield
        except aiosmtplib.SMTPRecipientsRefused as exc:
            refusals = exc.recipients
            code = refusals[0].code if refusals else 0
            reason = "; ".join(f"{r.recipient}: {r.code} {r.message}" for r in refusals) or str(exc)
            if code == 421:
                raise TransportUnavailable(reason) from exc
            raise MessageRejected(f"recipient refused: {reason}", code) from exc
        except aiosmtplib.SMTPRecipientRefused as exc:
            reason = f"{exc.recipient}: {exc.code} {exc.message}"
            if exc.code == 421:
                raise TransportUnavailable(reason) from exc
            raise MessageRejected(f"recipient refused: {reason}", exc.code) from exc
        except aiosmtplib.SMTPResponseException as exc:
            if exc.code == 421:
                raise TransportUnavailable(f"{exc.code} {exc.message}") from exc
            raise MessageRejected(f"{type(exc).__name__}: {exc.code} {exc.message}", exc.code) from exc
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise TransportUnavailable(f"{type(exc).__name__}: {exc}") from exc
