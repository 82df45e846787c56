"""Short East Asian legacy files: one plausible reading, or a refusal naming `--encoding`.

EUC-JP, GB2312 (GB18030's common part) and EUC-KR (cp949's) are built the same way (two bytes
of 0xA1-0xFE for a character), and Shift-JIS, GBK and cp949's extension overlap again, so a
file of two short lines decodes without error in several of them, each reading a different
text; charset-normalizer has no evidence to choose on so little ("今日は雨です。" in EUC-JP came
out as Korean). Each candidate reading is kept only when it looks like text of its language:

* Japanese and Chinese: no Hangul, no ASCII space between two ideographs (Korean read as
  either); cp932 no half-width katakana or private-use characters (an EUC file read as cp932);
  Japanese with `KANJI_WITHOUT_KANA` ideographs has kana (its particles: a Chinese line read as
  EUC-JP has none); big5 no kana, and a second byte in 0x40-0x7E somewhere (EUC bytes never have one); GB2312
  holds kana as EUC-JP does, so kana decide nothing between them;
* Korean (cp949 within EUC-KR): no kana, no lone jamo (ㅃㆃ: Japanese kana bytes read as
  Korean), none of the CJK full stops and commas Korean does not use (，。、？！).

One plausible text (two encodings may read the same one: EUC-JP and GB2312 both hold kana) is
the reading; several, or none, and a short file (under `SHORT` non-ASCII bytes) is an
`InputError` that names the readings and `--encoding`; a longer file keeps charset-normalizer's
guess when it is one of them or none fits.
"""

from __future__ import annotations

import re
from pathlib import Path

from fitsub.errors import InputError

SHORT = 100  # fewer non-ASCII bytes (about 50 characters): charset-normalizer's guess is no
# evidence (2 lines of EUC-JP read as Korean; from about 70 bytes on it read them right)
# the encodings charset-normalizer may guess for East Asian text, by the family they read
FAMILY = {
    "cp932": "cp932",
    "shift_jis": "cp932",
    "shift_jis_2004": "cp932",
    "shift_jisx0213": "cp932",
    "euc_jp": "euc_jp",
    "euc_jis_2004": "euc_jp",
    "euc_jisx0213": "euc_jp",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "gb18030": "gb18030",
    "hz": "gb18030",
    "big5": "big5",
    "big5hkscs": "big5",
    "cp950": "big5",
    "cp949": "cp949",
    "euc_kr": "cp949",
    "johab": "cp949",
}
LANGUAGE = {
    "cp932": "Japanese",
    "euc_jp": "Japanese",
    "gb18030": "Chinese",
    "big5": "Chinese",
    "cp949": "Korean",
}
KANJI_WITHOUT_KANA = 4  # this many ideographs and no kana: not Japanese ("寄社壼貧挫" is GB2312)
_IDEOGRAPH = re.compile(r"[\u4e00-\u9fff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
_JAMO = re.compile(r"[\u3130-\u318f]")
_HALF_KANA_OR_PUA = re.compile(r"[\uff61-\uff9f\ue000-\uf8ff]")
_SPACED_IDEOGRAPHS = re.compile(r"[\u4e00-\u9fff][!-/:-@]?[ \t]+[\u4e00-\u9fff]")
_CJK_PUNCTUATION = re.compile(r"[\uff0c\u3002\u3001\uff1f\uff01]")


def _big5_low_trail(data: bytes) -> bool:
    """Whether some Big5 character of `data` has its second byte in 0x40-0x7E."""
    i = 0
    while i < len(data) - 1:
        if data[i] >= 0x81:
            if 0x40 <= data[i + 1] <= 0x7E:
                return True
            i += 2
        else:
            i += 1
    return False


def _reading(data: bytes, family: str) -> str | None:
    """The text `data` reads as in `family` when it looks like text of that language."""
    strict = {"gb18030": "gb2312", "cp949": "euc_kr"}.get(family, family)
    try:
        text = data.decode(strict)
    except UnicodeDecodeError:
        return None
    if LANGUAGE[family] == "Korean":
        return (
            None
            if _KANA.search(text) or _JAMO.search(text) or _CJK_PUNCTUATION.search(text)
            else text
        )
    if _HANGUL.search(text) or _SPACED_IDEOGRAPHS.search(text):
        return None
    if family == "big5" and (_KANA.search(text) or not _big5_low_trail(data)):
        return None
    if LANGUAGE[family] == "Japanese" and not _KANA.search(text):
        if len(_IDEOGRAPH.findall(text)) >= KANJI_WITHOUT_KANA:
            return None  # Japanese sentences write their particles in kana
    return None if family == "cp932" and _HALF_KANA_OR_PUA.search(text) else text


def choose(data: bytes, guess: str, path: str | Path | None) -> str:
    """The encoding to read `data` with, given charset-normalizer's East Asian `guess`
    (module docstring); `InputError` when a short file reads as several texts."""
    readings: dict[str, str] = {}  # text -> the first family that reads it
    for family in LANGUAGE:
        text = _reading(data, family)
        if text is not None:
            readings.setdefault(text, family)
    short = sum(1 for b in data if b > 127) < SHORT
    if not readings and not short:
        return guess
    if len(readings) == 1:
        return next(iter(readings.values()))
    if not short and FAMILY.get(guess) in readings.values():
        return guess
    shown = "; ".join(
        f"{LANGUAGE[f]} in {f} ({_sample(t)!r})" for t, f in list(readings.items())[:3]
    )
    example = next(iter(readings.values()), "shift_jis")
    raise InputError(
        path,
        "cannot tell this file's encoding from so little text"
        + (f": it reads as {shown}" if shown else " (not UTF-8, and no reading looks like text)")
        + f"; name it with --encoding (e.g. --encoding {example})",
    )


def _sample(text: str) -> str:
    """The first few non-ASCII characters of `text`, to show a reading."""
    return "".join(ch for ch in text if ord(ch) > 127)[:8]
