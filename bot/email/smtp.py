"""Sending over SMTP with aiosmtplib: implicit TLS, STARTTLS or plain, optional AUTH.

Errors are sorted for the sender: :class:`TransportUnavailable` when the
server cannot be reached or will not talk (connection refused, TLS or AUTH
failure, disconnection, ``421``): the whole pass waits and retries;
:class:`MessageRejected` when the server refused one message (its recipient,
its size): that row alone is marked failed and retried later with back-off.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage

import aiosmtplib


class TransportUnavailable(Exception):
    """The mail server cannot take mail now; nothing was sent in this attempt."""


class MessageRejected(Exception):
    """The server refused this one message."""


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


class SmtpTransport:
    """Opens one SMTP session per sending pass (a :class:`bot.email.sender.Transport`)."""

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

    async def __aenter__(self) -> _SmtpConnection:
        try:
            await self.client.connect()
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise TransportUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.client.quit()
        except (aiosmtplib.SMTPException, OSError):
            self.client.close()

    async def send(self, message: EmailMessage, recipient: str) -> None:
        try:
            await self.client.send_message(message, sender=self.config.envelope_from or None, recipients=[recipient])
        except (aiosmtplib.SMTPRecipientsRefused, aiosmtplib.SMTPSenderRefused, aiosmtplib.SMTPDataError) as exc:
            if getattr(exc, "code", None) == 421:
                raise TransportUnavailable(str(exc)) from exc
            raise MessageRejected(f"{type(exc).__name__}: {exc}") from exc
        except aiosmtplib.SMTPResponseException as exc:
            if exc.code == 421:
                raise TransportUnavailable(f"{exc.code} {exc.message}") from exc
            raise MessageRejected(f"{exc.code} {exc.message}") from exc
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise TransportUnavailable(f"{type(exc).__name__}: {exc}") from exc
