"""The project installs as a package.

The sdist and the wheel are built from the repository with ``python -m build``
(the sdist first, then the wheel from the unpacked sdist, so a file missing
from the sdist shows up here too).  The wheel is installed into a fresh venv
(no system site-packages, no editable checkout, no ``PYTHONPATH``) and
``referee`` is run there from a folder outside the repository: it must find
its templates and migrations in the installed package, and write nothing
into site-packages.  Dependencies come from the package index (or pip's
cache), as for any user.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("wheel")]
"""Integration tests; in a parallel run (pytest-xdist, ``--dist loadgroup``) all on one worker, which builds
the distributions once."""

ROOT = Path(__file__).resolve().parent.parent
DATA = {"templates": "bot/_templates", "migrations": "bot/_migrations"}
"""Repository folder -> where the wheel ships it."""


def _repo_files(folder: str) -> set[str]:
    """The files under ``folder`` that belong in a distribution (no caches)."""
    base = ROOT / folder
    return {
        path.relative_to(base).as_posix()
        for path in base.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def _clean_env(venv: Path, home: Path) -> dict[str, str]:
    """The environment of a user who has only this venv: nothing points back at the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "REFEREE_"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONNOUSERSITE"] = "1"
    env["TMPDIR"] = str(home / "tmp")
    (home / "tmp").mkdir(exist_ok=True)
    return env


@dataclass(frozen=True)
class Dists:
    sdist: Path
    wheel: Path


@dataclass(frozen=True)
class Installed:
    venv: Path
    site_packages: Path
    cwd: Path
    env: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        cwd=out, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return Dists(sdist, wheel)


@pytest.fixture(scope="module")
def installed(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    home = tmp_path_factory.mktemp("user 100% ")  # a space and a % in the install path: both must work
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _clean_env(venv, home)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(dists.wheel)],
        cwd=home, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        cwd=home, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    cwd = home / "elsewhere"
    cwd.mkdir()
    return Installed(venv, Path(purelib), cwd, env)


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }


def test_the_wheel_ships_every_package_template_and_migration(dists: Dists) -> None:
    names = set(zipfile.ZipFile(dists.wheel).namelist())
    for folder, target in DATA.items():
        shipped = {name.removeprefix(target + "/") for name in names if name.startswith(target + "/")}
        assert shipped == _repo_files(folder), folder
    packages = {
        p.parent.relative_to(ROOT).as_posix()
        for top in ("bot", "adjudicator")
        for p in (ROOT / top).rglob("__init__.py")
    }
    missing = {package for package in packages if f"{package}/__init__.py" not in names}
    assert not missing, f"packages left out of the wheel: {sorted(missing)}"
    fonts = {"bot/pictures/fonts/DejaVuSansMono.ttf", "bot/pictures/fonts/DejaVuSansMono-Bold.ttf"}
    assert fonts | {"bot/pictures/fonts/LICENSE"} <= names, "the board pictures' fonts and their licence"
    catalogues = {f"bot/locale/{path}" for path in _repo_files("bot/locale")}
    assert "bot/locale/fr/LC_MESSAGES/referee.po" in catalogues and catalogues <= names, "the languages' catalogues"
    stray = sorted(name for name in names if name.split("/")[0] in {"templates", "migrations", "tests", "scripts"})
    assert not stray, f"top-level folders a wheel must not put into site-packages: {stray[:5]}"


def test_the_sdist_ships_templates_and_migrations(dists: Dists) -> None:
    with tarfile.open(dists.sdist) as archive:
        files = [member.name for member in archive.getmembers() if member.isfile()]
    (top,) = {name.split("/")[0] for name in files}
    for folder in DATA:
        shipped = {name.removeprefix(f"{top}/{folder}/") for name in files if name.startswith(f"{top}/{folder}/")}
        assert shipped == _repo_files(folder), folder
    assert f"{top}/pyproject.toml" in files and f"{top}/README.md" in files


def test_bot_and_its_resources_come_from_the_fresh_venv(installed: Installed) -> None:
    probe = installed.run(
        "python", "-c",
        "import bot, bot.resources as r; print(bot.__file__); print(r.TEMPLATES_DIR); print(r.MIGRATIONS_DIR)",
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    module, templates, migrations = (Path(line) for line in probe.stdout.splitlines())
    site = installed.site_packages
    assert module == site / "bot" / "__init__.py"
    assert templates == site / "bot" / "_templates" and (templates / "common").is_dir()
    assert migrations == site / "bot" / "_migrations"
    for needed in ("env.py", "script.py.mako", "versions"):
        assert (migrations / needed).exists(), needed


def test_referee_runs_from_the_installed_wheel_and_writes_nothing_into_site_packages(
    installed: Installed, tmp_path: Path
) -> None:
    before = _snapshot(installed.site_packages)

    demo = installed.run("referee", "demo")
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "Traceback" not in demo.stderr
    assert "Result:" in demo.stdout and "Seed revealed:" in demo.stdout
    assert "ok   the revealed seed matches the commitment" in demo.stdout
    assert "ok   replaying gives the recorded standings" in demo.stdout
    assert "FAIL" not in demo.stdout

    by_mail = installed.run("referee", "demo", "--via", "email")
    assert by_mail.returncode == 0, by_mail.stdout[-2000:] + by_mail.stderr[-2000:]
    assert "ok   every message was applied and every reply and report was sent" in by_mail.stdout
    assert "FAIL" not in by_mail.stdout

    target = tmp_path / "x.sqlite3"
    upgraded = installed.run("referee", "db", "upgrade", "--db", str(target))
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    from bot.store.migrate import head_revision  # the repository's own migrations

    assert upgraded.stdout.strip().endswith(f"at revision {head_revision()}")
    assert target.is_file()

    assert _snapshot(installed.site_packages) == before


def test_an_editable_install_reads_templates_and_migrations_in_the_checkout(tmp_path: Path) -> None:
    """``pip install -e .`` (scripts/demo, scripts/test): edits to templates/ are seen at once, no copies."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = _clean_env(venv, tmp_path)
    top_level = set(os.listdir(ROOT))
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "-e", str(ROOT)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    assert set(os.listdir(ROOT)) - top_level == set(), "the editable install wrote into the checkout"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the probe imports bot from the checkout: leave no __pycache__ there
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import bot, bot.resources as r; print(bot.__file__); print(r.TEMPLATES_DIR); print(r.MIGRATIONS_DIR)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    module, templates, migrations = (Path(line) for line in probe.stdout.splitlines())
    assert module == ROOT / "bot" / "__init__.py"
    assert templates == ROOT / "templates"
    assert migrations == ROOT / "migrations"
