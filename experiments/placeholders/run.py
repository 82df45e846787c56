"""Which glossary placeholder does a model copy exactly? (the table in fitsub/glossary.py)

For each placeholder family (``[1]``, ``QZ1``, ``1001``…) the script puts placeholders into
44 template sentences (8 with two terms) and into the sample sentences with their last word
replaced, translates them at a 1.0× and a 1.2× hard budget and unconstrained (beam 5), and
counts the outputs holding every placeholder exactly once (first candidate; and any of the
five best). Usage:

    OMP_NUM_THREADS=1 .venv/bin/python experiments/placeholders/run.py [--model models/en-it]
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

from fitsub.backend import Candidate, Request
from fitsub.formats import read_document
from fitsub.markup import protect
from fitsub.nmt.backend import NMTBackend
from fitsub.units import char_length

ROOT = Path(__file__).resolve().parents[2]
ONE = [
    "I met {0} yesterday.", "{0} is my best friend.", "We went to {0} with my sister.",
    "The book by {0} is on the table.", "Please ask {0} for help.", "My name is {0},",
    "Thank you, {0}.", "{0} was built in 1652.", "Look closely at {0}.",
    "They are fishing boats from {0}.", "The painter {0} was only nineteen",
    "Have you seen {0} today?", "I think {0} is on the table.", "Last year I went to {0}",
    "and we ate a lot of pizza in {0}.", "This palace belongs to {0}.",
    "The garden was designed by {0}", "Call {0} tomorrow morning.", "Where is {0}?",
    "{0} and I are very tired.", "The next room belongs to {0}.",
    "{0} holds more than 3,000 books.", "Please do not touch {0}.",
    "Is it true that {0} has a secret door?", "Behind this shelf there is {0}.",
    "{0} rings every hour.", "Our tour ends at {0}.", "The shop of {0} is on your left.",
    "Thank you for listening to {0},", "Can we take pictures of {0}?",
    "In spring {0} is full of roses.", "The children of {0} played here.",
    "She works for {0} in the city.", "I will show you {0} today.", "Good morning, {0}.",
    "{0} says hello.",
]  # fmt: skip
TWO = [
    "{0} and {1} are my friends.", "I went from {0} to {1} by train.", "{0} told {1} the truth.",
    "The shop of {0} is next to {1}.", "Tell {0} that {1} is here.",
    "We visited {0} and then {1}.", "{0} lives near {1}.", "Is {0} older than {1}?",
]  # fmt: skip
FAMILIES: dict[str, Callable[[int], str]] = {
    "[k]": lambda k: f"[{k}]",
    "QZk": lambda k: f"QZ{k}",
    "Qk": lambda k: f"Q{k}",
    "100k": lambda k: f"100{k}",
    "NEk": lambda k: f"NE{k}",
    "Xk": lambda k: f"X{k}",
    "XXk": lambda k: f"XX{k}",
    "Zk": lambda k: f"Z{k}",
    "Kk": lambda k: f"K{k}",
}


def sample_templates() -> list[str]:
    """Sample sentences of three words or more with their last word made a slot."""
    out = []
    for name in ("talk.srt", "lecture.srt", "talk.vtt"):
        doc = read_document(ROOT / "samples" / name)
        for seg in doc.segments:
            plain = protect(seg.text, doc.format).plain
            for sentence in plain.split("? ") if plain else []:
                m = re.match(r"^(.*\s)(\w+)([.,!?]?)$", sentence)
                if m and len(sentence.split()) >= 3:
                    out.append(m.group(1).replace("{", "").replace("}", "") + "{0}" + m.group(3))
    return out


def copied(text: str, placeholders: list[str]) -> bool:
    """Whether every placeholder is in `text` exactly once, as a token of its own."""
    return all(
        len(re.findall(r"(?<![\w#\[])" + re.escape(p) + r"(?![\w\]])", text)) == 1
        for p in placeholders
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "en-it")
    args = parser.parse_args()
    backend = NMTBackend(args.model, device="cpu", beam=5, threads=1)
    templates = ONE + sample_templates()

    def budget(ratio: float | None) -> Callable[[str], Request]:
        def make(s: str) -> Request:
            if ratio is None:
                return Request(s)
            n = int(ratio * char_length(s))
            return Request(s, n, n)

        return make

    print(f"{len(templates) + len(TWO)} sentences ({len(TWO)} with two placeholders)")
    print("family   1.0x  any5   1.2x  any5   free  any5")
    for name, make in FAMILIES.items():
        texts = [t.format(make(1)) for t in templates] + [t.format(make(1), make(2)) for t in TWO]
        wanted = [[make(1)]] * len(templates) + [[make(1), make(2)]] * len(TWO)
        row = []
        for ratio in (1.0, 1.2, None):
            outs: list[list[Candidate]] = backend.translate(
                [budget(ratio)(t) for t in texts], n_best=5
            )
            row.append(sum(copied(o[0].text, w) for o, w in zip(outs, wanted, strict=True)))
            row.append(
                sum(any(copied(c.text, w) for c in o) for o, w in zip(outs, wanted, strict=True))
            )
        print(f"{name:7s}" + "".join(f"{n:6d}" for n in row), flush=True)


if __name__ == "__main__":
    main()
