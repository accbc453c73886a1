"""The folder channel: order files are read from one folder, replies written to another.

Declared as every channel is (bot/channels/contract.py), in one ``channel.py``;
its loops' parts are in ``runtime.py``, imported only when its workers are
built (reading the settings loads no more than this module).  Each ``*.txt``
file of ``inbox`` is one message: its first line is the sender (``@name``),
the rest the commands (``HELP``, ``JOIN <game> <seat>``, or ``ORDERS <game>``
and the order lines).  A file read and stored is moved to ``inbox/done/``.
Each outbox row is written to ``outbox`` as ``<row id>.json`` (the recipient,
the template and its data), for another program to show.  People on it are
written ``@name``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.channels.contract import AddressSyntax, Channel, Check, DoctorContext, Runtime

if TYPE_CHECKING:
    from bot.core.runtime.supervisor import Worker

NAME = "folder"


@dataclass(frozen=True)
class FolderSettings:
    """``[referee.folder]``: the two folders (``folder_inbox``, ``folder_outbox``); empty: the channel is off."""

    inbox: str = ""
    outbox: str = ""
    poll_seconds: float = 5.0


def read_address(text: str) -> str | None:
    name = text.strip().lower()
    return name if name.startswith("@") and name[1:].isalnum() and len(name) <= 32 else None


def workers(settings: FolderSettings, runtime: Runtime) -> list[Worker]:
    """The core's intake and sender workers around the folders (none when a folder is not set)."""
    if not (settings.inbox and settings.outbox):
        return []
    from .runtime import folder_workers

    return folder_workers(settings, runtime)


def doctor(settings: FolderSettings, context: DoctorContext) -> list[Check]:
    """Both folders exist."""
    return [
        Check(f"folder {role}", bool(path) and Path(path).is_dir(), path or "not set", f"create {path or role}")
        for role, path in (("inbox", settings.inbox), ("outbox", settings.outbox))
        if settings.inbox or settings.outbox
    ]


CHANNEL: Channel[FolderSettings] = Channel(
    name=NAME,
    label="Folder",
    settings=FolderSettings,
    prefix="folder_",
    address=AddressSyntax(read_address, "folder names (@name)"),
    workers=workers,
    doctor=doctor,
    unreachable=lambda settings: "" if settings.outbox else "folder names, but no outbox folder is set",
    reach_by="folder_outbox",
)
