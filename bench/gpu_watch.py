"""What a fresh GPU machine does in its first minutes, beside a training run: one line every
`--every` seconds until `--until` exists (the run's exit-code file) or `--max` seconds pass.

Each line (JSON): seconds since the watcher started, the milliseconds of a fixed pure-Python
loop (the host CPU's speed as one process sees it), the share of CPU time stolen by the
hypervisor and spent waiting for the disk since the last line (/proc/stat), free and total
memory, and the GPU's performance state, SM clock, utilisation and power (nvidia-smi). First,
once: the seconds to touch `--touch-gib` GiB of fresh host memory and to read torch's shared
libraries from disk, the two suspects for the slow first minutes of docs/results/gpu-run.md.

    python3 bench/gpu_watch.py --until /tmp/fitsub-gpu/rc > watch.txt &
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path


def _cpu_ms() -> float:
    t = time.perf_counter()
    s = 0
    for i in range(200_000):
        s += i * i
    return round((time.perf_counter() - t) * 1000, 1)


def _stat() -> list[int]:
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


def _mem_gib() -> dict[str, float]:
    out: dict[str, float] = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":")
            if key in ("MemTotal", "MemFree", "MemAvailable"):
                out[key] = round(int(value.split()[0]) / 2**20, 1)
    return out


def _gpu() -> str:
    query = "pstate,clocks.sm,utilization.gpu,power.draw,memory.used"
    try:
        done = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return done.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"nvidia-smi: {e}"


def _touch(gib: float) -> float:
    t = time.perf_counter()
    n = int(gib * 2**30)
    buf = bytearray(n)
    for i in range(0, n, 4096):
        buf[i] = 1
    del buf
    return round(time.perf_counter() - t, 2)


def _read_torch_libs() -> dict[str, float]:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return {}
    root = Path(spec.origin).parent
    dirs = [root / "lib", *sorted((root.parent / "nvidia").glob("*/lib"))]
    t = time.perf_counter()
    size = 0
    for d in dirs:
        for p in sorted(d.glob("*.so*")):
            with open(p, "rb") as f:
                while chunk := f.read(1 << 24):
                    size += len(chunk)
    return {"lib_gib": round(size / 2**30, 2), "lib_read_s": round(time.perf_counter() - t, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--until", type=Path, required=True, help="stop once this file exists")
    ap.add_argument("--every", type=float, default=10.0)
    ap.add_argument("--max", type=float, default=1500.0)
    ap.add_argument("--touch-gib", type=float, default=8.0)
    args = ap.parse_args()
    start = time.time()
    print(
        json.dumps({"t": 0, "touch_s": _touch(args.touch_gib), "gib": args.touch_gib}), flush=True
    )
    print(json.dumps({"t": round(time.time() - start, 1), **_read_torch_libs()}), flush=True)
    last = _stat()
    while not args.until.exists() and time.time() - start < args.max:
        time.sleep(args.every)
        now = _stat()
        d = [b - a for a, b in zip(last, now, strict=False)]
        total = max(sum(d), 1)
        last = now
        line = {
            "t": round(time.time() - start, 1),
            "cpu_ms": _cpu_ms(),
            "steal_pct": round(100 * d[7] / total, 1) if len(d) > 7 else None,
            "iowait_pct": round(100 * d[4] / total, 1),
            "load": os.getloadavg()[0],
            **_mem_gib(),
            "gpu": _gpu(),
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
