"""One parse a mail (bot.email.mime.parse_plain): the Message-ID, the content digest and the
reading taken from that parse are the ones each step finds parsing the mail on its own.

Checked on every mail of the corpus (as stored and with CRLF line ends) and on generated mails
(tests/email/fuzz/strategies.py: MIME structures, charsets, header forms, LF or CRLF).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from bot.email.mime import content_digest, message_id_of, parse_plain, read_mail
from tests.email.fuzz.strategies import Mail, damaged, mails

CORPUS = Path(__file__).parent / "corpus"
MAX_BYTES = 1024 * 1024
RAWS = sorted(CORPUS.glob("*.eml"))


def _same_either_way(raw: bytes) -> bool:
    """Checks ``raw``; returns whether it was parsed once (plain mail) at all."""
    parsed = parse_plain(raw, MAX_BYTES)
    assert message_id_of(raw, parsed) == message_id_of(raw)
    assert content_digest(raw, parsed) == content_digest(raw)
    assert read_mail(raw, MAX_BYTES, None, parsed) == read_mail(raw, MAX_BYTES)
    return parsed is not None


@pytest.mark.parametrize("path", RAWS, ids=[path.name for path in RAWS])
def test_corpus_mail_reads_the_same_from_one_parse(path: Path) -> None:
    raw = path.read_bytes()
    _same_either_way(raw)
    _same_either_way(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


def test_most_of_the_corpus_is_parsed_once() -> None:
    plain = sum(_same_either_way(path.read_bytes()) for path in RAWS)
    assert plain >= len(RAWS) // 2, f"only {plain} of {len(RAWS)} corpus mails take the one-parse path"


def test_a_large_mail_is_not_parsed_whole() -> None:
    raw = (CORPUS / RAWS[0].name).read_bytes()
    assert parse_plain(raw, len(raw)) is None
    assert parse_plain(raw, MAX_BYTES, server_size=MAX_BYTES) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mails())
def test_generated_mail_reads_the_same_from_one_parse(mail: Mail) -> None:
    _same_either_way(mail.raw)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(damaged())
def test_damaged_mail_reads_the_same_from_one_parse(raw: bytes) -> None:
    _same_either_way(raw)
