"""The toy English → Italian pairs of the `fitsub.hf` tests (their tiny models: `factories`)."""

from __future__ import annotations

import random

DICT = {
    "the": "il", "a": "una", "small": "piccola", "big": "grande", "boat": "barca",
    "boats": "barche", "house": "casa", "dog": "cane", "cat": "gatto", "river": "fiume",
    "city": "citta", "bored": "annoiato", "sailor": "marinaio", "walks": "cammina",
    "sees": "vede", "very": "molto", "old": "vecchio", "new": "nuovo", "was": "ero",
}  # fmt: skip
EN = list(DICT)


def toy_lines(n: int = 400, seed: int = 0) -> list[tuple[str, str]]:
    """n (english, italian) pairs: random words, translated word by word."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(EN, k=rng.randint(2, 8))
        out.append((" ".join(words), " ".join(DICT[w] for w in words)))
    return out
