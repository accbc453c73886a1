"""A board picture's caption and alt text in the language it is drawn in (``draw(kind, board, language)``:
the web page's, a mail's or DM's recipient's), English by default; the same board in English draws the
bytes it always did (the golden files of tests/pictures/test_pictures.py)."""

from __future__ import annotations

from bot.core.basics.translation import language
from bot.pictures import draw
from bot.pictures.svg import joined, ordinal
from tests.pictures.boards import NAMES, play


def _board(moment: str = "mid"):  # type: ignore[no-untyped-def]
    return play("golden-strider", NAMES[:6], {"steeplechase": True}).board(moment)


def test_golden_striders_caption_and_alt_text_in_french_and_german():
    board = _board()
    english, french, german = (draw("golden-strider", board, code) for code in (None, "fr", "de"))
    assert english is not None and french is not None and german is not None
    assert "Golden Strider steeplechase, after round" in english.svg and "runners on a" in english.alt
    assert "Golden Strider, steeple, après la manche" in french.svg
    assert "cases jusqu&#39;à l&#39;arrivée" in french.svg or "cases jusqu'à l'arrivée" in french.svg
    assert "coureurs sur une piste de" in french.alt and "runners" not in french.alt
    assert "1er " in french.alt and "1st" not in french.alt, french.alt
    assert "Golden Strider, Hindernislauf, nach Runde" in german.svg and "Läufer auf einer Bahn" in german.alt
    assert "1. " in german.alt, german.alt
    assert language() == "en"  # drawing in a language leaves the caller's as it was


def test_the_list_and_place_words_follow_the_language_being_spoken():
    from bot.core.basics.translation import speaking

    assert joined(["Ann", "Ben", "Cat"]) == "Ann, Ben and Cat" and ordinal(2) == "2nd"
    assert [ordinal(n) for n in (1, 11, 21, 22, 103)] == ["1st", "11th", "21st", "22nd", "103rd"]
    with speaking("fr"):
        assert joined(["Ann", "Ben"]) == "Ann et Ben" and ordinal(2) == "2e"
        assert [ordinal(n) for n in (1, 11, 21)] == ["1er", "11e", "21e"]  # French writes the first apart
    with speaking("de"):
        assert joined(["Ann", "Ben"]) == "Ann und Ben" and ordinal(2) == "2."
        assert [ordinal(n) for n in (1, 21)] == ["1.", "21."]


def test_a_mailed_and_a_dmed_picture_are_in_the_recipients_language():
    from datetime import UTC, datetime

    from bot.core.messaging.outbox import PendingMessage
    from bot.core.messaging.rendering import READER_LANGUAGE
    from bot.discord.board import board_picture
    from bot.email.render import BOARD_FILE, _attachments
    from bot.pictures import png

    board = _board()
    data = {"board_picture": True, "kind": "golden-strider", "board": board, READER_LANGUAGE: "de"}
    row = PendingMessage(1, "<a@b>", "email", "ann@example.org", "report", "report", data, {}, 0, datetime.now(UTC))
    [attached] = [a for a in _attachments(row) if a.filename == BOARD_FILE]
    german, english = draw("golden-strider", board, "de"), draw("golden-strider", board)
    assert german is not None and english is not None and png(german) != png(english)
    assert attached.data == png(german)
    dm = board_picture("report", {**data, "board_picture": None})
    assert dm is not None and "Läufer auf einer Bahn" in dm.alt, dm.alt


def test_the_other_kinds_pictures_in_french_and_german():
    from tests.pictures.boards import seat_counts

    for kind, french_words, german_words, english_words in (
        ("three-races", ("équipes dans trois courses", "Course à 25"), ("Teams in drei Rennen",), ("teams in three",)),
        ("strike-gold", ("grilles de 3 rangées", "face cachée"), ("Raster aus 3 Reihen", "verdeckt"), ("grids of",)),
        ("lautobus", ("coureurs de", "Équipe "), ("Fahrer von", "Gruppe 1"), ("riders of", "leads on space")),
        (
            "dragon-stripes",
            ("Le chevalier est", "Gemmes :"),
            ("Der Ritter ist", "Edelsteine:"),
            ("The knight", "Gems:"),
        ),
    ):
        board = play(kind, NAMES[: seat_counts(kind)[0]]).board("mid")
        french, german = draw(kind, board, "fr"), draw(kind, board, "de")
        assert french is not None and german is not None
        assert all(word in french.alt for word in french_words), french.alt
        assert all(word in german.alt for word in german_words), german.alt
        assert not any(word in french.alt + german.alt for word in english_words)


LEGEND_WORDS = {
    "golden-strider": (">finish<", " sq ", "barrier", "water jump", "costs 1 more"),
    "three-races": ("Race to", " sq ", "(finished)", "(stopped)"),
    "strike-gold": (">discard<", ">deck "),  # "total" is French too
    "lautobus": ("Teams (places", "a line joins"),
    "dragon-stripes": (">tail<", ">head<", ">hoard ", "knight:", " beside<", "danger cards", " of 3", "Players' gems"),
}
"""The English words each kind's board template draws besides its caption (the legend, the labels)."""


def test_no_english_legend_word_in_a_french_or_german_picture_of_each_kind():
    from tests.pictures.boards import seat_counts

    for kind, words in LEGEND_WORDS.items():
        options = {"steeplechase": True} if kind == "golden-strider" else None
        played = play(kind, NAMES[: seat_counts(kind)[-1]], options)
        for moment in ("mid", "end"):
            english = draw(kind, played.board(moment))
            assert english is not None
            assert any(word in english.svg for word in words), (kind, moment)  # the words are there to translate
            for code in ("fr", "de"):
                picture = draw(kind, played.board(moment), code)
                assert picture is not None
                left = [word for word in words if word in picture.svg]
                assert not left, (kind, moment, code, left)


def test_the_steeplechase_legend_names_the_letters_drawn_on_the_track():
    board = _board()
    french, german = draw("golden-strider", board, "fr"), draw("golden-strider", board, "de")
    assert french is not None and german is not None
    assert ">R</text>" in french.svg and "R rivière (coûte 2 de plus)" in french.svg
    assert ">H</text>" in german.svg and "H Hürde (kostet 1 mehr)" in german.svg
