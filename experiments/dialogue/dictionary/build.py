"""Convert Matthias Buchmeier's English-Wiktionary bilingual lists into one compact TSV per language.

Source: the open-dsl-dict "wiktionary-dict" repository (lists extracted from
https://en.wiktionary.org by Matthias Buchmeier, http://en.wiktionary.org/wiki/User:Matthias_Buchmeier,
version 20150102; CC BY-SA 3.0 Unported and GFDL). Italian, German and Spanish come from the plain
text lists `src/en-LL-enwiktionary.txt`, one sense a line:

    bee {n} /biː/ (insect) :: ape {f}, pecchia {f}
    hive {n} /haɪv/ (a box or basket ...) SEE: beehive ::

French has no plain text list in the mirror (the blob is missing), so it is read from the DSL
dictionary `dsl/oneway/en-fr-enwiktionary.dsl.dz` (gzip; UTF-16 with or without a BOM, detected)
and converted to the same lines first; `--check-dsl it` converts the Italian DSL the same way
and compares it with the Italian text list (the check of the converter).

Output (`--out DIR/en-LL.tsv[.gz]`, UTF-8, a header line, no quoting), one row per sense:

    en       the English headword as written (case kept: "Bill" is not "bill")
    pos      n, v, adj, adv, prop, ... (the list's part of speech)
    sense    1, 2, ... in the order of the list, Wiktionary's first sense first
    first    1 for Wiktionary's first sense of the headword (the one the list marks with the
             pronunciation; a redirect: the first sense of the headword it names), else 0;
             the German list has no pronunciations: a German sense is first when another
             list (it, fr, es) marks the same headword, part of speech and gloss first
    gloss    the English sense gloss ("insect"; a redirected sense: "box or basket ... > insect")
    targets  the translations, `|`-separated, cleaned: gender marks, (notes), [notes] and
             "label:" prefixes removed
    genders  the gender marks of `targets`, `|`-separated, parallel (m, f, n, m-p, ..., '' none)
    via      for a `SEE:` redirect, the headword it was resolved to (hive -> beehive), else ''

Redirects are resolved to every sense of the headword they name with the same part of speech
(any part of speech when it has none), chains followed up to 3 steps; a redirect that leads
nowhere is dropped.

    .venv/bin/python experiments/dialogue/dictionary/build.py --out build/dictionary
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from fitsub.quality.bilingual import COLUMNS

MIRROR = Path("/work/.mirror/open-dsl-dict+wiktionary-dict/repo")
LANGS = ("it", "de", "fr", "es")
HEADER = COLUMNS  # the columns fitsub reads (fitsub.quality.bilingual)
LINE = re.compile(
    r"^(?P<en>.+?) \{(?P<pos>[^}]+)\}(?: /(?P<ipa>[^/]*)/)?(?: \((?P<gloss>.*)\))?"
    r"(?: SEE: (?P<see>.*?))? ::(?: (?P<targets>.*))?$"
)


@dataclass
class Sense:
    en: str
    pos: str
    gloss: str
    primary: bool  # the list writes the pronunciation on Wiktionary's first sense
    targets: list[tuple[str, str]]  # (translation, gender mark)
    see: str = ""
    via: str = ""


def git_blob(mirror: Path, path: str) -> bytes:
    """A file of the bare mirror at HEAD."""
    return subprocess.run(
        ["git", "-C", str(mirror), "show", f"HEAD:{path}"], check=True, capture_output=True
    ).stdout


def decode_dsl(data: bytes) -> str:
    """DSL text: gzip (dictzip) of UTF-16 (BOM or not, LE or BE) or UTF-8."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16")
    if len(data) > 1 and data[1] == 0:
        return data.decode("utf-16-le")
    if data[0] == 0:
        return data.decode("utf-16-be")
    return data.decode("utf-8-sig")


def dsl_to_lines(text: str) -> list[str]:
    """The DSL entries as lines of the text list's format (`en {pos} /ipa/ (gloss) :: t {g}, ...`)."""
    out: list[str] = []
    head: str | None = None
    body: list[str] = []

    def unescape(s: str) -> str:
        return s.replace("\\[", "[").replace("\\]", "]")

    def flush() -> None:
        if head is None or not body:
            return
        first = body[0]
        m = re.match(
            r"\[b\]\[c darkblue\]~\[/c\]\[/b\] \[p\]<(?P<pos>[^>]*)>\[/p\](?P<rest>.*)$", first
        )
        if not m:
            return  # multi-headword phrase entries ("I am ... year(s) old"): not needed
        rest = m.group("rest").strip()
        ipa = re.match(r"\[c gray\]/(.*?)/\[/c\]\s*", rest)
        parts = [f"{unescape(head)} {{{m.group('pos')}}}"]
        if ipa:
            parts.append(f"/{unescape(ipa.group(1))}/")
            rest = rest[ipa.end() :]
        rest = re.sub(r"^\[i\](.*)\[/i\]$", r"\1", rest.strip())
        if rest:
            parts.append(unescape(rest))
        second = body[1] if len(body) > 1 else ""
        if second.startswith("SEE:"):
            target = re.sub(r"<<(.*?)>>", r"\1", second[4:].strip())
            out.append(" ".join(parts) + f" SEE: {unescape(target)} ::")
            return
        tm = re.match(r"\[m1\](.*)\[/m\]$", second)
        if not tm:
            return
        targets = re.sub(r"\s*\[p\]<([^>]*)>\[/p\]", r" {\1}", tm.group(1))
        targets = re.sub(r"\[/?i\]", "", targets)
        out.append(" ".join(parts) + " :: " + unescape(targets))

    for raw in text.splitlines():
        if raw.startswith("#"):
            continue
        if not raw.strip():
            flush()
            head, body = None, []
        elif raw[0] in " \t":
            body.append(raw.strip())
        else:
            flush()
            head, body = raw.strip(), []
    flush()
    return out


def split_top(s: str, seps: str = ",;|") -> list[str]:
    """`s` split at the separators that are outside (), [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch in seps and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def clean_target(item: str) -> tuple[str, str] | None:
    """(translation, gender mark) of one list item, or None when nothing is left."""
    genders = re.findall(r"\{([^}]*)\}", item)
    t = re.sub(r"\{[^}]*\}|\([^)]*\)|\[[^\]]*\]", " ", item)
    if ":" in t:
        t = t.rsplit(":", 1)[1]
    t = re.sub(r"\s+", " ", t).strip(" .;,|")
    if not t or "(" in t or ")" in t or "[" in t or "]" in t:
        return None
    return t, (genders[0].strip() if genders else "")


def parse_lines(lines: list[str]) -> list[Sense]:
    senses = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        m = LINE.match(line.rstrip())
        if not m:
            continue
        targets = []
        if m.group("targets"):
            for item in split_top(m.group("targets")):
                c = clean_target(item)
                if c and c not in targets:
                    targets.append(c)
        see = (m.group("see") or "").strip()
        if not targets and not see:
            continue
        senses.append(
            Sense(
                m.group("en").strip(),
                m.group("pos").strip(),
                (m.group("gloss") or "").strip(),
                m.group("ipa") is not None,
                targets,
                see,
            )
        )
    return senses


def resolve(senses: list[Sense], depth: int = 3) -> list[Sense]:
    """Each `SEE:` redirect replaced by the senses of the headword it names (module docstring)."""
    by_head: dict[str, list[Sense]] = {}
    for s in senses:
        by_head.setdefault(s.en, []).append(s)

    def targets_of(name: str, pos: str, left: int) -> list[Sense]:
        cands = by_head.get(name, [])
        same = [c for c in cands if c.pos == pos] or cands
        same = [c for c in same if c.primary] + [c for c in same if not c.primary]
        out = []
        for c in same:
            if c.see:
                if left > 0 and c.see != name:
                    out.extend(targets_of(c.see, pos, left - 1))
            else:
                out.append(c)
        return out

    out: list[Sense] = []
    for s in senses:
        if not s.see:
            out.append(s)
            continue
        for t in targets_of(s.see, s.pos, depth):
            gloss = f"{s.gloss} > {t.gloss}" if s.gloss else t.gloss
            first = s.primary and t.primary
            out.append(Sense(s.en, s.pos, gloss, first, list(t.targets), via=t.en))
    return out


def rows(senses: list[Sense]) -> list[tuple[str, ...]]:
    """TSV rows: per (headword, pos) the primary sense first, then the list's order; a sense
    resolved from one redirect to several keeps them together; duplicates dropped."""
    groups: dict[tuple[str, str], list[Sense]] = {}
    for s in senses:
        groups.setdefault((s.en, s.pos), []).append(s)
    out = []
    for (en, pos), group in groups.items():
        ordered = [s for s in group if s.primary] + [s for s in group if not s.primary]
        seen = set()
        n = 0
        for s in ordered:
            key = (s.gloss, tuple(s.targets))
            if key in seen or not s.targets:
                continue
            seen.add(key)
            n += 1
            out.append(
                (
                    en,
                    pos,
                    str(n),
                    "1" if s.primary else "0",
                    s.gloss.replace("\t", " "),
                    "|".join(t for t, _ in s.targets),
                    "|".join(g for _, g in s.targets),
                    s.via,
                )
            )
    return out


def source_lines(lang: str, mirror: Path) -> tuple[list[str], str]:
    """The list's lines for `lang` and where they came from."""
    if lang != "fr":
        path = f"src/en-{lang}-enwiktionary.txt"
        return git_blob(mirror, path).decode("utf-8").splitlines(), path
    path = f"dsl/oneway/en-{lang}-enwiktionary.dsl.dz"
    return dsl_to_lines(decode_dsl(git_blob(mirror, path))), path


def write_tsv(path: Path, table: list[tuple[str, ...]], meta: list[str]) -> None:
    text = "".join(f"# {m}\n" for m in meta) + "\t".join(HEADER) + "\n"
    text += "".join("\t".join(r) + "\n" for r in table)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as f:
            f.write(text.encode("utf-8"))
        path.write_bytes(buf.getvalue())
    else:
        path.write_text(text, encoding="utf-8")


def check_dsl(lang: str, mirror: Path) -> int:
    """Convert the DSL of `lang` and compare it with its text list, sense by sense."""
    text = {
        ln
        for ln in git_blob(mirror, f"src/en-{lang}-enwiktionary.txt").decode().splitlines()
        if ln and not ln.startswith("#")
    }
    dsl = set(
        dsl_to_lines(decode_dsl(git_blob(mirror, f"dsl/oneway/en-{lang}-enwiktionary.dsl.dz")))
    )
    same = len(text & dsl)
    print(f"{lang}: text list {len(text)} lines, DSL converted {len(dsl)}, identical {same}")
    t_rows = {r for r in rows(parse_lines(sorted(text)))}
    d_rows = {r for r in rows(parse_lines(sorted(dsl)))}
    print(
        f"  parsed senses: text {len(t_rows)}, DSL {len(d_rows)}, identical {len(t_rows & d_rows)}"
    )
    for ln in sorted(text - dsl)[:8]:
        print(f"  text only: {ln}")
    for ln in sorted(dsl - text)[:8]:
        print(f"  DSL only:  {ln}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mirror", type=Path, default=MIRROR, help="the bare git mirror")
    p.add_argument("--out", type=Path, default=Path("build/dictionary"), help="output folder")
    p.add_argument("--lang", nargs="*", default=list(LANGS), choices=LANGS)
    p.add_argument("--gzip", action="store_true", help="write en-LL.tsv.gz (else .tsv)")
    p.add_argument(
        "--no-borrow",
        action="store_true",
        help="leave a list without first senses (German) without them (the de-zipf variant)",
    )
    p.add_argument("--check-dsl", metavar="LL", help="compare LL's DSL with its text list; exit")
    args = p.parse_args(argv)
    if args.check_dsl:
        return check_dsl(args.check_dsl, args.mirror)
    parsed = {}
    for lang in LANGS:  # all four: a list without first senses borrows them from the others
        lines, where = source_lines(lang, args.mirror)
        parsed[lang] = (lines, where, resolve(parse_lines(lines)))
    firsts = {
        (s.en, s.pos, s.gloss) for _, _, senses in parsed.values() for s in senses if s.primary
    }
    for lang in args.lang:
        lines, where, senses = parsed[lang]
        head = [ln for ln in lines if ln.startswith("# ")][:5]
        borrowed = 0
        if not args.no_borrow and not any(s.primary for s in senses):
            # the German list carries no pronunciations, so no sense is marked first; the
            # glosses are Wiktionary's translation-table glosses, the same in every list
            for s in senses:
                s.primary = (s.en, s.pos, s.gloss) in firsts
                borrowed += s.primary
        table = rows(senses)
        meta = [
            f"English-{lang} translations from the English Wiktionary, extracted by Matthias "
            "Buchmeier (open-dsl-dict/wiktionary-dict, version 20150102)",
            "License: CC BY-SA 3.0 Unported, or alternatively the GFDL; see dictionaries/LICENSE",
            f"Converted by experiments/dialogue/dictionary/build.py from {where}",
        ] + [h[2:] for h in head if "Size" in h]
        if borrowed:
            meta.append(
                f"First senses: {borrowed} borrowed from the it/fr/es lists (same headword, "
                "part of speech and gloss); this list marks none"
            )
        out = args.out / (f"en-{lang}.tsv" + (".gz" if args.gzip else ""))
        write_tsv(out, table, meta)
        heads = len({r[0] for r in table})
        print(
            f"{lang}: {where}: {len(lines)} lines -> {len(table)} senses, {heads} headwords "
            f"-> {out} ({out.stat().st_size:,} bytes)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
