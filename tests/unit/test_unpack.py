"""Issue 44: decompression bounded by the bytes that actually come out (gzip model files, pptx
parts), whatever the headers say; every refusal names its limit."""

from __future__ import annotations

import gzip
import io
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from fitsub.errors import InputError
from fitsub.formats import read_bytes_document
from fitsub.formats.pptx import MAX_XML_PART, MIN_TOTAL, check_zip, total_limit
from fitsub.io.text import MAX_MODEL_TEXT, read_gzip_text
from fitsub.io.unpack import check_zip_parts, gunzip_bounded

ROOT = Path(__file__).resolve().parents[2]
SLIDE = "ppt/slides/slide1.xml"


def _gzip_fast(data: bytes) -> bytes:
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def test_gunzip_reads_every_member_and_stops_at_the_limit() -> None:
    two = gzip.compress(b"hello ") + gzip.compress(b"world\n")
    assert gunzip_bounded(two, 100, None, "lexicon") == b"hello world\n"
    assert gunzip_bounded(two, 12, None, "lexicon") == b"hello world\n"
    with pytest.raises(InputError, match="lexicon decompresses to more than 11 bytes"):
        gunzip_bounded(two, 11, None, "lexicon")
    with pytest.raises(InputError, match="truncated gzip"):
        gunzip_bounded(two[:-12], 100, None, "lexicon")


def test_a_gzip_bomb_as_a_model_file_is_refused_naming_the_limit(tmp_path: Path) -> None:
    # a 2 GB line in a lexicon.txt.gz: refused after MAX_MODEL_TEXT bytes, not 2 GB
    bomb = tmp_path / "lexicon.txt.gz"
    head = b"# fitsub-lexicon 1\n"
    bomb.write_bytes(_gzip_fast(head + b"a" * (MAX_MODEL_TEXT + 2**20)))
    assert bomb.stat().st_size < 2**20
    with pytest.raises(InputError, match=r"lexicon decompresses to more than 32 MiB") as info:
        read_gzip_text(bomb, "lexicon")
    assert "\n" not in str(info.value) and str(bomb) in str(info.value)
    # the same text in several gzip members counts in total, not per member
    members = b"".join(_gzip_fast(b"a" * (MAX_MODEL_TEXT // 4)) for _ in range(5))
    bomb.write_bytes(members)
    with pytest.raises(InputError, match="more than 32 MiB"):
        read_gzip_text(bomb, "lexicon")
    # at the limit, read
    bomb.write_bytes(_gzip_fast(head + b"b" * 100))
    assert read_gzip_text(bomb, "lexicon") == (head + b"b" * 100).decode()


def _deck() -> bytes:
    return (ROOT / "samples/deck.pptx").read_bytes()


def _rezip(parts: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _lie(data: bytes, name: str, said: bytes) -> bytes:
    """The package with `name`'s headers (local and central) claiming it holds `said`: its
    size and CRC-32, while its deflate stream holds what it held."""
    buf = bytearray(data)
    raw = name.encode()
    crc = zlib.crc32(said)
    headers = ((b"PK\x03\x04", 14, 22, 26, 30), (b"PK\x01\x02", 16, 24, 28, 46))  # offsets
    for sig, crc_at, size_at, length_at, name_at in headers:
        at = buf.find(sig)
        while at >= 0:
            n = struct.unpack_from("<H", buf, at + length_at)[0]
            if bytes(buf[at + name_at : at + name_at + n]) == raw:
                struct.pack_into("<I", buf, at + crc_at, crc)
                struct.pack_into("<I", buf, at + size_at, len(said))
            at = buf.find(sig, at + 4)
    return bytes(buf)


def _padded_slide(parts: dict[str, bytes], size: int) -> bytes:
    return parts[SLIDE].replace(b"?>", b"?><!--" + b" " * size + b"-->", 1)


def test_a_part_whose_headers_understate_it_is_refused_by_what_comes_out() -> None:
    parts = _parts(_deck())
    original = parts[SLIDE]
    parts[SLIDE] = _padded_slide(parts, MAX_XML_PART + 2**20)  # 33 MiB of XML comment
    lying = _lie(_rezip(parts), SLIDE, original)  # the headers: the original slide, its CRC
    with zipfile.ZipFile(io.BytesIO(lying)) as z:
        assert z.getinfo(SLIDE).file_size == len(original)  # the directory looks harmless
    with pytest.raises(InputError, match=r"part 'ppt/slides/slide1.xml' decompresses to more "):
        check_zip(lying, Path("lie.pptx"))
    # a smaller lie: within every limit, but not what the header says
    parts[SLIDE] = original
    parts[SLIDE] = _padded_slide(parts, 2**20)
    small = _lie(_rezip(parts), SLIDE, original)
    with pytest.raises(InputError, match="its zip header says"):
        read_bytes_document(small, "pptx", Path("lie.pptx"))


def test_many_parts_are_bounded_in_total_not_only_each() -> None:
    parts = _parts(_deck())
    pad = b"<a/>" + b" " * (30 * 2**20)  # each under MAX_XML_PART; three over MIN_TOTAL
    extra = {f"ppt/media/pad{k}.xml": pad for k in range(3)}
    honest = _rezip({**parts, **extra})
    assert total_limit(len(honest)) == MIN_TOTAL
    with pytest.raises(InputError, match="would decompress to .* for a file of"):
        check_zip(honest, None)
    lying = honest
    for name in extra:  # headers that say each holds 4 bytes: the first part read gives it away
        lying = _lie(lying, name, b"<a/>")
    with pytest.raises(InputError, match="pad0.xml' decompresses to 31,457,284 bytes, its zip"):
        check_zip(lying, None)
    # what comes out is counted over the whole package too (a total limit, as decompressed)
    with pytest.raises(InputError, match="the package decompresses to more than 40 MiB"):
        check_zip_parts(honest, None, part_limit=lambda _: MAX_XML_PART, total_limit=40 * 2**20)


def test_the_sample_deck_passes_the_checks() -> None:
    check_zip(_deck(), None)
    assert read_bytes_document(_deck(), "pptx").segments


@pytest.mark.parametrize(
    ("name", "what"), [("lexicon.txt.gz", "lexicon"), ("links.txt.gz", "word links file")]
)
def test_a_model_file_bomb_is_refused_before_torch_is_imported(
    tmp_path: Path, name: str, what: str
) -> None:
    # issue 55: the lexicon bomb was refused only after the weights loaded (530-557 MB peak)
    import json
    import os
    import subprocess
    import sys

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model": {"arch": "ar"}}), encoding="utf-8")
    (model / name).write_bytes(_gzip_fast(b"# fitsub 1\n" + b"a" * (MAX_MODEL_TEXT + 2**20)))
    src = tmp_path / "a.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    probe = (
        "import re, sys\n"
        "from fitsub.cli import main\n"
        "try:\n"
        f"    main(['translate', {str(src)!r}, '--model', {str(model)!r}, '--lang', 'it', '-q'])\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "status = open('/proc/self/status').read()\n"
        "peak = int(re.search(r'VmHWM:\\s*(\\d+)', status).group(1)) // 1024\n"
        "print(code, 'torch' in sys.modules, peak, file=sys.__stdout__)\n"
    )
    env = {**os.environ, "FITSUB_CONFIG": ""}
    res = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300
    )
    code, torch_loaded, peak_mb = res.stdout.split()
    assert (code, torch_loaded) == ("2", "False"), res.stderr
    assert int(peak_mb) < 300  # MB, this process's own peak (issue 55's target; torch: 233 MB)
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and str(model / name) in err
    assert f"{what} decompresses to more than 32 MiB" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.srt", "model"]
