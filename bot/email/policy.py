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
mail is rate limited per address (see :mod:`bot.core.intake.reply_limit`); above the
limit it is applied but not answered.  Replies carry
``Auto-Submitted: auto-replied`` so well-behaved responders stay quiet.

**Who sent it** is read from the raw From field (:mod:`bot.email.originator`),
never from decoded display text: one plain address, or the mail is not
verifiable and nothing in it is acted upon (it is answered at that one
address when it can be read safely, else only stored).

**Who is vouched for.**  The referee believes a From address only when the
receiving mail server checked it.  The envelope says
:attr:`bot.core.model.commands.Trust.VOUCHED` only when an ``Authentication-Results``
header (RFC 8601) added by a server the host names in
``email_trusted_authserv_ids`` (its own receiving server) records, for the
From domain,

* ``dmarc=pass`` with ``header.from`` the From domain; or
* ``dkim=pass`` with ``header.d`` aligned with it (the From domain or a parent
  of it that is not a top-level domain); or
* ``spf=pass`` with ``smtp.mailfrom`` (the envelope sender) aligned with it;

and no ``dmarc=fail``.  Only the topmost run of ``Authentication-Results``
headers carrying a trusted authserv-id counts (from the first such header
down to the next header of another id): the receiving server adds its own
above what arrived.  It must also remove any that arrived carrying its id
(RFC 8601 section 5; deploy/HOSTING.md, "Trust", says how), otherwise a
sender could write one right below the server's.  Headers of any other
authserv-id are ignored.

Nothing else vouches: ``Return-Path`` (MAIL FROM) is whatever the sender
typed, so a Return-Path equal to From proves nothing; ``spf=fail``,
``dkim=fail``, a signature of another domain, or no Authentication-Results
from a trusted server leave the sender :attr:`~bot.core.model.commands.Trust.CLAIMED`.
Where the host names no trusted server, nobody is vouched for, and games
with address-only authentication cannot be created (``CREATE ... AUTH
address`` by mail, ``referee gm create --auth address``); password games
work everywhere.

A CLAIMED sender gets what anyone gets (HELP, LIST, STATUS, JOIN: the reply
goes to the From address, so a forger learns nothing, and the owner of the
address sees what was attempted in their name); everything above that needs
the matching secret (the seat or the GM password), and creating a game needs
a vouched sender (:func:`bot.core.commands.pipeline.authorise`).  The refusal says why
the sender was not vouched for (:attr:`Vouching.reason`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.basics import linear
from bot.email.mime import MailText

_BOUNCE_LOCALPARTS = frozenset({"mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon"})
_NOREPLY_LOCALPARTS = frozenset(
    {"noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply", "bounce", "bounces"}
)


@dataclass(frozen=True)
class Vouching:
    """Whether the receiving side vouches for the From address, and why (or why not)."""

    vouched: bool
    reason: str


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
        return f"no From address to answer ({mail.from_problem})" if mail.from_problem else "no From address"
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


def vouching(mail: MailText, trusted_authserv_ids: frozenset[str]) -> Vouching:
    """Whether the receiving side vouches for the From address (see the module docstring), and why."""
    if mail.from_problem is not None:
        return Vouching(False, f"the From field cannot be verified: {mail.from_problem}")
    from_domain = _domain(mail.from_address)
    if from_domain is None:
        return Vouching(False, "the message has no From address")
    trusted = {authserv.strip().lower() for authserv in trusted_authserv_ids if authserv.strip()}
    if not trusted:
        return Vouching(False, "this referee names no mail server that checks senders")
    checks = _topmost_trusted(mail.authentication_results, trusted)
    if not checks:
        return Vouching(False, "the receiving mail server recorded no check of the sender")
    passes: list[str] = []
    seen: list[str] = []
    for authserv, method, result, props in checks:
        seen.append(f"{method}={result}")
        if method == "dmarc" and result == "fail":
            return Vouching(False, f"the receiving mail server recorded dmarc=fail for {from_domain}")
        if result != "pass":
            continue
        if method == "dmarc" and props.get("header.from", "") == from_domain:
            passes.append(f"dmarc=pass from {authserv}")
        elif method == "dkim" and _aligned(from_domain, _signer(props)):
            passes.append(f"dkim=pass from {authserv}")
        elif method == "spf" and _aligned(from_domain, _envelope_domain(props)):
            passes.append(f"spf=pass from {authserv}")
    if passes:
        return Vouching(True, passes[0])
    summary = ", ".join(dict.fromkeys(seen))
    return Vouching(False, f"the receiving mail server's checks did not pass for {from_domain} ({summary})")


def sender_vouched(mail: MailText, trusted_authserv_ids: frozenset[str]) -> str | None:
    """Why the receiving side vouches for the From address (see the module docstring), or None."""
    found = vouching(mail, trusted_authserv_ids)
    return found.reason if found.vouched else None


def _domain(address: str | None) -> str | None:
    if not address or "@" not in address:
        return None
    return address.rsplit("@", 1)[1].strip().strip(".").lower() or None


def _envelope_domain(props: dict[str, str]) -> str | None:
    """The domain of ``smtp.mailfrom`` (an address, or a bare domain as some servers write it)."""
    domain = props.get("smtp.mailfrom", "").rpartition("@")[2].strip(".")
    return domain or None


def _signer(props: dict[str, str]) -> str | None:
    signer = (props.get("header.d") or props.get("header.i", "").rpartition("@")[2]).strip(".")
    return signer or None


def _aligned(from_domain: str, other: str | None) -> bool:
    """Relaxed alignment: ``other`` is the From domain or a parent of it (not a bare top-level domain)."""
    if other is None or "." not in other:
        return False
    return from_domain == other or from_domain.endswith("." + other)


_COMMENT = linear.compile(r"\([^()]*\)")
Check = tuple[str, str, str, dict[str, str]]
"""(authserv-id, method, result, {ptype.property: value}) of one result in one header."""


def _topmost_trusted(headers: tuple[str, ...], trusted: set[str]) -> list[Check]:
    """The results of the first run of consecutive headers (top first) whose authserv-id is trusted."""
    found: list[Check] = []
    for header in headers:
        authserv, results = _authentication_results(header)
        if authserv in trusted:
            found += [(authserv, method, result, props) for method, result, props in results]
        elif found:
            break
    return found


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
