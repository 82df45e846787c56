"""`fitsub eval` end to end through `fitsub.cli.main`: scoring given outputs, reports, errors."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import sacrebleu

from fitsub.backend import Candidate, Request
from fitsub.cli import main, registry
from fitsub.cli.registry import LoadOptions

SRC = ["the cat sat on the mat", "hello world", "good morning to you all"]
HYP = ["il gatto era seduto sul tappeto", "ciao mondo", "buongiorno a tutti"]
REF = ["il gatto sedeva sul tappeto", "ciao mondo", "buongiorno a tutti"]
EVAL = ["eval", "--lang", "it"]  # the target language: required, as for translate


def run(args: Sequence[str]) -> int:
    """Run the CLI; return its exit code."""
    try:
        main(list(args))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def write(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    return (
        write(tmp_path / "test.en", SRC),
        write(tmp_path / "out.it", HYP),
        write(tmp_path / "test.it", REF),
    )


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["eval", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Examples:" in out
    assert "fitsub eval --src test.en --hyp out.it --ref test.it" in out


def test_hyp_mode_writes_json_and_markdown(
    files: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, hyp, ref = files
    js, md = tmp_path / "scores.json", tmp_path / "scores.md"
    code = run(
        [
            *EVAL,
            "--src",
            str(src),
            "--hyp",
            str(hyp),
            "--ref",
            str(ref),
            "--ratio",
            "0.9",
            "--bleu",
            "--lr",
            "--json",
            str(js),
            "--markdown",
            str(md),
        ]
    )
    assert code == 0
    row = json.loads(js.read_text(encoding="utf-8"))["rows"][0]
    assert row["setting"] == "hyp" and row["ratio"] == 0.9
    metrics = row["metrics"]
    assert metrics["bleu"]["score"] == pytest.approx(sacrebleu.corpus_bleu(HYP, [REF]).score)
    # fit at 0.9: 31 > floor(19.8) = 19; 10 > 9; 18 <= floor(20.7) = 20.
    assert (metrics["fit"]["passed"], metrics["fit"]["n"]) == (1, 3)
    # LC: 26 vs 17 fails; 10-char source complies; 16 vs 19: 30 > 19 fails.
    assert metrics["lc"]["passed"] == 1
    assert metrics["lr_src_subwords"] is None
    assert metrics["segments_per_s"] is None  # nothing decoded: no speed
    text = md.read_text(encoding="utf-8")
    assert text.startswith("| setting | n | BLEU |")
    assert "| hyp | 3 |" in text
    out = capsys.readouterr().out
    assert "fitsub eval" in out and "nrefs:1|case:mixed|eff:no|tok:13a" in out


def test_bleu_only_leaves_length_metrics_out(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    src, hyp, ref = files
    js = tmp_path / "s.json"
    assert (
        run(
            [
                *EVAL,
                "--src",
                str(src),
                "--hyp",
                str(hyp),
                "--ref",
                str(ref),
                "--bleu",
                "--json",
                str(js),
                "-q",
            ]
        )
        == 0
    )
    metrics = json.loads(js.read_text(encoding="utf-8"))["rows"][0]["metrics"]
    assert metrics["bleu"] is not None
    assert metrics["lc"] is None and metrics["lr_src_chars"] is None


def test_json_to_stdout(files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    src, hyp, ref = files
    assert run([*EVAL, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"][0]["metrics"]["n"] == 3


def test_plot_writes_png_files(files: tuple[Path, Path, Path], tmp_path: Path) -> None:
    src, hyp, ref = files
    out_dir = tmp_path / "plots"
    assert (
        run(
            [
                *EVAL,
                "--src",
                str(src),
                "--hyp",
                str(hyp),
                "--ref",
                str(ref),
                "--plot",
                str(out_dir),
                "-q",
            ]
        )
        == 0
    )
    for name in ("ratios.png", "bleu_vs_lc.png"):
        data = (out_dir / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_plot_without_matplotlib_is_one_line_and_writes_nothing(
    files: tuple[Path, Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """matplotlib is the `plot` extra: without it --plot fails before any work, naming the fix."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    src, hyp, ref = files
    out_dir, report = tmp_path / "plots", tmp_path / "r.json"
    args = ["--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--json", str(report)]
    assert run([*EVAL, *args, "--plot", str(out_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--plot needs matplotlib" in err and "fitsub[plot]" in err
    assert not out_dir.exists() and not report.exists()


def srt(cues: Sequence[tuple[str, str, str]]) -> str:
    blocks = [f"{i}\n{a} --> {b}\n{text}\n" for i, (a, b, text) in enumerate(cues, 1)]
    return "\n".join(blocks)


def test_subtitle_files_get_cpl_lines_and_cps_compliance(tmp_path: Path) -> None:
    times = [("00:00:01,000", "00:00:03,000"), ("00:00:04,000", "00:00:05,000")]
    src = tmp_path / "in.srt"
    src.write_text(
        srt([(*times[0], "Hello there,\nmy friend."), (*times[1], "Go home now.")]),
        encoding="utf-8",
    )
    hyp = tmp_path / "out.it.srt"
    long_line = "Torniamo subito a casa adesso, per favore, davvero"  # 50 chars in 1 s
    hyp.write_text(
        srt([(*times[0], "<i>Ciao,</i>\namico mio."), (*times[1], long_line)]), encoding="utf-8"
    )
    ref = tmp_path / "ref.it.srt"
    ref.write_text(
        srt([(*times[0], "Ciao,\namico mio."), (*times[1], "Andiamo a casa.")]), encoding="utf-8"
    )
    js = tmp_path / "s.json"
    assert (
        run(
            [
                *EVAL,
                "--hyp",
                str(hyp),
                "--ref",
                str(ref),
                "--src",
                str(src),
                "--lang",
                "it",
                "--json",
                str(js),
                "-q",
            ]
        )
        == 0
    )
    metrics = json.loads(js.read_text(encoding="utf-8"))["rows"][0]["metrics"]
    sub = metrics["subtitle"]
    assert sub["limits"] == {"cpl": 42, "lines": 2, "cps": 17.0}
    assert (sub["cpl"]["passed"], sub["lines"]["passed"], sub["cps"]["passed"]) == (1, 2, 1)
    # Cue text without markup, lines joined: "Ciao, amico mio." matches its reference exactly.
    assert metrics["bleu"]["score"] == pytest.approx(
        sacrebleu.corpus_bleu(
            ["Ciao, amico mio.", long_line], [["Ciao, amico mio.", "Andiamo a casa."]]
        ).score
    )


def test_line_count_mismatch_exits_2_and_writes_nothing(
    files: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, hyp, ref = files
    write(hyp, HYP[:2])
    js = tmp_path / "s.json"
    assert (
        run([*EVAL, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--json", str(js)])
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("fitsub: error: ") and str(hyp) in err and str(ref) in err
    assert "Traceback" not in err
    assert not js.exists()


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.it"
    code = run([*EVAL, "--hyp", str(missing), "--ref", str(missing)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{missing}: no such file" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--ratio", "zero"], "--ratio must be a number"),
        (["--ratio", "-1"], "--ratio must be positive"),
        (["--lang", "xx"], "no subtitle limits for language 'xx'"),
    ],
)
def test_bad_options_exit_2(
    files: tuple[Path, Path, Path],
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    src, hyp, ref = files
    assert run([*EVAL, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), *extra]) == 2
    assert message in capsys.readouterr().err


def test_nothing_to_evaluate_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(EVAL) == 2
    assert "nothing to evaluate" in capsys.readouterr().err


class TableBackend:
    """Test double standing in for NMTBackend: HYP for SRC; a hard budget cuts characters."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "table"
    opened: list[tuple[Path, str, int, int | None, str | None]] = []

    def __init__(self, model_dir: Path, how: LoadOptions) -> None:
        TableBackend.opened.append((model_dir, how.device, how.beam, how.threads, how.lang))

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        table = dict(zip(SRC, HYP, strict=True))
        time.sleep(0.05)  # a measurable decoding time per batch (eval reports segments/s)
        return [[Candidate(table[r.text][: r.max_chars], -1.0)] for r in requests]


def test_model_mode_translates_every_setting(
    files: tuple[Path, Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the backend registry: the directory `--model` names, the backend opened there
    monkeypatch.setattr(registry, "locate", lambda model, src_lang, lang: Path(model))
    monkeypatch.setitem(registry.LOADERS, registry.ModelKind.AUTOREGRESSIVE, TableBackend)
    TableBackend.opened = []
    src, _, ref = files
    js = tmp_path / "s.json"
    code = run(
        [
            *EVAL,
            "--model",
            str(tmp_path / "m1"),
            "--model",
            str(tmp_path / "m2"),
            "--src",
            str(src),
            "--ref",
            str(ref),
            "--settings",
            "unconstrained,hard",
            "--ratio",
            "0.9",
            "--beam",
            "2",
            "--device",
            "cpu",
            "--threads",
            "1",
            "--json",
            str(js),
        ]
    )
    assert code == 0
    # each model opened once, with the flags and the target language (a multilingual model's tag)
    assert TableBackend.opened == [
        (tmp_path / "m1", "cpu", 2, 1, "it"),
        (tmp_path / "m2", "cpu", 2, 1, "it"),
    ]
    rows = json.loads(js.read_text(encoding="utf-8"))["rows"]
    names = [r["setting"] for r in rows]
    assert names == ["m1/unconstrained@0.9", "m1/hard@0.9", "m2/unconstrained@0.9", "m2/hard@0.9"]
    assert rows[1]["metrics"]["fit"]["rate"] == 1.0  # cut to floor(0.9 × source chars)
    assert rows[0]["metrics"]["fit"]["passed"] == 1  # only "buongiorno a tutti" fits 20
    # decoding speed: 3 segments in one batch of at least 0.05 s
    assert all(0 < r["metrics"]["segments_per_s"] <= 3 / 0.05 for r in rows)
    assert "m2/hard@0.9" in capsys.readouterr().out


def test_report_never_overwrites_an_input(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    src, hyp, ref = files
    before = ref.read_bytes()
    args = [*EVAL, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--json", str(ref)]
    assert run(args) == 2
    assert "would overwrite an input file" in capsys.readouterr().err
    assert ref.read_bytes() == before
