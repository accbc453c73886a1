"""A mistyped CREATE's reasons and a player command's usage said in the reader's language: each reason is
a pattern carried with its values (adjudicator.words.say), so a French GM reads the refused settings in
French and a French player reads "JOIN <game> ou JOIN <game> AS <name>", the command words as written."""

from __future__ import annotations

from bot.core.basics.engine_words import kept, said_text
from bot.core.basics.translation import speaking
from bot.core.model import commands as c
from bot.email.mail_reading import read_commands
from tests.core.harness import Harness

BAD_CREATE = "CREATE g1 golden-strider\nSEATS many\nOBSERVERS maybe\nPRESS loud\nAUTH keys\nOPTION x\nGAP 12h\n"
"""Five refused settings and one understood."""


def _refused(body: str) -> c.NotUnderstood:
    [command] = [command for command in read_commands("x", body).commands if isinstance(command, c.NotUnderstood)]
    return command


def test_a_refused_creates_reasons_are_english_as_before_and_french_and_german_when_spoken():
    reason = _refused(BAD_CREATE).reason
    assert reason == (
        "SEATS needs a number, not 'many'; OBSERVERS is yes or no, not 'maybe'; PRESS is none, white or grey, "
        "not 'loud'; AUTH is password or address, not 'keys'; OPTION needs name=value, not 'x'. Understood: "
        "CREATE g1 golden-strider with GAP 12h; nothing was created"
    )
    form = kept(reason)
    assert isinstance(form, dict), "the reason keeps its pattern through storage"
    with speaking("fr"):
        french = said_text(form)
    with speaking("de"):
        german = said_text(form)
    assert french == (
        "SEATS demande un nombre, pas 'many'; OBSERVERS vaut yes ou no, pas 'maybe'; PRESS vaut none, white "
        "ou grey, pas 'loud'; AUTH vaut password ou address, pas 'keys'; OPTION demande nom=valeur, pas 'x'. "
        "Compris : CREATE g1 golden-strider avec GAP 12h ; rien n'a été créé"
    ), french
    assert "braucht eine Zahl" in german and "nichts wurde erstellt" in german, german
    for english in ("needs", " is ", " or ", "Understood", "nothing"):
        assert english not in french and english not in german, english


def test_the_other_refusals_of_a_gm_command_are_said_in_the_language():
    for body, french_words in (
        ("CREATE g1 golden-strider\nSEATS\n", "SEATS demande une valeur"),
        ("CREATE g1 golden-strider\nSUBSTITUTE AFTER soon\n", "demande un nombre de tours manqués"),
        ("CREATE g1 golden-strider\nLANGUAGE klingon\n", "rien n'a été créé"),
        ("BROADCAST g1\n", "aucun message ne suit"),
    ):
        reason = _refused(body).reason
        with speaking("fr"):
            french = said_text(kept(reason))
        assert french_words in french and "nothing" not in french, (body, french)


def test_a_player_commands_usage_keeps_the_command_words_and_says_or_in_the_language():
    reasons = {command.line: command.reason for command in read_commands("x", "JOIN\nRECORD\nLIST now\n").commands
               if isinstance(command, c.NotUnderstood)}  # fmt: skip
    assert reasons["JOIN"] == "write it as JOIN <game> or JOIN <game> AS <name>"
    with speaking("fr"):
        assert said_text(kept(reasons["JOIN"])) == "écrivez-la ainsi : JOIN <game> ou JOIN <game> AS <name>"
        assert "RECORD ME (votre bilan de joueur)" in said_text(kept(reasons["RECORD"]))
    with speaking("de"):
        assert said_text(kept(reasons["JOIN"])).endswith("JOIN <game> oder JOIN <game> AS <name>")


def test_a_french_gms_reply_to_a_refused_create_is_french(sessions):
    h = Harness(sessions)
    h.send("GM", c.SetLanguage("fr"))
    reply = h.send("GM", _refused(BAD_CREATE)).reply
    assert reply is not None
    assert "SEATS demande un nombre, pas 'many'" in reply and "rien n'a été créé" in reply, reply
    assert "needs a number" not in reply and "nothing was created" not in reply, reply


def test_a_french_gms_option_and_co_gm_replies_are_french_and_the_english_says_the_same(sessions):
    h = Harness(sessions)
    h.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
    english = h.send("GM", c.SetOption("gs1", "race_length", "40", "shorter")).reply
    assert english is not None and "race_length was " in english and "; it is now 40." in english, english
    h.send("GM", c.SetLanguage("fr"))
    option = h.send("GM", c.SetOption("gs1", "race_length", "30", "shorter")).reply
    assert option is not None and "race_length valait 40 ; il vaut désormais 30." in option, option
    added = h.send("GM", c.AddGameMaster("gs1", "email", "cora@example.org", "helps out")).reply
    assert added is not None and "cora@example.org est co-maître du jeu de gs1." in added, added
    assert " is a co-GM" not in added and " was " not in option


def test_a_french_players_list_status_and_turn_replies_say_no_english_word(sessions):
    """The game's status (``running``), the LIST's seats and the TURN RESOLVED heading in French."""
    from tests.core.harness import SEATS

    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    h.golden_strider_game(early=True)
    listed = h.send("Ann", c.ListGames()).reply
    assert listed is not None and "en cours" in listed and "6/6 sièges" in listed, listed
    assert "running" not in listed and " seats" not in listed, listed
    for name in SEATS[1:]:
        h.send(name, c.SubmitOrders("gs1", "cards 10 8 6 4 2"))
    resolved = h.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert resolved is not None and "TOUR RÉSOLU" in resolved and "TURN RESOLVED" not in resolved, resolved
    english = h.send("Ben", c.ShowStatus("gs1")).reply
    assert english is not None and "(Golden Strider): running" in english, english
    status = h.send("Ann", c.ShowStatus("gs1")).reply
    assert status is not None and "(Golden Strider) : en cours" in status, status


def test_a_french_players_orders_without_the_password_are_refused_in_french(sessions):
    h = Harness(sessions)
    h.send("Ann", c.SetLanguage("fr"))
    h.golden_strider_game()
    refused = h.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), trust=c.Trust.CLAIMED).reply
    assert refused is not None and "il faut le mot de passe de votre siège pour gs1" in refused, refused
    assert "PASSWORD <password>" in refused and "needs your seat password" not in refused, refused


def test_standby_and_a_gms_refused_process_are_french(sessions):
    h = Harness(sessions)
    for who in ("Ann", "GM"):
        h.send(who, c.SetLanguage("fr"))
    on = h.send("Ann", c.SetStandby("golden-strider")).reply or ""
    assert "On vous proposera chaque siège d'une partie de golden-strider" in on, on
    assert "STAND IN <game> <seat> en prend une." in on and "You will be offered" not in on, on
    again = h.send("Ann", c.SetStandby("golden-strider")).reply or ""
    assert "(vous étiez déjà sur cette liste)" in again, again
    off = h.send("Ann", c.SetStandby("golden-strider", on=False)).reply or ""
    assert "Plus d'offres de sièges de golden-strider." in off and "No more offers" not in off, off
    h.golden_strider_game()
    refused = h.send("GM", c.ProcessNow("gs1", 3, "now")).reply or ""
    assert "le tour 3 de gs1 n'est pas ouvert (le tour 0 l'est)" in refused, refused


def test_a_french_gms_seat_offer_and_rollback_replies_are_french(sessions):
    h = Harness(sessions)
    h.send("GM", c.SetLanguage("fr"))
    h.golden_strider_game()
    offered = h.send("GM", c.OfferSeat("gs1", "Fay", reason="Fay left")).reply or ""
    assert "Le siège Fay cherche un remplaçant : 0 joueur de la liste d'attente" in offered, offered
    assert "ACCEPT (ou DECLINE). WITHDRAW retire l'offre." in offered and "takes the offer" not in offered, offered
    h.setup_all()
    h.pass_deadline()
    rolled = h.send("GM", c.RollBack("gs1", 0, "a mistake")).reply or ""
    assert "RETOUR EN ARRIÈRE gs1 au début du tour 0" in rolled and "ROLLED BACK" not in rolled, rolled
