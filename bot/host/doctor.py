"""``referee doctor``: is everything the settings name reachable and usable?

One :class:`Check` per line, ``ok``, ``warn`` (works, with a consequence
worth knowing) or ``FAIL`` with the fix.  The command exits non-zero when a
check fails.  What is checked, for what is configured:

* the settings a running bot needs (:meth:`bot.settings.loader.Settings.missing`);
* the database: reachable, and migrated to the newest revision;
* each channel of :data:`bot.channels.registry.CHANNELS`: the checks its ``channel.py`` declares (email:
  IMAP, SMTP, a Maildir, who vouches for senders; Discord: the token, guild, forum and permissions);
* the game masters: ``game_masters`` names someone reachable, not the referee itself.

Part of the composition root.  No secret is ever printed.
"""

from __future__ import annotations

from bot.channels import registry as channels
from bot.channels.contract import Check, DoctorContext, first_line
from bot.settings.loader import Settings

__all__ = ["Check", "game_master_check", "run_checks"]


def run_checks(settings: Settings, send_test: bool = False) -> list[Check]:
    """Every check the settings call for, in order."""
    checks = [_missing_check(problem) for problem in settings.missing()]
    if not checks:
        checks.append(Check("settings", True, "every setting a running bot needs is there"))
    checks += database_checks(settings)
    context = DoctorContext(
        send_test=send_test,
        host_addresses=tuple(channels.parse_address(a) for a in settings.host.host_addresses),
        mail_domain=settings.game.mail_domain,
    )
    for channel in channels.CHANNELS:
        checks += channel.doctor(settings.of(channel), context)
    checks.append(game_master_check(settings))
    return checks


# -- database ------------------------------------------------------------------------------------


def database_checks(settings: Settings) -> list[Check]:
    from sqlalchemy import text

    from bot.store.db import make_engine, sqlite_file
    from bot.store.migrate import current_revision, head_revision

    target = settings.store.database
    file = sqlite_file(target)
    if file is not None and not file.exists():  # opening it would create it: the doctor touches nothing
        return [Check("database", False, f"there is no SQLite database at {file}",
                      "run `referee db upgrade` to create it, or correct `database`")]  # fmt: skip
    engine = make_engine(target)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as exc:  # every driver has its own errors; the first line is what helps
        return [Check("database", False, f"cannot connect: {first_line(exc)}",
                      "check `database` (host, port, user; the password in REFEREE_DATABASE)")]  # fmt: skip
    finally:
        engine.dispose()
    found = [Check("database", True, f"reachable ({_safe_url(target)})")]
    current, head = current_revision(target), head_revision()
    if current == head:
        found.append(Check("database schema", True, f"at the newest revision {head}"))
    else:
        found.append(Check("database schema", False, f"at revision {current or 'none (empty)'}, newest is {head}",
                           "run `referee db upgrade` (before starting `referee serve`)"))  # fmt: skip
    return found


def _safe_url(target: str) -> str:
    from sqlalchemy.engine import make_url

    from bot.store.db import database_url

    return make_url(database_url(target)).render_as_string(hide_password=True)


# -- game masters --------------------------------------------------------------------------------


def _missing_check(problem: str) -> Check:
    """``key: missing: how to give it`` (:meth:`Settings.missing`) as a check naming the key, with the how as the fix."""
    key, _, how = problem.partition(": missing: ")
    return Check("settings", False, f"{key} is missing", how or problem)


def game_master_check(settings: Settings) -> Check:
    """The game masters named: each must be reachable on a configured channel, and none the referee itself."""
    masters = settings.host.game_masters
    if not masters:
        return Check("game masters", True, "game_masters is empty: games are created by the host only",
                     "set game_masters to the addresses (or Discord user ids) that may create games",
                     warning=True)  # fmt: skip
    named = f"{len(masters)} named: {', '.join(masters)}"
    parsed = [channels.parse_address(master) for master in masters]
    for channel in channels.CHANNELS:
        own = channel.own_address(settings.of(channel))
        if own and (channel.name, own) in parsed:
            return Check("game masters", False, f"{named}; {own} is the referee's own address",
                         "name the game masters' own addresses: mail from the referee's address is never read as a command")  # fmt: skip
    unreachable, fixes = [], []
    for channel in channels.CHANNELS:
        why = channel.unreachable(settings.of(channel))
        on_it = [written for written, (name, _) in zip(masters, parsed, strict=True) if name == channel.name]
        if why and on_it:
            unreachable.append(f"{', '.join(on_it)} ({why})")
        if why and channel.reach_by:
            fixes.append(channel.reach_by)
    if unreachable:
        return Check("game masters", True, f"{named}; not reachable: {'; '.join(unreachable)}",
                     f"set {' or '.join(fixes)}, or name them as they play", warning=True)  # fmt: skip
    return Check("game masters", True, named)
