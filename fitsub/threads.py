"""CPU threads and OpenMP's wait policy of one `fitsub` process, chosen before torch loads.

A beam step is a few dozen small operations; with OpenMP each one ends at a barrier where the
threads that finished first wait for the last. PyTorch's OpenMP (libgomp) lets a waiting thread
spin for ~300,000 iterations before it sleeps, and by default it starts one thread per core.
Then a busy neighbour (another program on one of the cores) is ruinous: the thread that shares
its core gets a time slice now and then, and every barrier of every operation waits for it,
while the other threads burn the rest of their core spinning (6x slower with `--threads 2`
and one busy process on two cores, issue 31).

So `prepare_cpu`, called by the command line before anything imports torch, does two things
for `translate`, `eval` and `distill` (`train` is left as it was):

- the number of threads: without `--threads` (and without `OMP_NUM_THREADS`), the cores this
  process may use (`os.sched_getaffinity`, capped by a cgroup CPU quota) less those other
  programs keep busy, sampled from `/proc/stat` over `SAMPLE_S` seconds at start-up
  (`free_cpus`); at least one. Between batches the backend calls `rebalance_threads`, which
  looks again (at most every `REBALANCE_S` seconds, from the CPU time used since the last look,
  less this process's own) and changes torch's count when a neighbour came or went.
  `--threads N` still forces N.
- the wait policy: a short spin (`GOMP_SPINCOUNT`, `KMP_BLOCKTIME` for Intel's OpenMP), then
  sleep, so that a thread whose partner was preempted gives its core back instead of spinning,
  and a sleeping thread is woken promptly by the scheduler (it has used little CPU time).

Values the user set in the environment (`OMP_NUM_THREADS`, `OMP_WAIT_POLICY`,
`GOMP_SPINCOUNT`, `KMP_BLOCKTIME`) are kept. Both settings are environment variables because
OpenMP reads them once, when torch loads it; in a process that has already imported torch
`prepare_cpu` changes nothing. Measured in `bench/load_test.py` (docs/speed.md).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import MutableMapping, Sequence
from pathlib import Path

# the commands whose thread count and wait policy are chosen here
COMMANDS = frozenset({"translate", "eval", "distill"})
SAMPLE_S = 0.06  # how long /proc/stat is sampled at start-up
# libgomp's spin iterations before a waiting thread sleeps (its default is 300,000; 0 is
# OMP_WAIT_POLICY=PASSIVE): long enough to bridge the gap between two operations of a step on
# an idle core, short enough that a preempted partner costs little (bench/load_test.py)
SPIN_COUNT = "10000"
BLOCKTIME_MS = "1"  # the same for Intel's OpenMP (its default: 200 ms)
# a core counts as taken when other programs keep it this busy (0..1) on average
TAKEN = 0.5
REBALANCE_S = 1.0  # `rebalance_threads` looks at the load again after this many seconds

_auto: LoadSampler | None = None  # set by `prepare_cpu` when it chose the thread count


def cpu_times(stat: str) -> dict[int, tuple[int, int]]:
    """`/proc/stat` text -> {cpu: (busy, total)} jiffies of each `cpuN` line."""
    out: dict[int, tuple[int, int]] = {}
    for line in stat.splitlines():
        name, *fields = line.split()
        if not name.startswith("cpu") or name == "cpu" or not name[3:].isdigit():
            continue
        v = [int(f) for f in fields[:8]]  # user nice system idle iowait irq softirq steal
        v += [0] * (8 - len(v))
        idle = v[3] + v[4]
        out[int(name[3:])] = (sum(v) - idle, sum(v))
    return out


def busy_cpus(
    before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]], cpus: set[int]
) -> float:
    """How many of `cpus` were busy between two `cpu_times` samples (0..len(cpus))."""
    busy = 0.0
    for c in cpus:
        if c not in before or c not in after:
            continue
        d_busy, d_total = after[c][0] - before[c][0], after[c][1] - before[c][1]
        if d_total > 0:
            busy += min(1.0, max(0.0, d_busy / d_total))
    return busy


def usable_cpus() -> set[int]:
    """The cores this process may run on (its affinity), as CPU numbers."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def cgroup_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The cgroup v2 CPU quota in cores (`cpu.max`: "200000 100000" -> 2.0); None: no quota."""
    try:
        quota, period = (root / "cpu.max").read_text("ascii").split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    try:
        return max(int(quota) / int(period), 0.0)
    except (ValueError, ZeroDivisionError):
        return None


def free_threads(n_cpus: int, busy: float, quota: float | None = None) -> int:
    """Threads to start: the usable cores (capped by a quota) less the taken ones, at least 1."""
    n = n_cpus if quota is None else min(n_cpus, max(1, math.floor(quota)))
    taken = math.floor(busy + (1.0 - TAKEN))  # a core is taken from TAKEN busy on
    return max(1, min(n, n_cpus - taken))


class LoadSampler:
    """How busy other programs keep this process's cores, between two calls of `free`.

    Each call reads `/proc/stat` and this process's own CPU time; the cores busy since the last
    call, less what this process itself used, are the others' (so it works while fitsub runs).
    """

    def __init__(self, stat: Path = Path("/proc/stat")) -> None:
        self.stat, self.cpus = stat, usable_cpus()
        self.quota = cgroup_quota()
        self.last = self._sample()

    def _sample(self) -> tuple[float, float, dict[int, tuple[int, int]]] | None:
        """(wall s, own CPU s, `cpu_times`) now; None without a readable /proc/stat."""
        try:
            text = self.stat.read_text("ascii")
        except OSError:
            return None
        own = os.times()
        return time.monotonic(), own.user + own.system, cpu_times(text)

    def free(self) -> int:
        """Threads for the cores others left free since the last call (every core if unknown)."""
        now = self._sample()
        last, self.last = self.last, now
        if now is None or last is None or now[0] <= last[0]:
            return free_threads(len(self.cpus), 0.0, self.quota)
        busy = busy_cpus(last[2], now[2], self.cpus)
        own = (now[1] - last[1]) / (now[0] - last[0])  # cores this process kept busy
        return free_threads(len(self.cpus), max(0.0, busy - own), self.quota)


def free_cpus(sample_s: float = SAMPLE_S) -> int:
    """The cores other programs leave free right now, sampled over `sample_s` seconds (>= 1)."""
    sampler = LoadSampler()
    time.sleep(sample_s)
    return sampler.free()


def command_of(argv: Sequence[str]) -> str | None:
    """The command an argument list runs (its first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def forces_threads(argv: Sequence[str]) -> bool:
    """Whether the arguments give `--threads` (as `--threads N` or `--threads=N`)."""
    return any(a == "--threads" or a.startswith("--threads=") for a in argv)


def cpu_environment(
    argv: Sequence[str], environ: MutableMapping[str, str], free: int | None = None
) -> dict[str, str]:
    """The OpenMP variables to set for a command line (those `environ` lacks); `free`: cores
    free now (None: measured with `free_cpus` when the thread count is to be chosen)."""
    if command_of(argv) not in COMMANDS:
        return {}
    env: dict[str, str] = {}
    if "OMP_WAIT_POLICY" not in environ and "GOMP_SPINCOUNT" not in environ:
        env["GOMP_SPINCOUNT"] = SPIN_COUNT
    if "KMP_BLOCKTIME" not in environ:
        env["KMP_BLOCKTIME"] = BLOCKTIME_MS
    if not forces_threads(argv) and "OMP_NUM_THREADS" not in environ:
        env["OMP_NUM_THREADS"] = str(free_cpus() if free is None else free)
    return env


def prepare_cpu(argv: Sequence[str] | None = None) -> dict[str, str]:
    """Set the thread count and wait policy of this process for `argv` (default: sys.argv);
    the variables set. Nothing once torch is loaded (OpenMP has read its settings then)."""
    global _auto
    if "torch" in sys.modules:
        return {}
    env = cpu_environment(sys.argv[1:] if argv is None else argv, os.environ)
    os.environ.update(env)
    if "OMP_NUM_THREADS" in env:  # the count is fitsub's to choose: follow the load
        _auto = LoadSampler()
    return env


def rebalance_threads() -> int | None:
    """Between two batches: the threads for the cores free now, set in torch when they changed;
    None (and nothing done) when the count is not fitsub's to choose (`--threads`,
    `OMP_NUM_THREADS`, no `prepare_cpu`) or the last look is less than `REBALANCE_S` old."""
    if _auto is None or _auto.last is None or time.monotonic() - _auto.last[0] < REBALANCE_S:
        return None
    import torch  # loaded by now: the caller decodes with it

    n = _auto.free()
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return n


def default_threads() -> int:
    """The threads torch uses when nobody set them: `OMP_NUM_THREADS` (which torch reads when it
    loads; `prepare_cpu` sets it for the commands), read without importing torch where torch is
    not loaded yet; else torch's own count (CTranslate2 is given as many, `fitsub.nmt.ct2`)."""
    value = os.environ.get("OMP_NUM_THREADS", "")
    if "torch" not in sys.modules and value.isdigit() and int(value) > 0:
        return int(value)
    import torch

    return int(torch.get_num_threads())


def torch_threads(n: int) -> None:
    """Give torch `n` threads (at least 1): `--threads`, for every part of the run that uses it."""
    import torch

    torch.set_num_threads(max(1, n))
