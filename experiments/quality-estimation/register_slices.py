"""Issue 58 item 4: which dev lines the per-register calibration and the fresh reading use.

    python experiments/quality-estimation/register_slices.py build/qe58

Only the FIRST half of each dev file (the calibration / selection half; the second half of
dev/opensubtitles is issue 54's report half; nothing under test/). Per language and set
(`ted`: dev/mustc-tst-common-a, it/de/es; `subs`: dev/opensubtitles), lines are drawn evenly
over the first half: `N_CAL` calibration lines, alternately `fit` (thresholds are chosen there)
and `report` (the figures are read there), and `N_READ` further lines, none of them a calibration
line, for the held-out reading. Writes OUT/LANG.SET.txt (the source lines, to translate),
OUT/LANG.SET.ref (their references) and OUT/LANG.SET.ids (set line number and part). The
shared data's text stays under OUT (git-ignored); only line numbers are committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SETS = {"ted": "mustc-tst-common-a", "subs": "opensubtitles"}
N_CAL = 260  # calibration lines per language and set: half fit, half report
N_READ = {"ted": 20, "subs": 20}  # held-out reading lines (French: 40 subtitle lines)


def pick(n_lines: int, lang: str, name: str) -> list[tuple[int, str]]:
    """(line number, part) of the lines used, all in the file's first half."""
    half = n_lines // 2
    n_read = 40 if lang == "fr" else N_READ[name]
    step = half / (N_CAL + n_read)
    chosen = [int(k * step) for k in range(N_CAL + n_read)]
    out = []
    for k, line in enumerate(chosen):
        if k % 14 == 13 and sum(p == "read" for _, p in out) < n_read:
            out.append((line, "read"))
        elif sum(p != "read" for _, p in out) < N_CAL:
            out.append(
                (line, "fit" if len([p for _, p in out if p != "read"]) % 2 == 0 else "report")
            )
        else:
            out.append((line, "read"))
    return out


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for lang in ("it", "de", "fr", "es"):
        for name, stem in SETS.items():
            src = DATA / f"en-{lang}" / "dev" / f"{stem}.en"
            if not src.exists():
                continue
            en = src.read_text(encoding="utf-8").splitlines()
            ref = src.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()
            rows = pick(len(en), lang, name)
            assert all(line < len(en) // 2 for line, _ in rows)
            base = out / f"{lang}.{name}"
            for part in ("cal", "read"):
                sel = [(i, p) for i, p in rows if (p == "read") == (part == "read")]
                Path(f"{base}.{part}.txt").write_text(
                    "".join(en[i] + "\n" for i, _ in sel), encoding="utf-8"
                )
                Path(f"{base}.{part}.ref").write_text(
                    "".join(ref[i] + "\n" for i, _ in sel), encoding="utf-8"
                )
                Path(f"{base}.{part}.ids").write_text(
                    "".join(f"{i}\t{p}\n" for i, p in sel), encoding="utf-8"
                )
            print(
                lang,
                name,
                len(en),
                {p: sum(q == p for _, q in rows) for p in ("fit", "report", "read")},
            )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
