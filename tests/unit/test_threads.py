"""The thread count and OpenMP wait policy chosen before torch loads (`fitsub.threads`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from fitsub import threads
from fitsub.threads import (
    SPIN_COUNT,
    busy_cpus,
    cgroup_quota,
    cpu_environment,
    cpu_times,
    free_threads,
)

# two /proc/stat samples 100 jiffies apart: cpu0 fully busy (a neighbour), cpu1 idle
STAT_BEFORE = """cpu  300 0 100 1000 0 0 0 0 0 0
cpu0 200 0 50 400 0 0 0 0 0 0
cpu1 100 0 50 600 0 0 0 0 0 0
intr 12345 0 0
ctxt 999
"""
STAT_AFTER = """cpu  390 0 110 1100 0 0 0 0 0 0
cpu0 290 0 60 400 0 0 0 0 0 0
cpu1 100 0 50 690 10 0 0 0 0 0
intr 12399 0 0
"""


def test_cpu_times_reads_each_core_not_the_total() -> None:
    times = cpu_times(STAT_BEFORE)
    assert times == {0: (250, 650), 1: (150, 750)}


def test_busy_cpus_counts_the_neighbours_core() -> None:
    busy = busy_cpus(cpu_times(STAT_BEFORE), cpu_times(STAT_AFTER), {0, 1})
    assert busy == 1.0  # cpu0: 100 of 100 jiffies busy; cpu1: idle (iowait counts as idle)
    assert busy_cpus(cpu_times(STAT_BEFORE), cpu_times(STAT_AFTER), {1}) == 0.0


def test_free_threads_leaves_the_taken_cores() -> None:
    assert free_threads(2, 0.0) == 2
    assert free_threads(2, 0.3) == 2  # a light neighbour does not take a core
    assert free_threads(2, 1.0) == 1
    assert free_threads(2, 1.6) == 1  # never fewer than one
    assert free_threads(2, 2.0) == 1
    assert free_threads(8, 2.4, quota=4.0) == 4  # the quota caps the cores
    assert free_threads(8, 6.0, quota=4.0) == 2


def test_cgroup_quota(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cgroup_quota(tmp_path) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cgroup_quota(tmp_path) is None
    assert cgroup_quota(tmp_path / "missing") is None


def test_translate_gets_the_free_cores_and_a_short_spin() -> None:
    env = cpu_environment(["translate", "--lang", "it", "in.srt"], {}, free=1)
    assert env == {"GOMP_SPINCOUNT": SPIN_COUNT, "KMP_BLOCKTIME": "1", "OMP_NUM_THREADS": "1"}
    assert cpu_environment(["eval", "x"], {}, free=3)["OMP_NUM_THREADS"] == "3"
    assert "OMP_NUM_THREADS" in cpu_environment(["distill", "x"], {}, free=2)


def test_threads_flag_and_user_environment_win() -> None:
    env = cpu_environment(["translate", "--lang", "it", "in.srt", "--threads", "2"], {}, free=1)
    assert "OMP_NUM_THREADS" not in env and env["GOMP_SPINCOUNT"] == SPIN_COUNT
    assert "OMP_NUM_THREADS" not in cpu_environment(
        ["translate", "--lang", "it", "--threads=4"], {}, free=1
    )
    user = {"OMP_NUM_THREADS": "3", "OMP_WAIT_POLICY": "ACTIVE", "KMP_BLOCKTIME": "200"}
    assert cpu_environment(["translate", "--lang", "it", "in.srt"], user, free=1) == {}
    assert "GOMP_SPINCOUNT" not in cpu_environment(["eval"], {"GOMP_SPINCOUNT": "5"}, free=1)


def test_other_commands_are_left_alone() -> None:
    assert cpu_environment(["train", "--out", "x"], {}, free=1) == {}
    assert cpu_environment(["--help"], {}, free=1) == {}
    assert cpu_environment([], {}, free=1) == {}


def test_the_command_line_sets_torchs_threads_before_it_loads() -> None:
    """Through `fitsub.cli.main` in a fresh process: torch starts with the chosen threads."""
    code = (
        "import os, sys\n"
        "import fitsub.threads as t\n"
        "t.free_cpus = lambda *a, **k: 1\n"
        "from fitsub.cli import main\n"
        "try:\n"
        "    main(['translate', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "import torch\n"
        "print(torch.get_num_threads(), os.environ['GOMP_SPINCOUNT'])\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[-2:] == ["1", SPIN_COUNT]


def test_load_sampler_leaves_out_this_process_and_follows_the_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rebalance_threads` between batches: one thread while a neighbour holds a core, both
    when it has gone; torch's count follows (restored afterwards)."""
    stat = tmp_path / "stat"
    stat.write_text(STAT_BEFORE)
    sampler = threads.LoadSampler(stat)
    sampler.cpus = {0, 1}
    monkeypatch.setattr(threads, "_auto", sampler)
    before = torch.get_num_threads()
    try:
        assert threads.rebalance_threads() is None  # looked less than REBALANCE_S ago
        time.sleep(0.05)
        stat.write_text(STAT_AFTER)  # cpu0 busy all along: a neighbour
        assert sampler.last is not None
        sampler.last = (sampler.last[0] - threads.REBALANCE_S, *sampler.last[1:])
        assert threads.rebalance_threads() == 1
        assert torch.get_num_threads() == 1
        time.sleep(0.05)
        stat.write_text(STAT_AFTER.replace("cpu0 290 0 60 400", "cpu0 290 0 60 500"))
        assert sampler.last is not None
        sampler.last = (sampler.last[0] - threads.REBALANCE_S, *sampler.last[1:])
        assert threads.rebalance_threads() == 2  # the neighbour has gone: both cores
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_nothing_changes_once_torch_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process that has imported torch (this one) OpenMP has read its settings: the
    environment is left alone and `rebalance_threads` does nothing."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "_auto", None)
    assert threads.prepare_cpu(["translate", "--lang", "it", "in.srt"]) == {}
    assert "OMP_NUM_THREADS" not in os.environ
    assert threads.rebalance_threads() is None
