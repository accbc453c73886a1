"""APPEND mails to an IMAP mailbox at given wall-clock times, from a process of its own.

``python -m tests.email.timed_append`` reads JSON on stdin: ``host``, ``port``,
``user``, ``password`` and ``schedule``, a list of ``[unix time, base64 mail]``
in the order to send.  It logs in first, then sleeps until each time and
appends the mail.  A process of its own, so the referee under test (in the
test's process) cannot delay the deliveries by holding the GIL: a mail meant
for the last 0.04 s before a deadline reaches the server then, on any machine.
"""

from __future__ import annotations

import base64
import json
import sys
import time

from imapclient import IMAPClient


def main() -> None:
    job = json.load(sys.stdin)
    client = IMAPClient(job["host"], port=job["port"], ssl=False, timeout=10)
    client.login(job["user"], job["password"])
    try:
        for at, raw in job["schedule"]:
            time.sleep(max(0.0, at - time.time()))
            client.append("INBOX", base64.b64decode(raw))
    finally:
        client.logout()


if __name__ == "__main__":
    main()
