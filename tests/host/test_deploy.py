"""deploy/: the systemd units are verified by systemd and hardened; the Dockerfile builds from the wheel."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
REFEREE = Path(sys.executable).parent / "referee"


def unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """Sections -> key -> every value given (systemd allows a key more than once)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in path.read_text().splitlines():
        text = raw.strip()
        if not text or text.startswith(("#", ";")):
            continue
        if text.startswith("["):
            current = sections.setdefault(text.strip("[]"), {})
            continue
        key, sep, value = text.partition("=")
        assert sep, f"{path.name}: not a key=value line: {raw!r}"
        current.setdefault(key, []).append(value)
    return sections


def test_the_unit_restarts_on_failure_and_is_hardened():
    service = unit(DEPLOY / "referee.service")["Service"]
    one = {key: values[-1] for key, values in service.items()}
    assert one["ExecStart"].endswith("/referee serve")
    assert one["ExecReload"] == "/bin/kill -HUP $MAINPID", "systemctl reload is SIGHUP"
    assert (one["KillSignal"], one["Restart"], one["RestartPreventExitStatus"]) == ("SIGTERM", "on-failure", "2")
    assert one["DynamicUser"] == "yes" and one["StateDirectory"] == "referee" and one["ProtectSystem"] == "strict"
    for key in (
        "NoNewPrivileges",
        "ProtectHome",
        "PrivateTmp",
        "PrivateDevices",
        "RestrictSUIDSGID",
        "LockPersonality",
    ):
        assert one[key] == "yes", key
    assert one["CapabilityBoundingSet"] == "" and service["SystemCallFilter"][0] == "@system-service"
    assert one["Environment"] == "REFEREE_CONFIG=/etc/referee/referee.toml"
    assert one["EnvironmentFile"].startswith("-/etc/referee/"), "secrets in an optional environment file"
    assert 'database = "/var/lib/referee/' in (DEPLOY / "referee.toml.example").read_text(), "in the StateDirectory"
    assert unit(DEPLOY / "referee.service")["Install"]["WantedBy"] == ["multi-user.target"]


def test_the_unit_gives_the_web_pages_process_room_and_lets_it_lower_its_priority():
    """Not systemd's default soft limit of 1,024 open files; the pages' process raises its own to the
    unit's limit and keeps its connections below it, and may lower its priority (a filtered call fails
    with EPERM, never kills it)."""
    from bot.web.channel import WebSettings
    from bot.web.process import FILE_RESERVE

    service = unit(DEPLOY / "referee.service")["Service"]
    assert int(service["LimitNOFILE"][-1]) >= max(65536, WebSettings().max_connections + FILE_RESERVE)
    assert "setpriority" in service["SystemCallFilter"] and service["SystemCallErrorNumber"] == ["EPERM"]


def test_the_template_unit_is_the_same_service():
    single, template = unit(DEPLOY / "referee.service"), unit(DEPLOY / "referee@.service")
    assert "%i" in template["Unit"]["Description"][0]
    template["Unit"]["Description"] = single["Unit"]["Description"]
    assert template == single


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", ["referee.service", "referee@.service"])
def test_systemd_analyze_verify_finds_nothing(tmp_path: Path, name: str):
    # verify checks that ExecStart exists: point it at this venv's referee
    assert REFEREE.exists()
    target = tmp_path / name.replace("@.", "@1.")
    target.write_text((DEPLOY / name).read_text().replace("/opt/referee/bin/referee", str(REFEREE)))
    done = subprocess.run(["systemd-analyze", "verify", str(target)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    bad = tmp_path / "bad.service"
    bad.write_text(target.read_text().replace("ProtectSystem=strict", "ProtectSytem=strict"))
    assert (
        "Unknown key" in subprocess.run(["systemd-analyze", "verify", str(bad)], capture_output=True, text=True).stderr
    )


def test_the_dockerfile_builds_from_the_wheel_and_copies_what_exists():
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)", text, re.MULTILINE)
    assert len(stages) == 2 and all(s.startswith("python:3.11") for s in stages)
    assert "pip wheel --no-cache-dir --wheel-dir /wheels ." in text
    assert "pip install --no-cache-dir --no-index --find-links /wheels referee" in text
    assert re.search(r"^USER referee$", text, re.MULTILINE) and "STOPSIGNAL SIGTERM" in text
    assert 'ENTRYPOINT ["referee"]' in text and 'CMD ["serve"]' in text
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE):
        for path in source.split():
            assert (ROOT / path).exists(), f"the Dockerfile copies {path}, which is not in the checkout"
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_hosting_tells_to_back_up_the_seat_secret_key_where_the_referee_makes_it(tmp_path: Path):
    from bot.core.people.seat_secrets import load_secret_key
    from bot.settings.loader import Settings

    example = Settings.load(DEPLOY / "referee.toml.example", {})
    database = tmp_path / Path(example.store.database).name  # the example's database, here
    load_secret_key("", example.store.secret_key_file, str(database))
    (made,) = [p.name for p in tmp_path.iterdir()]
    backups = (DEPLOY / "HOSTING.md").read_text().split("## 8. Backups")[1].split("## 9.")[0]
    assert f"`{made}`" in backups and "REFEREE_SECRET_KEY" in backups, "section 8 names the key file"
    assert f"{Path(example.store.database).parent}/{made}" in (DEPLOY / "HOSTING.md").read_text()


def test_the_invite_link_asks_for_exactly_the_permissions_the_doctor_checks():
    """The permissions the doctor requires, and Create Events (the doctor's optional one: games'
    deadlines as server events), and nothing else."""
    from bot.discord.doctor import EVENT_PERMISSIONS, PERMISSIONS

    text = (DEPLOY / "HOSTING.md").read_text()
    (asked,) = set(re.findall(r"permissions=(\d+)", text))
    wanted = sum(PERMISSIONS.values()) + EVENT_PERMISSIONS["Create Events"]
    assert int(asked) == wanted, "the invite URL's bits are the doctor's"
    for name in [*PERMISSIONS, "Create Events"]:
        assert f"**{name.replace('View Channel', 'View Channels')}**" in text, name
    assert "scope=bot+applications.commands" in text
