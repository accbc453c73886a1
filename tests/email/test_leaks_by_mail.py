"""Three leaks closed, tried by mail as an outsider and players would, against the real servers.

As ``referee serve`` runs (:func:`bot.host.wiring.workers`: IMAP against Dovecot,
SMTP to aiosmtpd, the deadline worker), every mail APPENDed and every answer
read at the sink:

* **grey press**: Ben writes to all anonymously; Ann mutes the message's
  code; Ben's next *signed* press still reaches Ann, Cat's copy lists Ann,
  and Ben is not told that anything was held back (a mute by code that
  stopped signed press too was an oracle: 9F2C was Ben);
* **invite only**: an outsider refused at JOIN cannot take the seat a game
  master put up, even with ``SUBSTITUTE AUTO yes``;
* **a revealed seed**: once a game is ended its seed is public, and a
  ROLLBACK is refused, saying why.
"""

from __future__ import annotations

import pytest

from tests.email.mailboxes import eventually
from tests.email.test_deadlines import serving, settings_for
from tests.email.test_gm_by_mail import GM, Mail, address

pytestmark = pytest.mark.integration

OUTSIDER = "mallory@example.net"


async def _game(mail: Mail, game: str, settings: str, seats: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    created = await mail.send(settings, subject=f"CREATE {game} strike-gold")
    assert f"CREATED {game}" in created, created
    gm_password = created.split("Your game master password: ")[1].split()[0]
    joined = await mail.send_all([(f"JOIN {game} AS {seat}\n", address(seat)) for seat in seats])
    secrets = {
        seat: reply.split("Your seat password: ")[1].split()[0] for seat, reply in zip(seats, joined, strict=True)
    }
    return gm_password, secrets


async def test_grey_press_invite_only_seats_and_a_revealed_seed_by_mail(dovecot, imap_user, smtp, store):
    path, sessions = store
    settings = settings_for(path, dovecot, imap_user, smtp, game_masters=GM, deadline_check_seconds=0.5)
    mail = Mail(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        # -- grey press ----------------------------------------------------------------------
        seats = ("Ann", "Ben", "Cat")
        gm, secrets = await _game(mail, "grey1", "SEATS 3\nPRESS grey\nSCHEDULE 2d\nREMINDERS none\n", seats)
        started = await mail.send(f"START grey1\nPASSWORD {gm}\n")
        assert "STARTED grey1" in started, started
        anonymous = await mail.send(f"PRESS grey1 TO ALL ANON\nPASSWORD {secrets['Ben']}\nWho leads?\n",
                                    sender=address("Ben"))  # fmt: skip
        assert "anonymous" in anonymous.lower(), anonymous
        await eventually(lambda: bool(mail.to(address("Ann"), "Who leads?")))
        (copy,) = mail.to(address("Ann"), "Who leads?")
        assert "Ben" not in copy, copy
        code = next(word.strip("[]") for word in copy.split() if len(word.strip("[]")) == 4 and word.isupper())
        muted = await mail.send(f"PRESS grey1 MUTE {code}\nPASSWORD {secrets['Ann']}\n", sender=address("Ann"))
        assert "MUTE" in muted.upper() and "Ben" not in muted, muted
        signed = await mail.send(f"PRESS grey1 TO ALL\nPASSWORD {secrets['Ben']}\nSigned: Ben here.\n",
                                 sender=address("Ben"))  # fmt: skip
        assert "not delivered" not in signed.lower() and "Ann" in signed, signed
        await eventually(lambda: bool(mail.to(address("Ann"), "Signed: Ben here.")))
        await eventually(lambda: bool(mail.to(address("Cat"), "Signed: Ben here.")))
        (cats,) = mail.to(address("Cat"), "Signed: Ben here.")
        assert "Ann" in cats, cats

        # -- an invite-only game's seat is not an outsider's -------------------------------------
        gm2, secrets2 = await _game(
            mail, "inv1",
            f"SEATS 2\nINVITE {address('Ann')} {address('Ben')}\nSUBSTITUTE AUTO yes\nSCHEDULE 2d\nREMINDERS none\n",
            ("Ann", "Ben"),
        )  # fmt: skip
        assert "STARTED inv1" in await mail.send(f"START inv1\nPASSWORD {gm2}\n")
        refused = await mail.send("JOIN inv1 AS Mal\n", sender=OUTSIDER)
        assert "JOINED" not in refused, refused
        offered = await mail.send(f"SUBSTITUTE inv1 Ben\nREASON away\nPASSWORD {gm2}\n")
        assert "Ben" in offered, offered
        taken = await mail.send("STAND IN inv1 Ben\n", sender=OUTSIDER)
        assert "Your seat password" not in taken and "TOOK" not in taken.upper().split("STAND IN")[0], taken
        assert not mail.to(OUTSIDER, "Your seat password"), "the outsider got the seat's password"
        still = await mail.send(f"STATUS inv1\nPASSWORD {secrets2['Ben']}\n", sender=address("Ben"))
        assert "inv1" in still

        # -- a revealed seed is never played again -------------------------------------------
        ended = await mail.send(f"END grey1\nREASON enough\nPASSWORD {gm}\n")
        assert "ENDED" in ended.upper(), ended
        rolled = await mail.send(f"ROLLBACK grey1 TO 0\nREASON again\nPASSWORD {gm}\n")
        assert "ROLLED BACK" not in rolled and "seed" in rolled.lower(), rolled
