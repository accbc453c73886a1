"""Per-seat secrets: generated on joining, mailed once, stored only as a keyed hash.

A seat secret is made by the bot (:func:`new_secret`), never chosen by a
person, so it needs no slow password hash: it is stored as
``hmac-sha256$<salt>$<digest>``, an HMAC-SHA256 of the salt and the
normalised secret under a key that lives *outside* the database (the
``secret_key`` setting or a key file, see :func:`load_secret_key`).  A copy
of the database alone therefore reveals no secret: without the key the
digest cannot be tested against the 6.8 million possible secrets, and the
secret itself is kept nowhere else in clear for long.  The message that
hands it out holds it until sent or parked, then keeps ``(removed once
sent)`` in its place (:mod:`bot.core.model.secret_values`); a mail that gave it is
kept, once processed, with it masked (:mod:`bot.email.redact`), and its raw
bytes are emptied after ``inbound_raw_retention_days`` (21 by default,
:mod:`bot.core.runtime.housekeeping`); SQLite zeroes what an update removes and the
write-ahead log is truncated hourly (deploy/HOSTING.md, "Secrets at rest").  One check
costs a few microseconds instead of the tens of milliseconds of the PBKDF2
hash used before (that hash was 68% of the intake time).

Rows written before this change hold ``pbkdf2$<iterations>$<salt>$<digest>``;
they are still verified (old games keep working).  :func:`needs_rehash` says
that such a row should be rewritten with :func:`hash_secret`; the caller does
so only after the secret was just checked against it, in the same
transaction, so the new row is made from a proven secret and a rollback
keeps the old one.

The key reaches :func:`hash_secret` and :func:`check_secret` explicitly (the
core's ``ServiceConfig.secret_key``); there is no module-level key.
Comparisons are constant-time (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

HMAC_SCHEME = "hmac-sha256"
PBKDF2_SCHEME = "pbkdf2"
MIN_KEY_BYTES = 32
"""A configured key shorter than this is refused (a generated key file holds 64 hex digits)."""

_ITERATIONS = 100_000
_WORDS = (
    "amber", "birch", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "indigo", "juniper",
    "kestrel", "lagoon", "meadow", "nimbus", "orchid", "pebble", "quartz", "raven", "saffron", "tundra",
    "umber", "violet", "willow", "xenon", "yarrow", "zephyr",
)  # fmt: skip


class SecretKeyError(ValueError):
    """The key for seat secrets cannot be had: the message names the setting to fix."""


def new_secret() -> str:
    """A secret a person can type: two words and four digits, e.g. ``amber-raven-4821``."""
    return f"{secrets.choice(_WORDS)}-{secrets.choice(_WORDS)}-{secrets.randbelow(10_000):04d}"


def hash_secret(secret: str, key: bytes) -> str:
    """``hmac-sha256$<salt>$<digest>`` of the normalised secret under ``key``."""
    _require_key(key)
    salt = secrets.token_hex(8)
    return f"{HMAC_SCHEME}${salt}${_hmac_digest(key, salt, secret)}"


def check_secret(secret: str, stored: str, key: bytes) -> bool:
    """True when ``secret`` is the one ``stored`` was made from (case and spaces ignored).

    ``stored`` is an HMAC row (checked under ``key``) or an old PBKDF2 row
    (checked with its own salt and iteration count); anything else is False.
    """
    parts = stored.split("$")
    if parts[0] == HMAC_SCHEME and len(parts) == 3:
        _require_key(key)
        _, salt, digest = parts
        return hmac.compare_digest(_hmac_digest(key, salt, secret), digest)
    if parts[0] == PBKDF2_SCHEME and len(parts) == 4:
        _, iterations, salt, digest = parts
        if not iterations.isdecimal() or not 0 < int(iterations) <= 10_000_000:
            return False
        candidate = hashlib.pbkdf2_hmac("sha256", _normalise(secret), salt.encode(), int(iterations)).hex()
        return hmac.compare_digest(candidate, digest)
    return False


def needs_rehash(stored: str) -> bool:
    """True for a row in an older scheme (PBKDF2): rewrite it once its secret has been checked."""
    return not stored.startswith(f"{HMAC_SCHEME}$")


def load_secret_key(configured: str, key_file: str, database: str) -> bytes:
    """The key for seat secrets, from the settings (the composition root calls this once).

    * ``configured`` (setting ``secret_key``, env ``REFEREE_SECRET_KEY``): used as is
      (its UTF-8 bytes, surrounding spaces removed), at least :data:`MIN_KEY_BYTES` long;
    * else ``key_file`` (setting ``secret_key_file``): read, or created with mode 0600
      holding 64 random hex digits when it does not exist;
    * else a file beside the SQLite database ``database``: ``<database>.key``, the same way.

    For a database that is not a SQLite file (PostgreSQL, or SQLite in memory) with
    neither setting, :class:`SecretKeyError` says which setting to give: a key file
    beside a server's database is no place the bot can choose.
    """
    if configured.strip():
        key = configured.strip().encode("utf-8")
        if len(key) < MIN_KEY_BYTES:
            raise SecretKeyError(f"secret_key (REFEREE_SECRET_KEY) must be at least {MIN_KEY_BYTES} characters long")
        return key
    if key_file.strip():
        return _key_from_file(Path(key_file.strip()), "secret_key_file")
    sqlite_path = _sqlite_file(database)
    if sqlite_path is None:
        raise SecretKeyError(
            f"no key for seat secrets: set secret_key (env REFEREE_SECRET_KEY) or secret_key_file "
            f"for the database {_without_password(database)}; the key must live outside the database"
        )
    return _key_from_file(Path(f"{sqlite_path}.key"), "secret_key_file (default: <database>.key)")


def _key_from_file(path: Path, setting: str) -> bytes:
    if not path.exists():
        _create_key_file(path, setting)
    try:
        key = path.read_bytes().strip()
    except OSError as exc:
        raise SecretKeyError(f"{setting}: cannot read the key file {path}: {exc.strerror}") from None
    if len(key) < MIN_KEY_BYTES:
        raise SecretKeyError(f"{setting}: the key file {path} holds fewer than {MIN_KEY_BYTES} bytes")
    return key


def _create_key_file(path: Path, setting: str) -> None:
    """Write a new key (mode 0600) under a temporary name, then link it into place.

    The link fails if another process made the file first, so two processes
    starting together end up with the same key, and nobody reads a half-written file.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first: its key is read
            os.link(temporary, path)
    except OSError as exc:
        raise SecretKeyError(f"{setting}: cannot create the key file {path}: {exc.strerror}") from None
    finally:
        temporary.unlink(missing_ok=True)


def needs_configured_key(database: str) -> bool:
    """True when ``database`` is no SQLite file, so ``secret_key`` or ``secret_key_file`` must be given."""
    return _sqlite_file(database) is None


def _sqlite_file(database: str) -> str | None:
    """The file of a SQLite database (a plain path or ``sqlite:///path``), else None."""
    if "://" not in database:
        path = database.strip()
    elif database.startswith("sqlite") and database.split("://", 1)[1].startswith("/"):
        path = database.split("://", 1)[1][1:].split("?", 1)[0]
    else:
        return None
    return path if path and path != ":memory:" else None


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"


def _require_key(key: bytes) -> None:
    if not key:
        raise SecretKeyError("an empty key cannot protect seat secrets")


def _hmac_digest(key: bytes, salt: str, secret: str) -> str:
    return hmac.new(key, salt.encode("utf-8") + b"$" + _normalise(secret), hashlib.sha256).hexdigest()


def _normalise(secret: str) -> bytes:
    return "".join(secret.split()).lower().encode("utf-8")
