"""A throwaway Dovecot IMAP server for the tests.

Static passdb and userdb: any user name logs in with :data:`PASSWORD` and gets a
fresh, empty Maildir, so each test takes a new user instead of a new server.
The base directory is a short path under /tmp (UNIX socket paths are limited
to 108 bytes), the master runs in its own process group, and stopping kills
that group (instant; SIGTERM makes the master wait about a second).

Both configuration syntaxes are supported: Dovecot 2.3 (Debian 12) and 2.4
(Debian 13, which renamed ``mail_location``, ``disable_plaintext_auth`` and the
passdb/userdb ``args``, and needs ``dovecot_config_version``).  The version is
read from ``dovecot --version``.  As root, mail is owned by ``nobody`` (Dovecot
refuses uid 0 for mail); as another user, the services run as that user.
"""

from __future__ import annotations

import contextlib
import grp
import itertools
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.net import free_port, self_signed_certificate

PASSWORD = "dovecot-test-password"
_USERS = itertools.count(1)


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.access("/usr/sbin/dovecot", os.X_OK) else None)


def dovecot_version(binary: str) -> tuple[int, int]:
    output = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    match = re.match(r"(\d+)\.(\d+)", output.strip())
    if match is None:
        raise RuntimeError(f"cannot read the Dovecot version from {output!r}")
    return int(match.group(1)), int(match.group(2))


class DovecotServer:
    """One Dovecot instance; ``extra`` is appended to its configuration (e.g. ``imap_capability``).

    With ``tls`` it has a throwaway certificate (``cert``): STARTTLS on ``port`` and implicit TLS on
    ``tls_port``.
    """

    def __init__(self, binary: str, extra: str = "", tls: bool = False) -> None:
        self.binary = binary
        self.version = dovecot_version(binary)
        self.extra = extra
        self.root = Path(tempfile.mkdtemp(prefix="dc", dir="/tmp"))
        self.tls = tls
        self.cert: Path | None = None
        self.key: Path | None = None
        self.tls_port = free_port() if tls else 0
        self.port = free_port()
        self.host = "127.0.0.1"
        self.config = self.root / "dovecot.conf"
        self.process: subprocess.Popen[bytes] | None = None

    # -- configuration ----------------------------------------------------------

    def _identity(self) -> tuple[int, int, str, str]:
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            return nobody.pw_uid, nobody.pw_gid, "", ""
        user = pwd.getpwuid(os.geteuid()).pw_name
        group = grp.getgrgid(os.getegid()).gr_name
        return os.geteuid(), os.getegid(), user, group

    def _config_text(self) -> str:
        uid, gid, user, group = self._identity()
        r, p = self.root, self.port
        unprivileged = ""
        if user:
            unprivileged = f"""
default_internal_user = {user}
default_login_user = {user}
default_internal_group = {group}
service anvil {{
  chroot =
}}
service auth {{
  user = {user}
}}
service auth-worker {{
  user = {user}
}}
"""
        login_extra = f"    chroot =\n    user = {user}\n" if user else ""
        common = f"""base_dir = {r}/run
state_dir = {r}/state
instance_name = test-{p}
log_path = {r}/dovecot.log
info_log_path = {r}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = {"yes" if self.tls else "no"}
auth_mechanisms = plain login
auth_failure_delay = 0
mail_fsync = never
first_valid_uid = {uid}
first_valid_gid = {gid}
protocol imap {{
  mail_max_userip_connections = 100
}}
{unprivileged}"""
        if self.version >= (2, 4):
            return f"""dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
{common}
auth_allow_cleartext = yes
{f"ssl_server_cert_file = {self.cert}{chr(10)}ssl_server_key_file = {self.key}" if self.tls else ""}
mail_driver = maildir
mail_home = {r}/mail/%{{user}}
mail_path = ~/Maildir
namespace inbox {{
  inbox = yes
}}
passdb static {{
  password = {PASSWORD}
}}
userdb static {{
  fields {{
    uid = {uid}
    gid = {gid}
    home = {r}/mail/%{{user}}
  }}
}}
service imap-login {{
{login_extra}  inet_listener imap {{
    port = {p}
  }}
  inet_listener imaps {{
    port = {self.tls_port}
    ssl = yes
  }}
}}
{self.extra}
"""
        return f"""{common}
disable_plaintext_auth = no
{f"ssl_cert = <{self.cert}{chr(10)}ssl_key = <{self.key}" if self.tls else ""}
mail_location = maildir:{r}/mail/%u/Maildir
passdb {{
  driver = static
  args = password={PASSWORD}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={r}/mail/%u
}}
service imap-login {{
{login_extra}  inet_listener imap {{
    address = 127.0.0.1
    port = {p}
  }}
  inet_listener imaps {{
    port = {self.tls_port}
    ssl = yes
  }}
}}
{self.extra}
"""

    # -- life cycle ----------------------------------------------------------------

    def start(self) -> None:
        uid, gid, _, _ = self._identity()
        if self.tls:
            self.cert, self.key = self_signed_certificate(self.root)
        (self.root / "mail").mkdir()
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            os.chown(self.root / "mail", uid, gid)
        self.config.write_text(self._config_text())
        check = subprocess.run(["doveconf", "-c", str(self.config), "-n"], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"doveconf refused the test configuration:\n{check.stderr}")
        self._spawn()

    def restart(self) -> None:
        """Kill the server (SIGKILL to its process group, as a crash would) and start it again, mail kept."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self._spawn()

    def _spawn(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "-F", "-c", str(self.config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"dovecot exited at start:\n{self.log()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=1) as sock:
                    if sock.recv(64).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"dovecot did not answer in 15 s:\n{self.log()}")

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            self.process = None
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    # -- helpers for tests -----------------------------------------------------------

    def new_user(self, prefix: str = "user") -> str:
        """A user name no test has used: it logs in to a fresh, empty mailbox."""
        return f"{prefix}{next(_USERS)}x{os.getpid()}"

    def kick(self, user: str) -> None:
        """Drop every IMAP connection of ``user`` (as if the server had cut them)."""
        subprocess.run(["doveadm", "-c", str(self.config), "kick", user], capture_output=True, check=False)


@pytest.fixture(scope="session")
def dovecot() -> Iterator[DovecotServer]:
    """A Dovecot for the test session of the package whose conftest imports this fixture.

    Skipped without the binary (``apt-get install dovecot-imapd``); under ``CI=true`` a skip fails the run.
    """
    binary = dovecot_binary()
    if binary is None:
        pytest.skip("Dovecot is not installed (apt-get install dovecot-imapd)")
    server = DovecotServer(binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()
