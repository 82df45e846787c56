"""The target language of a Hugging Face model (`--lang`): a forced first target token for
M2M-100 / NLLB / mBART-50 (`__it__`, `ita_Latn`, `it_IT`), a source prefix for multilingual
Marian (`>>ita<<`) and T5-style models (`<2it>`); a bilingual model needs none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fitsub.errors import InputError
from fitsub.hf.constraints import LANG_TOKEN

ISO3 = {
    "it": "ita", "de": "deu", "fr": "fra", "es": "spa", "en": "eng", "pt": "por", "nl": "nld",
    "ro": "ron", "ru": "rus", "pl": "pol", "tr": "tur", "sv": "swe", "cs": "ces", "el": "ell",
    "zh": "zho", "ja": "jpn", "ko": "kor", "ar": "ara", "uk": "ukr", "ca": "cat", "da": "dan",
    "fi": "fin", "hu": "hun", "no": "nor",
}  # fmt: skip
NLLB = {
    "it": "ita_Latn", "de": "deu_Latn", "fr": "fra_Latn", "es": "spa_Latn", "en": "eng_Latn",
    "pt": "por_Latn", "nl": "nld_Latn", "ro": "ron_Latn", "ru": "rus_Cyrl", "pl": "pol_Latn",
    "tr": "tur_Latn", "sv": "swe_Latn", "cs": "ces_Latn", "el": "ell_Grek", "zh": "zho_Hans",
    "ja": "jpn_Jpan", "ko": "kor_Hang", "ar": "arb_Arab", "uk": "ukr_Cyrl", "ca": "cat_Latn",
    "da": "dan_Latn", "fi": "fin_Latn", "hu": "hun_Latn", "no": "nob_Latn",
}  # fmt: skip
MBART50 = {
    "it": "it_IT", "de": "de_DE", "fr": "fr_XX", "es": "es_XX", "en": "en_XX", "pt": "pt_XX",
    "nl": "nl_XX", "ro": "ro_RO", "ru": "ru_RU", "pl": "pl_PL", "tr": "tr_TR", "sv": "sv_SE",
    "cs": "cs_CZ", "zh": "zh_CN", "ja": "ja_XX", "ko": "ko_KR", "ar": "ar_AR", "uk": "uk_UA",
    "fi": "fi_FI",
}  # fmt: skip
FORCED_BOS_TYPES = ("m2m_100", "mbart", "nllb_moe", "nllb")


@dataclass(frozen=True)
class Language:
    """How the target language reaches the model."""

    forced_bos: int | None = None  # first target token (M2M-100, NLLB, mBART-50)
    prefix: str | None = None  # source prefix (multilingual Marian, T5-style)
    code: str | None = None  # the model's name for the language


def _token_id(tok: Any, token: str) -> int | None:
    try:
        i = tok.convert_tokens_to_ids(token)
    except (KeyError, ValueError, TypeError):
        return None
    if not isinstance(i, int) or i < 0 or i == tok.unk_token_id:
        return None
    back = tok.convert_ids_to_tokens(i)
    return i if back == token else None


def _codes(lang: str) -> list[str]:
    """The target-token spellings to try for `lang` (also accepts a model code as it is)."""
    base = lang.split("_")[0].split("-")[0].lower()
    three = ISO3.get(base, base)
    out = [lang, NLLB.get(base, ""), MBART50.get(base, ""), f"__{base}__", f"__{three}__"]
    # only language-token spellings: "it" may well be an ordinary piece of the vocabulary
    return [c for c in dict.fromkeys(out) if c and LANG_TOKEN.match(c)]


def target_language(tok: Any, config: Any, lang: str, src_lang: str, model: str) -> Language:
    """Map `--lang` / `--src-lang` to the model's language tokens; unknown: InputError."""
    kind = getattr(config, "model_type", "")
    if kind in FORCED_BOS_TYPES:
        tgt = next(((c, i) for c in _codes(lang) if (i := _token_id(tok, c)) is not None), None)
        if tgt is None:
            raise InputError(model, f"the model does not know the target language {lang!r}")
        src = next((c for c in _codes(src_lang) if _token_id(tok, c) is not None), None)
        if src is None:
            raise InputError(model, f"the model does not know the source language {src_lang!r}")
        if hasattr(tok, "src_lang"):
            code = src[2:-2] if src.startswith("__") else src
            tok.src_lang = code
        return Language(forced_bos=tgt[1], code=tgt[0])
    base = lang.split("_")[0].split("-")[0].lower()
    three = ISO3.get(base, base)
    vocab = tok.get_vocab()
    for cand in (f">>{three}<<", f">>{base}<<", f">>{lang}<<", f"<2{base}>", f"<2{lang}>"):
        if cand in vocab:
            return Language(prefix=cand, code=cand)
    known = [t for t in vocab if LANG_TOKEN.match(t) and (t.startswith(">>") or t.startswith("<2"))]
    if known:
        raise InputError(
            model,
            f"the model does not know the target language {lang!r} "
            f"(it has {len(known)} language tokens such as {known[0]})",
        )
    declared = getattr(tok, "target_lang", None)
    if isinstance(declared, str) and declared and declared.lower() not in (base, three, lang):
        raise InputError(model, f"the model translates into {declared!r}, not {lang!r}")
    return Language()


def source_text(text: str, lang: Language, length_token: str | None) -> str:
    """The text given to the tokenizer: language prefix, length token, source."""
    return " ".join(p for p in (lang.prefix, length_token, text) if p)
