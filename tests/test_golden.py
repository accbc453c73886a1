"""The golden-file helper: it compares, it never creates a file by itself, and update mode writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden import UPDATE_VARIABLE, assert_golden


def test_a_missing_golden_file_fails_and_says_how_to_create_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(UPDATE_VARIABLE, raising=False)
    path = tmp_path / "golden" / "new.txt"
    with pytest.raises(AssertionError, match="REFEREE_UPDATE_GOLDEN=1") as failure:
        assert_golden("text\n", path)
    assert "missing" in str(failure.value)
    assert not path.exists() and not path.parent.exists()


def test_a_different_text_fails_and_leaves_the_file_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(UPDATE_VARIABLE, raising=False)
    path = tmp_path / "report.txt"
    path.write_bytes(b"line one\r\n")
    with pytest.raises(AssertionError, match=r"report\.txt differs"):
        assert_golden("line one\n", path)  # byte for byte: no newline translation
    assert path.read_bytes() == b"line one\r\n"
    assert_golden("line one\r\n", path)


def test_update_mode_is_the_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(UPDATE_VARIABLE, "1")
    path = tmp_path / "golden" / "new.txt"
    assert_golden("caf\u00e9\n", path)
    assert path.read_bytes() == "caf\u00e9\n".encode()
    monkeypatch.setenv(UPDATE_VARIABLE, "yes")  # only "1" asks for an update
    with pytest.raises(AssertionError):
        assert_golden("other\n", path)
