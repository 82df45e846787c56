"""A checkpoint's backend imports torch only when a pass needs fitsub's own decoder (issue 59):
opening it and the unconstrained pass on CTranslate2 load no torch; a fitted request (a length,
a budget), Monte-Carlo dropout passes and converting the weights do; the forced scoring of the
quality score runs on CTranslate2 (`fitsub.nmt.ct2_score`) and loads none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from factories import train_tiny

from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.checkpoint import save_checkpoint

# a fresh interpreter (this one has torch loaded): what is imported after each step
STEPS = """
import json, sys
from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend

seen = {}
backend = NMTBackend(sys.argv[1], device="cpu", beam=2, threads=1)
seen["open"] = "torch" in sys.modules
free = backend.translate([Request("3 1 4 1 5"), Request("9 2 6")])
seen["unconstrained"] = "torch" in sys.modules
seen["engine"] = backend.ct2 is not None
if sys.argv[2] == "fit":
    backend.translate([Request("3 1 4 1 5", target_chars=5, max_chars=6, lexicon=True)])
else:
    passes = 2 if sys.argv[2] == "dropout" else 0
    backend.score_outputs([Request("3 1 4 1 5", target_chars=9)], [free[0][0].text], passes)
seen["after"] = "torch" in sys.modules
print(json.dumps({"seen": seen, "free": [c[0].text for c in free]}))
"""


@pytest.fixture(scope="module")
def copier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny copy model CTranslate2 can run (LDPE+PE, length dropout), converted once into
    this session's cache (`tests/conftest.py`), as a shipped model is after its first run."""
    model, tok, cfg = train_tiny("ldpe+pe", "subword", steps=300, length_dropout=0.3)
    path = save_checkpoint(tmp_path_factory.mktemp("torch-on-demand") / "copy", model, cfg, tok)
    assert NMTBackend(path, device="cpu", beam=2, threads=1).ct2 is not None
    return path


def steps(model: Path, then: str, cache: Path | None = None) -> dict[str, object]:
    """What the fresh interpreter saw (`STEPS`), `then` "fit", "score" or "dropout"; `cache`: its own
    $XDG_CACHE_HOME (else this session's, where the weights are converted)."""
    env = dict(os.environ) if cache is None else {**os.environ, "XDG_CACHE_HOME": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", STEPS, str(model), then],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=env,
    )
    out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


@pytest.mark.parametrize(
    ("then", "torch_after"), [("fit", True), ("score", False), ("dropout", True)]
)
def test_torch_is_imported_only_when_fitsubs_decoder_is_needed(
    copier: Path, then: str, torch_after: bool
) -> None:
    got = steps(copier, then)
    want = {"open": False, "unconstrained": False, "engine": True, "after": torch_after}
    assert got["seen"] == want
    # the same unconstrained outputs as a process that had torch loaded from the start
    here = NMTBackend(copier, device="cpu", beam=2, threads=1)
    want = here.translate([Request("3 1 4 1 5"), Request("9 2 6")])
    assert got["free"] == [c[0].text for c in want]


def test_converting_the_weights_loads_torch(copier: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "copy"  # a cache without its conversion: the torch model converts it
    shutil.copytree(copier, fresh)
    got = steps(fresh, "fit", cache=tmp_path / "cache")
    assert got["seen"] == {"open": True, "unconstrained": True, "engine": True, "after": True}
    assert any((tmp_path / "cache").rglob("model.bin"))
