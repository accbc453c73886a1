"""Near-valid text: real order lines of a game, then mutated the way people and mail clients do.

A game's grammar (:mod:`.grammar`) gives lines as lists of tokens (its keywords,
card numbers, slot and seat names, separators).  :func:`near_valid` picks a few
of them and applies mutations: tokens swapped, dropped, doubled or replaced by
another keyword of the game; numbers made odd ('²', '٣', '１２', huge, negative,
3.5); case changed; punctuation and odd spaces inserted; tokens glued together
or split; lines broken with every line separator ``str.splitlines`` knows, with
empty lines around.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

Line = list[str]

ODD_NUMBERS = (
    "\u00b2",  # '²': isdigit() but not isdecimal()
    "\u0663",  # '٣' Arabic-Indic three: isdecimal(), int() reads 3
    "\uff11\uff12",  # '１２' full-width
    "\u2074",  # '⁴'
    "\u00bd",  # '½'
    "\u216b",  # 'Ⅻ'
    "\u0661\u0660",  # '١٠'
    "\U0001d7d9",  # mathematical double-struck 1
    "3.5",
    "-1",
    "-0",
    "00",
    "007",
    "1e3",
    "0x10",
    "99999999999999999999999999",
    "9" * 60,
    str(2**63),
    "9" * 5000,  # past int()'s 4300-digit limit
    "\u0663" * 4400,
)
PUNCTUATION = (
    ",", ";", ":", "=", "/", "-", ".", "!", "?", "(", ")", "->", "\u2192", "\u2013", "#", "+", "'", '"', "*",
    "\u2026", "<", ">", "<=", ">=", "&", "|", "[", "]",
)  # fmt: skip
SPACES = (" ", " ", " ", "  ", "\t", "\u00a0", "\u2003", "", " , ", "\u200b")
LINE_BREAKS = ("\n", "\n", "\r\n", "\n\n", "\r", "\u2028", "\x0c", "\x85", "\n \n")
_NUMBER = re.compile(r"^-?[0-9]{1,30}$")


def _case(word: str, rnd: random.Random) -> str:
    how = rnd.randrange(4)
    if how == 0:
        return word.upper()
    if how == 1:
        return word.title()
    if how == 2:
        return "".join(c.upper() if rnd.random() < 0.5 else c for c in word)
    return word.lower()


def _mutate_line(tokens: Line, vocab: Sequence[str], rnd: random.Random) -> Line:
    tokens = list(tokens)
    for _ in range(rnd.choice((0, 0, 1, 1, 1, 2, 3, 5))):
        if not tokens:
            tokens.append(rnd.choice(vocab))
            continue
        i = rnd.randrange(len(tokens))
        op = rnd.randrange(12)
        if op == 0 and len(tokens) > 1:  # swap two tokens
            j = rnd.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == 1:  # a missing part
            del tokens[i]
        elif op == 2:  # a part twice
            tokens.insert(i, tokens[i])
        elif op == 3:  # another keyword of the game
            tokens[i] = rnd.choice(vocab)
        elif op == 4:  # an extra keyword
            tokens.insert(i, rnd.choice(vocab))
        elif op == 5:  # an odd number, where a number was or anywhere
            numbers = [k for k, t in enumerate(tokens) if _NUMBER.match(t)]
            k = rnd.choice(numbers) if numbers and rnd.random() < 0.8 else i
            tokens[k] = rnd.choice(ODD_NUMBERS)
        elif op == 6:  # a number just out of range
            numbers = [k for k, t in enumerate(tokens) if _NUMBER.match(t)]
            if numbers:
                k = rnd.choice(numbers)
                tokens[k] = str(int(tokens[k]) + rnd.choice((-100, -13, -2, -1, 1, 2, 13, 100)))
        elif op == 7:  # punctuation
            tokens.insert(i, rnd.choice(PUNCTUATION))
        elif op == 8 and i + 1 < len(tokens):  # glued together
            tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
        elif op == 9 and len(tokens[i]) > 1:  # split apart
            cut = rnd.randrange(1, len(tokens[i]))
            tokens[i : i + 1] = [tokens[i][:cut], tokens[i][cut:]]
        elif op == 10:  # case
            tokens[i] = _case(tokens[i], rnd)
        else:  # trailing punctuation on a token
            tokens[i] += rnd.choice(PUNCTUATION)
    return tokens


def _join(tokens: Line, rnd: random.Random) -> str:
    plain = rnd.random() < 0.7
    text = " ".join(tokens) if plain else "".join(t + rnd.choice(SPACES) for t in tokens).rstrip(" ")
    if rnd.random() < 0.3:
        text = _case(text, rnd)
    if rnd.random() < 0.1:
        text = rnd.choice(SPACES) + text + rnd.choice(SPACES)
    return text


def near_valid(lines: Sequence[Line], vocab: Sequence[str], rnd: random.Random) -> str:
    """One to four of ``lines`` (a game's real order lines), mutated, joined as a message."""
    picked = [rnd.choice(lines) for _ in range(rnd.choice((1, 1, 1, 1, 2, 2, 3, 4)))]
    if rnd.random() < 0.15:  # everything on one line
        out = [_join([t for line in picked for t in [*_mutate_line(line, vocab, rnd), ";"]], rnd)]
    else:
        out = [_join(_mutate_line(line, vocab, rnd), rnd) for line in picked]
    if rnd.random() < 0.2:
        out.insert(rnd.randrange(len(out) + 1), "")
    if rnd.random() < 0.05:
        out = [""] * rnd.randint(1, 3)
    return rnd.choice(LINE_BREAKS).join(out) if rnd.random() < 0.8 else "\n".join(out)
