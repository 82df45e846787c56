"""Options and checks several commands share: one definition each, the same flag and help."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from fitsub.errors import InputError

DEVICES = ("auto", "cpu", "cuda")
STRICT_EXIT = 3  # `translate --strict`: some segment carries a quality flag
LANG_HELP = (
    "Target language, e.g. it, de, fr, es (sets the CPL / lines / CPS defaults); required "
    "unless fitsub.toml names it or --model translates into one language only."
)
PROFILE_HELP = "Style profile: netflix-it, bbc, ted, dubbing… (`fitsub profiles` lists them)."
FORMAT_HELP = (
    "Input format: srt, vtt, ass, ssa, slides (.txt), md, pptx (default: from the extension; "
    "sniffed for '-')."
)
ENCODING_HELP = "Input encoding, e.g. cp1252 (default: detected; invalid UTF-8 is an error)."

Device = Annotated[str, typer.Option("--device", help="auto, cpu or cuda.")]
Beam = Annotated[int, typer.Option("--beam", min=1, max=1000, help="Beam size.")]
Threads = Annotated[
    int | None,
    typer.Option(
        "--threads",
        min=1,
        max=4096,
        help="CPU threads (default: the cores other programs leave free, followed as they change).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
# the data flags of `fitsub train` and `fitsub prepare` (what a prepared set fixes)
DataDir = Annotated[
    Path | None, typer.Option("--data", help="Directory of NAME.SRC / NAME.TGT pairs.")
]
CorpusSpec = Annotated[
    list[str],
    typer.Option("--corpus", help="Use only this stem of --data, NAME[:WEIGHT] (repeatable)."),
]
TrainPrefix = Annotated[
    list[str],
    typer.Option("--train", help="Training files PREFIX.SRC / PREFIX.TGT (repeatable)."),
]
DevPrefix = Annotated[
    str | None, typer.Option("--dev", help="Dev files PREFIX (default: hold out by source).")
]
DevSize = Annotated[
    int, typer.Option("--dev-size", min=1, help="Dev pairs held out when no --dev.")
]
SrcLang = Annotated[str, typer.Option("--src", help="Source language code (file suffix).")]
TgtLangs = Annotated[
    str,
    typer.Option(
        "--tgt",
        help="Target language code (file suffix); several, comma-separated (it,de,fr,es), train "
        "one multilingual model with a target-language tag ({tgt} in --data/--dev/--train paths "
        "stands for each; --corpus LANG/NAME scopes a corpus to one language).",
    ),
]
LengthUnitFlag = Annotated[str, typer.Option("--length-unit", help="char or subword.")]
VocabSize = Annotated[int, typer.Option("--vocab-size", help="SentencePiece vocabulary size.")]
Dedupe = Annotated[
    bool,
    typer.Option(
        "--dedupe/--no-dedupe",
        help="Drop repeated pairs and retranslations of a source that add no length variety.",
    ),
]
BudgetUnit = Annotated[
    str | None,
    typer.Option(
        "--unit",
        help="Budget unit: char, or syllables / seconds for dubbing (the speaking window; "
        "espeak-ng). Default: char; seconds with --profile dubbing.",
    ),
]
Isochrony = Annotated[
    str, typer.Option("--isochrony", help="Dubbing window: the source's speaking time, or the cue.")
]
SpeechRate = Annotated[
    float | None,
    typer.Option("--speech-rate", help="Syllables/s of --lang (default: Pellegrino et al. 2011)."),
]
RankBy = Annotated[
    str | None,
    typer.Option(
        "--rank-by",
        help="Dubbing: rank the n-best by speech (the default: espeak-ng's synthesized duration, "
        "within ±15 % of the source spoken; about 0.3 s a refitted line) or by the estimate "
        "(syllables, in 0.9-1.0 × the source's estimated time).",
    ),
]
SecondVoice = Annotated[
    str | None,
    typer.Option(
        "--voice",
        help="A second voice timed beside espeak-ng: festival (Italian only; apt-get install "
        "festival festvox-italp16k).",
    ),
]
TERMS = ("dictionary",)  # `translate --terms`: where forced terms come from
Terms = Annotated[
    str | None,
    typer.Option(
        "--terms",
        help="dictionary: force the shipped Wiktionary dictionary's first translation of nouns "
        "the plain translation left untranslated (it, de, fr; CC BY-SA: dictionaries/), each "
        "such line flagged dictionary-term. Often the wrong number, article or sense: read "
        "them (docs/results/dialogue.md). Default: off.",
    ),
]
Lang = Annotated[str | None, typer.Option("--lang", help=LANG_HELP)]
Profile = Annotated[str | None, typer.Option("--profile", help=PROFILE_HELP)]
Lines = Annotated[int | None, typer.Option("--lines", help="Lines per cue (default per language).")]
Cps = Annotated[float | None, typer.Option("--cps", help="Reading speed, characters per second.")]
InputFormat = Annotated[str | None, typer.Option("--format", help=FORMAT_HELP)]
Encoding = Annotated[str | None, typer.Option("--encoding", help=ENCODING_HELP)]
LengthPredictor = Annotated[
    Path | None,
    typer.Option(
        "--length-predictor",
        help="Length predictor directory (default: MODEL/length-predictor).",
    ),
]


def language_code(lang: str) -> str:
    """A language code as fitsub names models and limits: `IT` → `it`, `pt_BR` → `pt-br`."""
    code = lang.strip().lower().replace("_", "-")
    if not code:
        raise InputError(None, "must name a language, e.g. it", setting="lang")
    return code


def check_device(device: str) -> str:
    """`device` when it is auto, cpu or cuda; else an `InputError` about `--device`."""
    if device not in DEVICES:
        raise InputError(None, f"must be auto, cpu or cuda, got {device!r}", setting="device")
    return device


def check_share(setting: str, value: float) -> None:
    """An `InputError` about `setting` when `value` is not a number from 0 to 1."""
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InputError(None, f"must be from 0 to 1, got {value}", setting=setting)


def check_terms(terms: str | None) -> str | None:
    """`terms` when it is None or one of `TERMS`; else an `InputError` about `--terms`."""
    if terms is not None and terms not in TERMS:
        raise InputError(None, f"must be {' or '.join(TERMS)}, got {terms!r}", setting="terms")
    return terms


def split_list(values: list[str] | None) -> list[str]:
    """Repeated options and comma-separated values: `--ratio 1.0,0.9 --ratio 0.8`."""
    return [part.strip() for v in values or [] for part in v.split(",") if part.strip()]


def target_languages(tgt: str) -> list[str]:
    """`--tgt`'s languages: one, or several comma-separated (a multilingual model)."""
    targets = [t.strip() for t in tgt.split(",") if t.strip()]
    if not targets:
        raise InputError(None, "no target language", setting="tgt")
    return targets


def data_settings(
    *,
    data: Path | None,
    corpus: list[str],
    train_prefix: list[str],
    dev: str | None,
    dev_size: int,
    src: str,
    tgt: str,
    length_unit: str,
    vocab_size: int,
    dedupe: bool,
) -> dict[str, Any]:
    """The data flags of `fitsub train` and `fitsub prepare` as `TrainConfig.from_options` takes
    them (what a prepared set fixes)."""
    targets = target_languages(tgt)
    return {
        "src_lang": src,
        "tgt_lang": targets[0],
        "tgt_langs": targets if len(targets) > 1 else [],
        "data_dir": None if data is None else str(data),
        "corpora": list(corpus),
        "train_prefixes": list(train_prefix),
        "dev_prefix": dev,
        "dev_size": dev_size,
        "length_unit": length_unit,  # validated by TrainConfig.validate
        "vocab_size": vocab_size,
        "dedupe": dedupe,
    }
