"""Issue 29: every byte that is not translated survives, and every bad input is one line, exit 2."""

from __future__ import annotations

import errno
import io
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from doubles import ToyBackend  # noqa: E402
from hardening_helpers import cli  # noqa: E402

from fitsub.backend import Request  # noqa: E402
from fitsub.budget import limits_for  # noqa: E402
from fitsub.formats import parse_document, read_document, render_document  # noqa: E402
from fitsub.glossary import parse_glossary  # noqa: E402
from fitsub.identity import IdentityBackend  # noqa: E402
from fitsub.pipeline import TranslateOptions, translate_document  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TRICKY = ROOT / "tests/data/ok/tricky.ass"


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")


def _one_line_exit_2(args: list[str]) -> str:
    res = cli(args)
    assert res.code == 2, res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert "Traceback" not in res.err
    return res.err


def test_identity_backend_returns_the_source_and_flags_what_is_over_budget() -> None:
    got = IdentityBackend().translate([Request("Hello there", max_chars=5), Request("Hi")])
    assert [(c[0].text, c[0].fits) for c in got] == [("Hello there", False), ("Hi", True)]


def test_ass_translation_changes_only_the_text_of_translated_dialogue_lines() -> None:
    source = TRICKY.read_bytes().decode("utf-8")
    doc = read_document(TRICKY)
    assert doc.segments[2].text == "Take the keys to the car."  # the {TN: …} note not sent
    assert (doc.segments[2].start_ms, doc.segments[3].start_ms) == (16005, -1000)
    assert (doc.segments[4].start_ms, doc.segments[4].end_ms) == (35_999_990, 36_000_000)
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=3.0, compare=False)
    written = render_document(translate_document(doc, ToyBackend(), opts).document)
    before, after = source.split("\r\n"), written.split("\r\n")
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        if a.startswith("Dialogue:") and a != b:
            # the same fields, byte for byte, up to the text (layer, times, style, margins 0010)
            assert a.rsplit(",", 1)[0].split(",")[:9] == b.split(",")[:9]
        else:
            assert a == b  # sections, ; comments, Picture / Sound / Command, styles, Comment
    note = next(line for line in after if "{TN: pun on key}" in line)
    assert "Take" in note and "keys" not in note.split("{")[0].split()[-1:]


def test_a_mixed_encoding_file_is_read_with_a_warning_naming_the_line(tmp_path: Path) -> None:
    src = tmp_path / "mixed.srt"
    src.write_bytes(
        "1\n00:00:01,000 --> 00:00:02,000\nCaf\u00e9 cr\u00e8me br\u00fbl\u00e9e "
        "na\u00efve \u00e0 la carte\n\n".encode("cp1252")
        + "2\n00:00:03,000 --> 00:00:04,000\nna\u00efve\n".encode()
    )
    doc = read_document(src)
    assert any("line 7" in w and "mixed encodings" in w for w in doc.warnings)


TOML_CASES = [
    "defaults = [1]",
    "defaults = 3",
    "profiles = 'x'",
    "[defaults]\nratio = inf",
    "[defaults]\nratio = nan",
    "[defaults]\nratio = true",
    "[defaults]\nlang = 3",
    "[defaults]\nmodel = []",
    "[defaults]\nglossary = 1979-05-27",
    "[defaults]\nprofile = {a = 1}",
    "[defaults]\nnope = 1",
    "[profiles.x]\ncps = nan",
    "[profiles.x]\ncpl = 1.5",
    "[profiles.x]\nbased_on = 3",
    "[profiles.x]\nreading_speed = 'yes'",
    "[profiles]\nx = 3",
    "a = " + "[" * 5000 + "]" * 5000,
    "[defaults]\nlang = 'xx'",  # issue 55: the message did not name the file
    "[defaults]\nratio = 1e-300",  # issue 55: accepted, and cues became "È"
    "[profiles.x]\nratio = 1e-300",
    "[profiles.x]\nmin_ratio = 0.001",
]


@pytest.mark.parametrize("toml", TOML_CASES)
def test_every_bad_fitsub_toml_is_one_line_exit_2(
    toml: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "fitsub.toml"
    config.write_text(toml + "\n", encoding="utf-8")
    monkeypatch.setenv("FITSUB_CONFIG", str(config))
    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    err = _one_line_exit_2(["translate", "--lang", "it", str(srt), "--model", "identity", "-q"])
    assert "fitsub.toml" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.srt", "fitsub.toml"]


@pytest.mark.parametrize("option", ["--ratio", "--min-ratio", "--cpl", "--lines", "--cps",
                                    "--beam", "--threads"])  # fmt: skip
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "9" * 30, "-1", "0"])
def test_every_numeric_option_refuses_nan_inf_huge_and_negative(
    option: str, value: str, tmp_path: Path
) -> None:
    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    _one_line_exit_2(
        ["translate", "--lang", "it", str(srt), "--model", "identity", "-q", f"{option}={value}"]
    )
    assert [p.name for p in tmp_path.iterdir()] == ["a.srt"]


def test_a_full_disk_is_one_line_exit_2_and_keeps_the_old_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fitsub.io.atomic

    srt, out = tmp_path / "a.srt", tmp_path / "a.it.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    out.write_text("old", encoding="utf-8")

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fitsub.io.atomic, "_write_all", full)
    err = _one_line_exit_2(["translate", "--lang", "it", str(srt), "--model", "identity", "-q"])
    assert "No space left on device" in err
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.it.srt", "a.srt"]  # no debris


@pytest.mark.parametrize(("option", "value"), [("--ratio", "1e-300"), ("--min-ratio", "0.01")])
def test_a_ratio_below_a_twentieth_is_refused(option: str, value: str, tmp_path: Path) -> None:
    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    args = ["translate", str(srt), "--model", "identity", "-q", "--lang", "it"]
    err = _one_line_exit_2([*args, option, value])
    assert f"{option} must be at least 0.05" in err
    assert [p.name for p in tmp_path.iterdir()] == ["a.srt"]


def test_a_full_disk_at_the_report_says_the_subtitle_file_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 55: "(nothing written)" came after the subtitle file had been written
    import fitsub.io.atomic

    srt, out, report = tmp_path / "a.srt", tmp_path / "a.it.srt", tmp_path / "r.json"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    real = fitsub.io.atomic._atomic_write

    def full_at_json(path: Path, data: bytes) -> None:
        if path.suffix == ".json":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(fitsub.io.atomic, "_atomic_write", full_at_json)
    args = ["translate", "--lang", "it", str(srt), "--model", "identity", "-q", "-o", str(out)]
    err = _one_line_exit_2([*args, "--report", str(report)])
    assert f"{report}: cannot write it: No space left on device" in err
    assert "nothing written" not in err and err.strip().endswith(f"already written: {out}")
    assert out.read_bytes() == srt.read_bytes() and not report.exists()


def test_ctrl_c_is_one_line_exit_130_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")

    def interrupt(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(IdentityBackend, "translate", interrupt)
    res = cli(["translate", "--lang", "it", str(srt), "--model", "identity", "-q"])
    assert res.code == 130
    assert res.err.strip() == "fitsub: interrupted, nothing written"
    assert [p.name for p in tmp_path.iterdir()] == ["a.srt"]


@pytest.mark.parametrize("when", ["translating", "after-writing"])
def test_ctrl_c_in_a_batch_names_exactly_the_files_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    # issue 44: a batch interrupted after writing a file said "nothing written"
    import fitsub.cli.many_files

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.srt").write_text(
            "1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8"
        )
    calls = []
    real_translate = IdentityBackend.translate
    real_write = fitsub.cli.many_files.summarize_results

    def translate(self: IdentityBackend, *a: object, **k: object) -> object:
        calls.append(1)
        if when == "translating" and len(calls) > 1:  # during b: a written, b not
            raise KeyboardInterrupt
        return real_translate(self, *a, **k)  # type: ignore[arg-type]

    def after_write(*a: object, **k: object) -> object:
        if (tmp_path / "b.it.srt").exists():  # b's output replaced, its summary not made yet
            raise KeyboardInterrupt
        return real_write(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(IdentityBackend, "translate", translate)
    monkeypatch.setattr(fitsub.cli.many_files, "summarize_results", after_write)
    files = [str(tmp_path / f"{n}.srt") for n in ("a", "b", "c")]
    res = cli(["translate", "--lang", "it", *files, "--model", "identity", "-q", "--threads", "1"])
    assert res.code == 130
    written = sorted(p.name for p in tmp_path.glob("*.it.srt"))
    expected = ["a.it.srt"] if when == "translating" else ["a.it.srt", "b.it.srt"]
    assert written == expected
    shown = ", ".join(str(tmp_path / n) for n in expected)
    assert res.err.strip() == (
        f"fitsub: interrupted after writing {len(expected)} of 3 files ({shown}); "
        "nothing else written"
    )


def test_ctrl_c_after_the_output_is_written_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one input: the output is written first, then --report; Ctrl-C in between
    import fitsub.cli.translate_one

    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")

    def interrupt(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(fitsub.cli.translate_one, "write_report", interrupt)
    report = tmp_path / "r.json"
    res = cli(
        [
            "translate",
            "--lang",
            "it",
            str(srt),
            "--model",
            "identity",
            "-q",
            "--report",
            str(report),
        ]
    )
    assert res.code == 130
    out = tmp_path / "a.it.srt"
    assert res.err.strip() == f"fitsub: interrupted after writing {out}; nothing else written"
    assert out.read_bytes() == srt.read_bytes() and not report.exists()


def test_out_dir_never_writes_through_a_link_leading_outside(tmp_path: Path) -> None:
    inputs, out_dir, outside = tmp_path / "in", tmp_path / "out", tmp_path / "secret.srt"
    inputs.mkdir(), out_dir.mkdir()
    outside.write_text("keep me", encoding="utf-8")
    for name in ("a", "b"):
        (inputs / f"{name}.srt").write_text(
            "1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8"
        )
    (out_dir / "a.it.srt").symlink_to(outside)
    err = _one_line_exit_2(["translate", "--lang", "it", str(inputs), "--out-dir", str(out_dir), "--model",
                            "identity", "-q"])  # fmt: skip
    assert "symbolic link" in err
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.it.srt"]


def test_a_pickle_named_model_safetensors_is_one_line_exit_2(tmp_path: Path) -> None:
    import pickle

    from factories import tiny_checkpoint

    model = tiny_checkpoint(tmp_path)
    (model / "model.safetensors").write_bytes(pickle.dumps({"weights": list(range(100))}))
    srt = tmp_path / "a.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    err = _one_line_exit_2(["translate", str(srt), "--model", str(model), "-q", "--beam", "1"])
    assert "model.safetensors" in err


def test_glossary_restores_in_one_pass() -> None:
    shielded = parse_glossary("Foo\t[2]\nBar\tBAR\n").shield("Foo and Bar")
    assert shielded.restore(shielded.text) == ("[2] and BAR", ())


def test_markdown_math_is_never_translated() -> None:
    text = "Intro $x^2$ and $5 or $6.\n\n$$\nx = y^2\n$$\n\nAfter $$a+b$$ end.\n"
    doc = parse_document(text, "markdown")
    assert [s.text for s in doc.segments] == ["Intro", "and $5 or $6.", "After", "end."]
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=3.0, compare=False)
    out = render_document(translate_document(doc, ToyBackend(), opts).document)
    for math in ("$x^2$", "$$\nx = y^2\n$$", "$$a+b$$"):
        assert math in out


def _deck(paragraph: str) -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(2))
    box.text_frame.paragraphs[0].text = paragraph  # "\v": a line break (<a:br/>)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def test_pptx_line_break_stays_between_the_words(tmp_path: Path) -> None:
    src = tmp_path / "d.pptx"
    src.write_bytes(_deck("We go home now\vYou and I"))
    doc = read_document(src)
    assert doc.segments[0].text == "We go home now You and I"  # a space, not joined words
    res = cli(
        [
            "translate",
            "--lang",
            "it",
            str(src),
            "--model",
            "identity",
            "-q",
            "-o",
            str(tmp_path / "i.pptx"),
        ]
    )
    assert res.code == 0 and (tmp_path / "i.pptx").read_bytes() == src.read_bytes()
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=9.0, compare=False)
    from fitsub.formats import document_bytes

    data, _ = document_bytes(translate_document(doc, ToyBackend(), opts).document)
    from pptx import Presentation

    para = Presentation(io.BytesIO(data)).slides[0].shapes[0].text_frame.paragraphs[0]
    first, second = para.text.split("\v")
    assert first.split()[0] == "Noi" and second.split()[0] == "Voi"
    with zipfile.ZipFile(io.BytesIO(data)) as after, zipfile.ZipFile(src) as before:
        assert after.namelist() == before.namelist()
        changed = [n for n in before.namelist() if before.read(n) != after.read(n)]
    assert changed == ["ppt/slides/slide1.xml"]  # every other part as read


def test_a_pptx_zip_bomb_is_refused_before_parsing(tmp_path: Path) -> None:
    data = _deck("Hello there")
    bomb = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(bomb, "w") as zout:
        for info in zin.infolist():
            part = zin.read(info)
            if info.filename == "ppt/slides/slide1.xml":
                part = part.replace(b"?>", b"?><!--" + b" " * (40 * 2**20) + b"-->", 1)
            zout.writestr(info.filename, part, compress_type=zipfile.ZIP_DEFLATED)
    src = tmp_path / "bomb.pptx"
    src.write_bytes(bomb.getvalue())
    assert src.stat().st_size < 2**20
    err = _one_line_exit_2(["translate", "--lang", "it", str(src), "--model", "identity", "-q"])
    assert "would decompress" in err


def test_fuzzed_pptx_is_read_or_refused_in_one_line(tmp_path: Path) -> None:
    import random

    rng = random.Random(29)
    deck = (ROOT / "samples/deck.pptx").read_bytes()
    outcomes = []
    for i in range(12):
        data = bytearray(deck)
        if i % 3 == 0:
            data = data[: rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        src, out = tmp_path / f"f{i}.pptx", tmp_path / f"f{i}.it.pptx"
        src.write_bytes(bytes(data))
        res = cli(
            ["translate", "--lang", "it", str(src), "--model", "identity", "-q", "-o", str(out)]
        )
        assert res.code in (0, 2) and "Traceback" not in res.err, res.err
        if res.code == 2:
            assert len(res.err.strip().splitlines()) == 1 and not out.exists()
        else:
            assert out.read_bytes() == bytes(data)  # identity: the package as read
        outcomes.append(res.code)
    assert 2 in outcomes


def test_a_bracketed_speaker_label_keeps_the_italics_after_it() -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:04,000\n[Alba] <i>We go home now,</i>\n\n"
        "2\n00:00:05,000 --> 00:00:08,000\n[door slams] You and I.\n"
    )
    doc = parse_document(srt, "srt")
    opts = TranslateOptions(
        lang="it", limits=limits_for("it"), ratio=3.0, compare=False, quality=False
    )
    result = translate_document(doc, ToyBackend(), opts)
    first, second = (s.text for s in result.document.segments)
    assert first.startswith("[Alba] <i>") and first.endswith("</i>") and "andiamo" in first
    assert second.startswith("[doorino")  # a sound effect is translated, not taken for a name
    assert not result.warnings
