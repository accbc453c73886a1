"""Per-seat secrets: generated on joining, mailed once, stored only as a salted hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets

_ITERATIONS = 100_000
_WORDS = (
    "amber", "birch", "cobalt", "dune", "ember", "fjord", "granite", "harbor", "indigo", "juniper",
    "kestrel", "lagoon", "meadow", "nimbus", "orchid", "pebble", "quartz", "raven", "saffron", "tundra",
    "umber", "violet", "willow", "xenon", "yarrow", "zephyr",
)  # fmt: skip


def new_secret() -> str:
    """A secret a person can type: two words and four digits, e.g. ``amber-raven-4821``."""
    return f"{secrets.choice(_WORDS)}-{secrets.choice(_WORDS)}-{secrets.randbelow(10_000):04d}"


def hash_secret(secret: str) -> str:
    """``pbkdf2$<iterations>$<salt>$<digest>`` of the normalised secret."""
    salt = secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", _normalise(secret), salt.encode(), _ITERATIONS).hex()
    return f"pbkdf2${_ITERATIONS}${salt}${digest}"


def check_secret(secret: str, stored: str) -> bool:
    """True when ``secret`` is the one ``stored`` was made from (case and spaces ignored)."""
    try:
        scheme, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "pbkdf2":
        return False
    candidate = hashlib.pbkdf2_hmac("sha256", _normalise(secret), salt.encode(), int(iterations)).hex()
    return hmac.compare_digest(candidate, digest)


def _normalise(secret: str) -> bytes:
    return "".join(secret.split()).lower().encode("utf-8")
