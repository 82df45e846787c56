"""The review page: keys to review a 60-cue file, and size / load time of a 2,000-cue page.

1. Translates `samples/lecture.srt` (60 cues) with the shipped en-it model as a user would
   (`fitsub translate --ratio 1.0 --review PAGE`, `--threads`: it writes the page and the run's
   settings, `OUT.fitsub.json`), and walks the page in headless Chromium as a subtitler would:
   Alt+↓ to each line to look at, a fix typed where the line needs one (`FIXES`, by source
   text; select-all and retype, counted key by key), Export and Copy (the `fitsub apply`
   command the page shows), then `fitsub apply` on the download. Prints the keys (`keys`: a
   chord such as Alt+↓ counts one; `presses`: every key pressed, Alt+↓ two), the clicks, their
   sum (`total`: a click counts as a key) and how many edited lines end within every limit.
   Walk 2, the same choosing instead of typing where the page offers an alternative a
   subtitler would take as the fix (`ACCEPT`): Esc, then its key.
   Walk 3, the page served by `fitsub review --serve` (in-process, as
   tests/system/test_review_serve_browser.py does: the flags read back from OUT.fitsub.json,
   127.0.0.1, a free port, the token URL): a static alternative that serves is taken as in
   walk 2; otherwise the row's *shorter* button (the line is over its budget) or *longer* (it
   fits but lost or garbled something) asks the model once, one click (the keyboard's way,
   Esc then - or +, is two keys), and an answer's alternative that `ACCEPT` lists and that
   fits the row's budget is taken by its key; the fix is typed only when none serves (a click
   back into the text box, then as walk 1). Prints the three walks' totals and the
   re-translation times: each request of the walk (click to answer shown, and the server's
   part), one *shorter* request over HTTP for every one-line cue (warm), and `fitsub review
   --serve` started as a new process (the seconds to its URL, the model loaded and warmed; its
   first request, cold, apart from the next ones); beside each wall time the CPU seconds the
   server's process spent meanwhile, what an idle core would take whatever else the machine
   runs.
2. Tiles the 60 translated cues into a `--cues` (2,000) cue document, writes its page, and
   measures the file size, the load time in headless Chromium (navigation to table built,
   median of 3) and the cost of one keystroke and of one filter change on that page.
3. `--screenshot PATH`: a PNG of the 60-cue page, one line retyped past its budget
   (docs/review.png);
   `--served-screenshot PATH`: a PNG of the served page, a row's alternatives after *shorter*
   (docs/review-served.png). Both saved as palette PNGs when that makes them smaller.

Needs Chromium + chromedriver and selenium (`make browser`). Run:
`OMP_NUM_THREADS=1 python bench/review_page.py --threads 1 --cues 0 --screenshot
docs/review.png --served-screenshot docs/review-served.png`.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from browser_helpers import find_browser  # noqa: E402

from fitsub.cli import main as fitsub_main  # noqa: E402
from fitsub.cli.documents import load_input  # noqa: E402
from fitsub.cli.run_settings import read_run_settings  # noqa: E402
from fitsub.cli.translation import resolve_run  # noqa: E402
from fitsub.document import Document  # noqa: E402
from fitsub.pipeline import TranslationResult, translate_document  # noqa: E402
from fitsub.review.page import served_page  # noqa: E402
from fitsub.review.retranslate import budgets_of  # noqa: E402
from fitsub.review.serve import Reviewer, make_server, url_of  # noqa: E402
from fitsub.review.tsv import write_review  # noqa: E402
from fitsub.units import char_length  # noqa: E402

# What a subtitler types for a flagged line of the lecture (source text → fixed Italian line).
FIXES = {
    "[applause]": "applausi",
    "This palace was built in 1652.": "Palazzo costruito nel 1652.",
    "The garden was designed in 1701": "Giardino progettato nel 1701",
    "by a French architect.": "da un francese.",
}
# Other renderings of those lines a subtitler would take as the fix: when the page offers one
# of them (or the fix itself) among a row's alternatives, the choosing walk picks it (Esc, then
# its key: two keys) instead of retyping the line.
ACCEPT = {
    "[applause]": {"applausi", "applauso", "Applausi", "Applauso"},
    "This palace was built in 1652.": {
        "Costruito nel 1652.",
        "Il palazzo è del 1652.",
        "Questo palazzo è del 1652.",
        "Palazzo del 1652.",
        "Il palazzo fu costruito nel 1652.",
    },
    "The garden was designed in 1701": {"Il giardino è del 1701", "Progettato nel 1701"},
    "by a French architect.": {"da un architetto francese.", "da un francese."},
}
ROW_ID = (
    "var r = document.activeElement.closest && document.activeElement.closest('.row');"
    "return r ? r.id : '';"
)
DATA = "return JSON.parse(document.getElementById('fitsub-data').textContent)"
TYPE, CHOOSE, SERVED = "typing every fix", "choosing where an alternative serves", "served"


def driver_for(downloads: Path, width: int = 1280, height: int = 800) -> Any:
    """A headless Chromium session downloading into `downloads`."""
    found = find_browser()
    if isinstance(found, str):
        raise SystemExit(f"review_page bench: {found}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):  # fmt: skip
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads)})
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    driver.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    return driver


def load(driver: Any, page: Path | str) -> tuple[float, float]:
    """Open `page` (a file, or the server's URL): seconds from navigation to the first screen
    usable, and to every row built (the page's own clock)."""
    driver.get("about:blank")
    driver.get(page.resolve().as_uri() if isinstance(page, Path) else page)
    get = "return document.body.getAttribute('data-complete-ms')"
    while driver.execute_script(get) is None:
        time.sleep(0.02)
    ready = driver.execute_script("return document.body.getAttribute('data-ready-ms')")
    return float(ready) / 1000, float(driver.execute_script(get)) / 1000


def load_clean(driver: Any, page: Path | str) -> None:
    """Open `page` with the edits saved for it (local storage, per origin) cleared."""
    load(driver, page)
    driver.execute_script("try { localStorage.clear(); } catch (e) {}")
    load(driver, page)


def translate_cli(src: Path, out: Path, page: Path, model: str | None, threads: int) -> None:
    """`fitsub translate SRC --lang it --ratio 1.0 -o OUT --review PAGE` (writes OUT.fitsub.json),
    run in OUT's folder with the names alone (the page's title: `lecture.srt → lecture.it.srt`)."""
    args = ["translate", src.name, "--lang", "it", "--ratio", "1.0", "-o", out.name]
    args += ["--review", page.name, "--threads", str(threads), "-q"]
    args += [] if model is None else ["--model", str(Path(model).resolve())]
    here = Path.cwd()
    os.chdir(out.parent)
    try:
        fitsub_main(args)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise SystemExit(f"review_page bench: fitsub translate exited {exc.code}") from None
    finally:
        os.chdir(here)


class TimedReviewer(Reviewer):
    """The server's reviewer, recording each `/retranslate` answer's seconds: wall (`seconds`)
    and the process's CPU meanwhile (`cpu`, user + system of every thread: the model's work
    runs partly outside the answering thread; nothing else of the bench's process works while
    a request is answered): what an idle core would take, whatever else the machine runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds: list[float] = []
        self.cpu: list[float] = []

    def answer(self, request: Any) -> dict[str, Any]:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return super().answer(request)
        finally:
            self.seconds.append(time.perf_counter() - start)
            self.cpu.append(time.process_time() - cpu)


def serve(out: Path, src: Path, threads: int) -> tuple[Any, str, TimedReviewer, dict[str, float]]:
    """`fitsub review --serve OUT --source SRC` in a thread (as the browser test): the server,
    its URL, its reviewer, and the seconds to load the model and to warm it (the first
    re-translation of the process, which the command makes before it prints the URL)."""
    start = time.perf_counter()
    flags, page = read_run_settings(out, device="cpu", threads=threads)
    opts, backend = resolve_run(flags).with_model()
    loaded = time.perf_counter() - start
    reviewer = TimedReviewer(
        source=load_input(src), translated=load_input(out), backend=backend, opts=opts
    )
    html = served_page(page.read_text(encoding="utf-8"), reviewer.translated, reviewer.source)
    start = time.perf_counter()
    reviewer.warm()
    warmed = time.perf_counter() - start
    server, token = make_server(html, reviewer, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server, token), reviewer, {"load_s": loaded, "warm_up_s": warmed}


def flat(text: str) -> str:
    return " ".join(text.split())


def serves(src: str, fix: str, text: str) -> bool:
    """Whether a subtitler would take `text` as the fix of line `src` (`FIXES`, `ACCEPT`)."""
    return flat(text) in {flat(t) for t in {fix} | ACCEPT.get(src, set())}


def offered(row: dict[str, Any], fix: str) -> str | None:
    """The key of what the page offers for `row` (an alternative, 1-4; the unconstrained
    translation, 0) that a subtitler would take as `fix` (`ACCEPT`), or None."""
    keys = [(str(k + 1), a["text"]) for k, a in enumerate(row["alts"])]
    fits = row["unc_alt"] is not None and row["unc_alt"]["fits"]  # over budget: no fix
    keys += [("0", row["unc_fit"])] if fits else []
    return next((key for key, text in keys if serves(row["src"], fix, text)), None)


def click(driver: Any, element: Any) -> None:
    """Click `element`, scrolled to the middle of the window (not under the sticky header)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def ask(driver: Any, i: int, step: str) -> tuple[float, str, list[tuple[str, str]]]:
    """Click row `i`'s *shorter* or *longer* button and wait for the answer: the seconds from
    the click to the answer shown, the page's note, and the new alternatives (key, text)."""
    row = driver.find_element("id", f"seg-{i}")
    button = next(b for b in row.find_elements("css selector", "button.ask") if b.text == step)
    note = "return document.querySelector('#seg-' + arguments[0] + ' .asked').textContent"
    start = time.perf_counter()
    click(driver, button)
    while True:
        said = str(driver.execute_script(note, i))
        if said.startswith(("asked", "not answered")):
            break
        assert time.perf_counter() - start < 120, f"no answer for row {i}"
        time.sleep(0.05)
    took = time.perf_counter() - start
    alts = driver.execute_script(
        "return Array.from(document.querySelectorAll('#seg-' + arguments[0] + ' .alts button.alt'))"
        ".map(function (b) { return [b.getAttribute('data-key'), b.getAttribute('data-text')]; })",
        i,
    )
    return took, said, [(str(k), str(t)) for k, t in alts]


def review_session(
    driver: Any, page: Path | str, downloads: Path, out: Path, mode: str = TYPE
) -> dict[str, Any]:
    """Walk every line to look at with Alt+↓, type the fixes, export, apply (`mode`: `TYPE`;
    `CHOOSE`, an alternative picked instead where the page offers one that serves: Esc, then
    its key; `SERVED`, as `CHOOSE`, then one *shorter* / *longer* asked of the server before
    typing: the module docstring)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    load_clean(driver, page)
    rows = driver.execute_script(DATA + ".rows")
    keys = presses = clicks = visited = fixed = chosen = 0
    offers = 0  # rows visited that offer a fitting alternative
    left: list[str] = []
    asked: list[dict[str, Any]] = []
    while True:
        before = driver.execute_script(ROW_ID)
        ActionChains(driver).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(
            Keys.ALT
        ).perform()
        keys += 1
        presses += 2
        now = driver.execute_script(ROW_ID)
        if not now or now == before:
            keys -= 1  # the last press found nothing more
            presses -= 2
            break
        visited += 1
        i = int(now.split("-")[1])
        row = rows[i]
        offers += any(a["kind"] != "unconstrained" for a in row["alts"])
        fix = FIXES.get(row["src"])
        if fix is None:
            left.append(row["src"])
            continue
        key = offered(row, fix) if mode != TYPE else None
        if key is not None:
            ActionChains(driver).send_keys(Keys.ESCAPE).send_keys(key).perform()
            keys += 2
            presses += 2
            fixed += 1
            chosen += 1
            continue
        if mode == SERVED:  # one question to the model: shorter when over budget, else longer
            step = "shorter" if char_length(flat(row["fit"])) > row["budget"] else "longer"
            took, said, alts = ask(driver, i, step)
            clicks += 1
            pick = next(
                (k for k, t in alts if serves(row["src"], fix, t) and char_length(flat(t)) <= row["budget"]),
                None,
            )  # fmt: skip
            asked.append({"row": i, "step": step, "s": round(took, 2), "note": said,
                          "offered": [t for _, t in alts], "taken": pick})  # fmt: skip
            if pick is not None:  # the focus is on the button, outside the text box
                ActionChains(driver).send_keys(pick).perform()
                keys += 1
                presses += 1
                fixed += 1
                chosen += 1
                broken = driver.execute_script(
                    "return document.getElementById('seg-' + arguments[0]).classList"
                    ".contains('broken')",
                    i,
                )
                assert not broken, f"row {i}: the alternative taken breaks a limit"
                continue
            click(driver, driver.find_element("css selector", f"#seg-{i} textarea"))  # to type
            clicks += 1
        box = driver.switch_to.active_element
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(fix)
        keys += 1 + len(fix)
        presses += 2 + len(fix)
        fixed += 1
    driver.find_element("id", "export").click()
    driver.find_element("id", "copy-cmd").click()
    clicks += 2
    exported = downloads / driver.execute_script(DATA + ".meta.edits_name")
    for _ in range(200):
        if exported.exists():
            break
        time.sleep(0.05)
    code = 0
    try:
        fitsub_main(["apply", str(exported), str(out), "-q", "--strict"])
    except SystemExit as exc:
        code = int(exc.code or 0)  # 3: an edited line still breaks a limit
    session = {"flagged_rows": sum(1 for r in rows if r["flags"]), "visited": visited, "fixed": fixed,
               "chosen": chosen, "visited_with_alternatives": offers,
               "left_as_is": left, "keys": keys, "presses": presses, "clicks": clicks,
               "total": keys + clicks, "apply_exit": code}  # fmt: skip
    return {**session, "asked": asked} if mode == SERVED else session


def post(url: str, index: int, step: str) -> float:
    """Seconds for `POST /retranslate` of segment `index` one `step` to the answer read."""
    body = json.dumps({"segment": index, "step": step}).encode("utf-8")
    request = urllib.request.Request(
        url.replace("/?t=", "/retranslate?t="),
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as resp:  # noqa: S310 - 127.0.0.1
        json.loads(resp.read())
    return time.perf_counter() - start


def one_line(source: Document, indexes: Iterable[int]) -> list[int]:
    """The segments of `indexes` whose source cue is one line."""
    return [i for i in sorted(indexes) if "\n" not in source.segments[i].text.strip()]


def http_times(url: str, reviewer: Reviewer) -> list[float]:
    """Seconds for one *shorter* request over HTTP (to the answer read) for every one-line
    cue the run translated, each from the run's budget."""
    reviewer.budgets = budgets_of(reviewer.source, reviewer.opts)
    return [post(url, i, "shorter") for i in one_line(reviewer.source, reviewer.budgets)]


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cold_serve(out: Path, src: Path, threads: int) -> dict[str, Any]:
    """`fitsub review --serve OUT --source SRC` as a new process: the seconds from the command
    to the URL printed (the model loaded and warmed: wall and the process's CPU), then those of
    one *shorter* request for each row of `FIXES` (wall, and the process's CPU), the first the
    server answers (cold) first."""
    command = [sys.executable, "-m", "fitsub", "review", "--serve", str(out), "--source",
               str(src), "--threads", str(threads), "--device", "cpu"]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    source = load_input(src)
    rows = [i for i, seg in enumerate(source.segments) if seg.text.strip() in FIXES]
    start = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603 - this Python, fitsub's own command
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        url = next((line.strip() for line in proc.stdout if line.startswith("http://")), "")
        if not url:
            raise SystemExit("review_page bench: fitsub review --serve printed no URL")
        took = {"to_url_s": time.perf_counter() - start, "to_url_cpu_s": process_cpu(proc.pid)}
        walls, cpus = [], []
        for i in rows:
            before = process_cpu(proc.pid)
            walls.append(post(url, i, "shorter"))
            cpus.append(process_cpu(proc.pid) - before)
        return {**took, "wall_s": walls, "cpu_s": cpus}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def spread(times: list[float]) -> str:
    """Median, 90th percentile and maximum of `times`, and how many are within 1.5 s."""
    if not times:
        return "none"
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    within = sum(1 for t in times if t <= 1.5)
    return (f"n {len(times)}, median {statistics.median(times):.2f} s, p90 {p90:.2f} s, "
            f"max {ordered[-1]:.2f} s, {within} of {len(times)} within 1.5 s")  # fmt: skip


def save_png(driver: Any, path: Path) -> None:
    """A screenshot of the window as `path`, as a 256-colour palette PNG when that is smaller
    (Pillow, when installed)."""
    raw = driver.get_screenshot_as_png()
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(raw)
        return
    packed = io.BytesIO()
    Image.open(io.BytesIO(raw)).convert("RGB").quantize(256).save(packed, "PNG", optimize=True)
    path.write_bytes(min(raw, packed.getvalue(), key=len))


def static_screenshot(driver: Any, page: Path, path: Path) -> None:
    """The page scrolled to rows 5-6, row 6 retyped past its budget (a year added)."""
    from selenium.webdriver.common.keys import Keys

    load_clean(driver, page)
    box = driver.find_element("css selector", "#seg-6 textarea")
    click(driver, box)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("Questo palazzo fu costruito nel 1652 e restaurato nel 1890.")
    driver.execute_script(  # row 5 just under the sticky header, the edited 6 below
        "window.scrollTo(0, document.getElementById('seg-5').offsetTop"
        " - document.querySelector('header').offsetHeight)"
    )
    save_png(driver, path)
    print(f"screenshot: {path} ({path.stat().st_size // 1024} KB)")


def served_screenshot(driver: Any, url: str, path: Path, reviewer: Reviewer) -> None:
    """The served page in a 1280×960 window scrolled to rows 5-6, row 6 (over its budget)
    having asked *shorter*: its new alternatives under the buttons."""
    size = driver.get_window_size()
    driver.set_window_size(1280, 960)
    load_clean(driver, url)
    ask(driver, 6, "shorter")
    driver.execute_script(  # row 5 just under the sticky header
        "window.scrollTo(0, document.getElementById('seg-5').offsetTop"
        " - document.querySelector('header').offsetHeight)"
    )
    save_png(driver, path)
    driver.set_window_size(size["width"], size["height"])
    reviewer.budgets = budgets_of(reviewer.source, reviewer.opts)  # the walk starts afresh
    print(f"served screenshot: {path} ({path.stat().st_size // 1024} KB)")


def tile(doc: Document, result: TranslationResult, n: int) -> tuple[Document, list[Any]]:
    """`n` cues: the translated cues and their results repeated, timings shifted."""
    k = len(doc.segments)
    span = max(s.end_ms or 0 for s in doc.segments) + 1000
    segs, results = [], []
    for i in range(n):
        seg, r = result.document.segments[i % k], result.segments[i % k]
        shift = (i // k) * span
        segs.append(dataclasses.replace(seg, index=i, id=str(i + 1), start_ms=(seg.start_ms or 0) + shift,
                                        end_ms=(seg.end_ms or 0) + shift, timing=None))  # fmt: skip
        results.append(dataclasses.replace(r, index=i, id=str(i + 1)))
    big = dataclasses.replace(result.document, segments=tuple(segs), gaps=())
    return big, results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cues", type=int, default=2000)
    ap.add_argument("--screenshot", type=Path, default=None)
    ap.add_argument("--served-screenshot", type=Path, default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fitsub-review-bench-"))
    downloads = work / "downloads"
    downloads.mkdir()
    src = work / "lecture.srt"
    shutil.copyfile(ROOT / "samples" / "lecture.srt", src)
    out, page = work / "lecture.it.srt", work / "lecture.html"
    t0 = time.perf_counter()
    translate_cli(src, out, page, args.model, args.threads)
    print(f"translated {src.name} (fitsub translate --ratio 1.0 --review): "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    pristine = work / "pristine.srt"
    shutil.copyfile(out, pristine)
    driver = driver_for(downloads)
    server = None
    try:
        if args.screenshot is not None:
            static_screenshot(driver, page, args.screenshot)
        walks = {}
        for mode in (TYPE, CHOOSE):
            shutil.copyfile(pristine, out)  # the translation as it was, for every walk
            for old in downloads.iterdir():
                old.unlink()
            walks[mode] = review_session(driver, page, downloads, out, mode)
            print(f"60-cue review, {mode}: {walks[mode]}")
        shutil.copyfile(pristine, out)
        for old in downloads.iterdir():
            old.unlink()
        server, url, reviewer, started = serve(out, src, args.threads)
        print(f"served (fitsub review --serve, in-process): model loaded in {started['load_s']:.1f} s,"
              f" its warm-up re-translation {started['warm_up_s']:.2f} s")  # fmt: skip
        if args.served_screenshot is not None:
            served_screenshot(driver, url, args.served_screenshot, reviewer)
        answers = len(reviewer.seconds)
        walks[SERVED] = review_session(driver, url, downloads, out, SERVED)
        print(
            f"60-cue review, served, asking the model where no alternative serves: {walks[SERVED]}"
        )
        walk_server = reviewer.seconds[answers:]
        walk_cpu = reviewer.cpu[answers:]
        answers = len(reviewer.seconds)
        over_http = http_times(url, reviewer)
        http_cpu = reviewer.cpu[answers:]
        print(f"keys (clicks counted as keys): typing {walks[TYPE]['total']}, choosing "
              f"{walks[CHOOSE]['total']}, served {walks[SERVED]['total']} (target <= 60)")  # fmt: skip
        print(f"re-translation in the walk (click to answer shown): "
              f"{[a['s'] for a in walks[SERVED]['asked']]} s; the server's part "
              f"{[round(t, 2) for t in walk_server]} s, its CPU {[round(t, 2) for t in walk_cpu]} s")  # fmt: skip
        print(
            f"re-translation, warm, one *shorter* per one-line cue over HTTP: wall {spread(over_http)}"
        )
        print(f"   the server's CPU per request: {spread(http_cpu)}")
        print(f"   wall, each: {[round(t, 2) for t in over_http]}")
        print(f"   CPU, each: {[round(t, 2) for t in http_cpu]}")
        shutil.copyfile(pristine, out)
        cold = cold_serve(out, src, args.threads)
        print(f"fitsub review --serve as a new process: the URL after {cold['to_url_s']:.1f} s "
              f"({cold['to_url_cpu_s']:.1f} s CPU: the model loaded and warmed); then *shorter* on "
              f"the rows of FIXES: the first (cold) {cold['wall_s'][0]:.2f} s "
              f"({cold['cpu_s'][0]:.2f} s CPU), then {[round(t, 2) for t in cold['wall_s'][1:]]} s "
              f"({[round(t, 2) for t in cold['cpu_s'][1:]]} s CPU)")  # fmt: skip
        with open("/proc/loadavg") as f:
            print(f"load average: {f.read().split()[:3]}")
        if args.cues <= 0:
            return
        doc = load_input(src)
        result = translate_document(doc, reviewer.backend, reviewer.opts)
        big_doc, big_results = tile(doc, result, args.cues)
        big = work / "big.html"
        write_review(
            big,
            big_doc,
            big_results,
            "big",
            lang="it",
            limits=reviewer.opts.limits,
            output=work / "big.it.srt",
        )
        load(driver, page)  # a file page's renderer (the served page's was another process)
        driver.execute_cdp_cmd("Performance.enable", {})
        cpu, loads = [], []
        for _ in range(3):  # the renderer's CPU seconds per load: independent of other jobs
            before = renderer_cpu(driver)
            loads.append(load(driver, big))
            cpu.append(renderer_cpu(driver) - before)
        usable = statistics.median(x[0] for x in loads)
        complete = statistics.median(x[1] for x in loads)
        per_key = driver.execute_script(
            "var b = document.querySelector('#seg-1000 textarea'), t = performance.now();"
            "for (var i = 0; i < 50; i++) { b.value += 'x'; b.dispatchEvent(new Event('input')); }"
            "return (performance.now() - t) / 50;"
        )
        per_filter = driver.execute_script(
            "var c = document.getElementById('only-flagged'), t = performance.now();"
            "for (var i = 0; i < 10; i++) { c.click(); } return (performance.now() - t) / 10;"
        )
        size = big.stat().st_size
        before = renderer_cpu(driver)
        small = load(driver, page)
        small_cpu = renderer_cpu(driver) - before
        print(f"{args.cues}-cue page: {size / 1e6:.2f} MB; first screen usable {usable:.2f} s, "
              f"every row built {complete:.2f} s (median of 3: {loads}); keystroke {per_key:.1f} ms;"
              f" filter {per_filter:.0f} ms; renderer CPU per load {[round(x, 2) for x in cpu]} s;"
              f" the 60-cue page: {small}, CPU {small_cpu:.2f} s")  # fmt: skip
        with open("/proc/loadavg") as f:
            print(f"load average while measuring: {f.read().split()[:3]}")
    finally:
        driver.quit()
        if server is not None:
            server.shutdown()
            server.server_close()


def renderer_cpu(driver: Any) -> float:
    """CPU seconds the page's renderer process has used (Chromium's `ProcessTime`)."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "ProcessTime"))


if __name__ == "__main__":
    main()
