"""``python -m bench guard`` runs end to end at a tiny size and prints its figures (bench/guard.py).

Not a timed test: it checks that the guard starts ``referee serve``, that every mail is answered and
every report delivered, and that each figure is printed; what the figures are is not asserted."""

from __future__ import annotations

import pytest

from bench.common import ROOT
from bench.guard import guard, named
from bench.serve_scale import serve_scale
from tests.support.dovecot import dovecot_binary
from tests.support.postgres import _bindir

pytestmark = pytest.mark.integration


def test_the_guard_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]):
    if dovecot_binary() is None or _bindir() is None:
        pytest.skip("Dovecot and PostgreSQL are needed")
    medians = guard(mails=24, games=2, repeats=1)
    out = capsys.readouterr().out
    assert "WARNING" not in out, out
    for line in ("intake floor (bare imapclient FETCH+MOVE, 24 mails)", "intake this (", "crunch floor",
                 "crunch this (", "start to first report", "20 mails delivered one at a time to a running serve",
                 "the 24 waiting when it started"):  # fmt: skip
        assert line in out, out
    assert set(medians) == {"intake_ratio_this", "crunch_ratio_this", "reply_p50_this", "reply_max_this"}
    assert all(v > 0 for v in medians.values()), medians
    assert medians["reply_p50_this"] <= medians["reply_max_this"] < 60  # every trickled mail was answered


def test_serve_scale_runs_two_serves_on_one_database_and_counts_the_reports(capsys: pytest.CaptureFixture[str]):
    """``python -m bench serve-scale`` at a tiny size: one and two ``referee serve`` on one PostgreSQL, every
    report delivered once (the counts are asserted; the times are not)."""
    if dovecot_binary() is None or _bindir() is None:
        pytest.skip("Dovecot and PostgreSQL are needed")
    medians = serve_scale(games=3, repeats=1)
    out = capsys.readouterr().out
    assert "reports received twice: 0; missing: 0" in out, out
    assert "1 serve: " in out and "2 serve: " in out and "27 reports" in out, out
    assert medians["speed_up"] > 0 and medians["machine"] > 0


def test_the_checkouts_are_named_other_alone_and_by_their_directory_when_several(tmp_path):
    old, new = tmp_path / "539bfa8", tmp_path / "x" / "539bfa8"
    assert named([]) == {"this": ROOT}
    assert named([old]) == {"this": ROOT, "other": old}
    assert named([old, tmp_path / "badcbb7", new]) == {
        "this": ROOT, "539bfa8": old, "badcbb7": tmp_path / "badcbb7", "539bfa8'": new
    }  # fmt: skip


def test_bench_cpu_counts_each_process_in_the_timed_window(capsys: pytest.CaptureFixture[str]):
    """``python -m bench cpu`` at a tiny size: the intake's window (a third of a second) shows serve and its
    mail reader busy, each run its groups against what the goal leaves (the figures are not asserted; the
    crunch of 18 reports is over within a few of /proc's 10 ms ticks)."""
    from bench.cpu_window import cpu

    if dovecot_binary() is None or _bindir() is None:
        pytest.skip("Dovecot and PostgreSQL are needed")
    cpu(mails=24, games=2, repeats=1)
    intake, crunch = capsys.readouterr().out.rstrip("\n").splitlines()
    assert intake.startswith("  intake of 24 (") and "1.0x the floor leaves" in intake, intake
    assert crunch.startswith("  crunch of 2 games (18 reports") and "1.5x the send floor leaves" in crunch, crunch
    for group in ("serve", "mail reader", "bench (SMTP sink)", "PostgreSQL", "Dovecot", "other"):
        assert f" {group} " in crunch, crunch
        seconds = float(intake.split(f" {group} ")[1].split(" s")[0])
        assert seconds > 0 or group not in ("serve", "mail reader"), f"{group} spent nothing in the window: {intake}"


def test_processes_are_grouped_by_their_command_line():
    import os

    from bench.cpu_window import group_of

    assert group_of(os.getpid(), "python -m pytest") == "bench (SMTP sink)"
    assert group_of(1, "python /x/.venv/bin/python -m bot.host.cli --config /tmp/r.toml serve") == "serve"
    assert group_of(1, "python -m bot.email.mail_reader 1024") == "mail reader"
    assert group_of(1, "postgres postgres: 15/main: checkpointer") == "PostgreSQL"
    assert group_of(1, "imap dovecot-test-58663/imap") == "Dovecot"
    assert group_of(1, "python -m bot.host.cli status") == "other"


def test_a_process_in_no_group_is_looked_at_again():
    """A child seen between its fork and its ``exec`` has its parent's command line ("other"): the next
    sample reads it again and finds serve (a CI run counted serve's whole window as "other" so); a process
    in a group keeps it without being read again."""
    import subprocess
    import sys

    from bench.cpu_window import snapshot

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "bot.host.cli", "serve"])
    try:
        groups = {child.pid: "other"}  # as seen before its exec
        assert snapshot(groups)[child.pid][0] == "serve"
        groups[child.pid] = "Dovecot"
        assert snapshot(groups)[child.pid][0] == "Dovecot"
    finally:
        child.kill()
        child.wait()
