"""Test doubles for the pipeline's backend interface (tests only: the CLI never uses these)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from fitsub.backend import Candidate, Request
from fitsub.units import char_length

# A toy "Italian": each English word maps to a longer word, as Italian tends to run longer.
LEXICON = {
    "i": "io",
    "you": "voi",
    "we": "noi",
    "the": "il",
    "a": "un",
    "is": "è",
    "are": "sono",
    "and": "e",
    "to": "verso",
    "of": "della",
    "in": "dentro",
    "it": "esso",
    "this": "questo",
    "that": "quello",
    "not": "non",
    "no": "no",
    "yes": "sì",
    "go": "andiamo",
    "home": "casa",
    "now": "adesso",
}


def toy_translate(text: str) -> str:
    """Word by word through LEXICON; unknown words get an Italian-looking ending."""
    out = []
    for word in text.split():
        core = word.rstrip(".,!?;:")
        tail = word[len(core) :]
        lower = core.lower()
        new = LEXICON.get(lower, lower + "ino" if lower else lower)
        if core[:1].isupper():
            new = new[:1].upper() + new[1:]
        out.append(new + tail)
    return " ".join(out)


class ToyBackend:
    """Translates with `toy_translate`; under a hard budget it drops words from the end."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "toy"

    def __init__(self) -> None:
        self.calls: list[Request] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """One candidate per request."""
        out: list[list[Candidate]] = []
        for req in requests:
            self.calls.append(req)
            words = toy_translate(req.text).split()
            fits = True
            if req.max_chars is not None:
                while len(words) > 1 and char_length(" ".join(words)) > req.max_chars:
                    words.pop()
                fits = char_length(" ".join(words)) <= req.max_chars
            out.append([Candidate(" ".join(words), score=-float(len(words)), fits=fits)])
        return out


class NBestToyBackend(ToyBackend):
    """`ToyBackend` with an n-best: the toy translation, the same with a doubled space (a
    duplicate once spaces are normalised), without its last word, with "Ecco," before it and
    without its first word, scored in that order (best first). Under a hard budget only the
    candidates that fit are returned, else the shortest, marked as not fitting."""

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """Up to `n_best` candidates per request (see the class docstring)."""
        out: list[list[Candidate]] = []
        for req in requests:
            self.calls.append(req)
            words = toy_translate(req.text).split()
            texts = [" ".join(words), "  ".join(words)]
            if len(words) > 1:
                texts += [" ".join(words[:-1]), "Ecco, " + " ".join(words), " ".join(words[1:])]
            cands = [Candidate(t, score=-float(len(words) + k)) for k, t in enumerate(texts)]
            if req.max_chars is not None:
                fitting = [c for c in cands if char_length(c.text) <= req.max_chars]
                shortest = min(cands, key=lambda c: char_length(c.text))
                cands = fitting or [Candidate(shortest.text, shortest.score, fits=False)]
            out.append(cands[:n_best])
        return out


_PLACEHOLDER = re.compile(r"\[\d+\][.,!?;:]*")


def copy_placeholders(text: str) -> str:
    """The toy language, except that placeholders are copied (as the shipped model does)."""
    return " ".join(w if _PLACEHOLDER.fullmatch(w) else toy_translate(w) for w in text.split())


class CopyingToy(ToyBackend):
    """`ToyBackend` that copies glossary placeholders; `drop` makes its best candidate lose
    them (the second candidate keeps them)."""

    def __init__(self, drop: bool = False) -> None:
        super().__init__()
        self.drop = drop

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        out = []
        for req in requests:
            self.calls.append(req)
            words = copy_placeholders(req.text).split()
            if req.max_chars is not None:
                while len(words) > 1 and char_length(" ".join(words)) > req.max_chars:
                    words.pop()
            keep = " ".join(words)
            lose = " ".join(w for w in words if not _PLACEHOLDER.fullmatch(w))
            cands = [Candidate(lose, -1.0), Candidate(keep, -2.0)] if self.drop else []
            cands = cands or [Candidate(keep, -1.0)]
            out.append(cands[:n_best])
        return out
