"""Loop, bounce and forgery policy: which mail gets no reply, and whose From is believed.

**Automatic mail is never answered** (RFC 3834), so no mail loop can start.
A message is automatic when any of these holds:

* ``Auto-Submitted`` is present and not ``no``;
* ``Precedence`` is ``bulk``, ``junk`` or ``list``, or it carries ``List-Id``
  or ``List-Unsubscribe`` (mailing-list traffic);
* it is a bounce or a receipt: the null envelope sender (``Return-Path: <>``),
  a ``MAILER-DAEMON``/``postmaster`` sender, ``multipart/report``
  (delivery status and disposition notifications), an ARF feedback report;
* another auto-responder marks it (``X-Autoreply``, ``X-Autorespond``,
  ``X-Auto-Response-Suppress: All|OOF|AutoReply`` on an Exchange reply);
* it comes from a no-reply address or from the referee's own address.

Automatic mail is stored and marked done; nothing in it is applied.  Human
mail is rate limited per address (see :mod:`bot.core.ratelimit`); above the
limit it is applied but not answered.  Replies carry
``Auto-Submitted: auto-replied`` so well-behaved responders stay quiet.

**A forged From is not trusted.**  The From address is *aligned* when the
envelope sender (the ``Return-Path`` the delivering server recorded) is in
the same domain as From, or one is a subdomain of the other; when a
``Sender`` header names another domain, or the receiving server recorded
``dmarc=fail`` in ``Authentication-Results``, it is not aligned.  A message
with no ``Return-Path`` is not aligned either.  From an unaligned message:

* orders are taken only with the seat's ``PASSWORD`` (whatever the game's
  authentication mode), so address-only authentication cannot be forged;
* ``RESIGN`` is refused (the core checks no password for it);
* everything else (HELP, LIST, STATUS, JOIN) is harmless: its reply goes to
  the From address, so a forger learns nothing, and the owner of the address
  sees what was attempted in their name.

**Who is vouched for**.  Aligned domains are not enough
for a game with address-only authentication: anyone may write
``From: steve@players.test`` with the envelope sender ``mallory@players.test``.
The envelope says :attr:`bot.core.commands.Trust.VOUCHED` only when

* an ``Authentication-Results`` header (RFC 8601) from an authserv-id the
  host names in ``email_trusted_authserv_ids`` (its own receiving server)
  records ``dkim=pass`` with ``header.d`` the From domain (or a parent of
  it), or ``dmarc=pass`` with ``header.from`` the From domain, and no
  ``dmarc=fail``; or
* the envelope sender (``Return-Path``) is the From address itself (and
  nothing above makes the From address unaligned).

A sender vouched for by a trusted server is believed even when the
alignment rules above would not align it (a forwarder rewrites the envelope
sender; DKIM survives it).

Anything else is :attr:`~bot.core.commands.Trust.CLAIMED`, and the core asks
for the seat password (:func:`bot.core.order_commands.needs_seat_password`).
An authserv-id is only worth trusting if that server removes
``Authentication-Results`` headers carrying its id from incoming mail before
it adds its own (RFC 8601 section 5; OpenDKIM, OpenDMARC, rspamd and the big
providers do), otherwise a sender could write one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.email.mime import MailText

_BOUNCE_LOCALPARTS = frozenset({"mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon"})
_NOREPLY_LOCALPARTS = frozenset(
    {"noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply", "bounce", "bounces"}
)


@dataclass(frozen=True)
class Trust:
    """Whether the From address may stand for the sender, and why not."""

    aligned: bool
    reason: str = ""


def automatic_reason(mail: MailText, own_addresses: frozenset[str] = frozenset()) -> str | None:
    """Why ``mail`` is automatic (see the module docstring), or None for human mail."""
    headers = mail.headers
    auto = headers.get("auto-submitted", "").split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = headers.get("precedence", "").strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    if "list-id" in headers or "list-unsubscribe" in headers:
        return "mailing-list message"
    if mail.return_path == "":
        return "bounce (null envelope sender)"
    if mail.content_type == "multipart/report":
        return "delivery or disposition report (multipart/report)"
    if "feedback-type" in headers:
        return "feedback report"
    for name in ("x-autoreply", "x-autorespond", "x-autoresponder"):
        if name in headers and headers[name].strip().lower() not in ("", "no", "false"):
            return f"{name}: {headers[name]}"
    suppress = headers.get("x-auto-response-suppress", "").lower()
    if "x-ms-exchange-generated-message-source" in headers or (
        suppress and any(word in suppress for word in ("all", "oof", "autoreply")) and _subject_is_auto(mail.subject)
    ):
        return "Exchange automatic message"
    address = (mail.from_address or "").lower()
    if not address:
        return "no From address"
    local = address.split("@")[0]
    if local in _BOUNCE_LOCALPARTS:
        return f"bounce ({local})"
    if local in _NOREPLY_LOCALPARTS:
        return f"no-reply sender ({address})"
    if address in own_addresses:
        return "sent by the referee itself"
    return None


def _subject_is_auto(subject: str) -> bool:
    lowered = subject.lower()
    return any(word in lowered for word in ("automatic reply", "out of office", "autoreply", "auto-reply"))


def sender_trust(mail: MailText) -> Trust:
    """Is the From address aligned with the envelope sender?  (See the module docstring.)"""
    from_domain = _domain(mail.from_address)
    if from_domain is None:
        return Trust(False, "the message has no From address")
    results = mail.headers.get("authentication-results", "").lower()
    if "dmarc=fail" in results:
        return Trust(False, "the receiving server recorded dmarc=fail for the From domain")
    if mail.sender_address is not None and not _aligned(from_domain, _domain(mail.sender_address)):
        return Trust(False, "the Sender header names another domain than From")
    if mail.return_path is None:
        return Trust(False, "the message has no Return-Path (envelope sender) to check From against")
    if not _aligned(from_domain, _domain(mail.return_path)):
        return Trust(False, "the envelope sender (Return-Path) is in another domain than From")
    return Trust(True)


def _domain(address: str | None) -> str | None:
    if not address or "@" not in address:
        return None
    return address.rsplit("@", 1)[1].strip().strip(".").lower() or None


def _aligned(first: str, second: str | None) -> bool:
    if second is None:
        return False
    return first == second or first.endswith("." + second) or second.endswith("." + first)


_COMMENT = re.compile(r"\([^()]*\)")


def sender_vouched(mail: MailText, trusted_authserv_ids: frozenset[str]) -> str | None:
    """Why the receiving side vouches for the From address (see the module docstring), or None."""
    address = (mail.from_address or "").strip().lower()
    from_domain = _domain(address)
    if from_domain is None:
        return None
    trusted = {authserv.strip().lower() for authserv in trusted_authserv_ids if authserv.strip()}
    passes: list[str] = []
    for header in mail.authentication_results:
        authserv, results = _authentication_results(header)
        if authserv not in trusted:
            continue
        for method, result, props in results:
            if method == "dmarc" and result != "pass":
                return None
            if method == "dmarc" and props.get("header.from", "").strip(".") == from_domain:
                passes.append(f"dmarc=pass from {authserv}")
            if method == "dkim" and result == "pass":
                signer = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
                signer = signer.strip(".")
                if signer and (from_domain == signer or from_domain.endswith("." + signer)):
                    passes.append(f"dkim=pass from {authserv}")
    if passes:
        return passes[0]
    if mail.return_path and mail.return_path.strip().lower() == address and sender_trust(mail).aligned:
        return "the envelope sender is the From address"
    return None


def _authentication_results(header: str) -> tuple[str, list[tuple[str, str, dict[str, str]]]]:
    """(authserv-id, [(method, result, {ptype.property: value})]) of one header (RFC 8601 section 2.2)."""
    text = header
    for _ in range(3):  # comments may nest a little
        text = _COMMENT.sub(" ", text)
    parts = [part.strip() for part in text.split(";")]
    authserv = parts[0].split()[0].lower() if parts and parts[0].split() else ""
    results: list[tuple[str, str, dict[str, str]]] = []
    for part in parts[1:]:
        tokens = part.split()
        if not tokens or "=" not in tokens[0]:
            continue
        method, _, result = tokens[0].lower().partition("=")
        props: dict[str, str] = {}
        for token in tokens[1:]:
            key, equals, value = token.partition("=")
            if equals and "." in key:
                props[key.lower()] = value.strip('"').lower()
        results.append((method.split("/")[0], result, props))
    return authserv, results
