"""The review page: keys to review a 60-cue file, and size / load time of a 2,000-cue page.

1. Translates `samples/lecture.srt` (60 cues) with the shipped en-it model (`--threads`), writes
   the review page, and walks it in headless Chromium as a subtitler would: Alt+↓ to each line
   to look at, a fix typed where the line needs one (`FIXES`, by source text; select-all and
   retype, counted key by key), Export and Copy (the `fitsub apply` command the page shows),
   then `fitsub apply` on the download. Prints the keys (`keys`: a chord such as Alt+↓ counts
   one; `presses`: every key pressed, Alt+↓ two) and clicks spent and how many edited lines end
   within every limit. Then the same walk choosing instead of typing where the page offers an
   alternative a subtitler would take as the fix (`ACCEPT`): Esc, then its key.
2. Tiles the 60 translated cues into a `--cues` (2,000) cue document, writes its page, and
   measures the file size, the load time in headless Chromium (navigation to table built,
   median of 3) and the cost of one keystroke and of one filter change on that page.
3. `--screenshot PATH`: a PNG of the 60-cue page, one line edited past its budget (the README's).

Needs Chromium + chromedriver and selenium (`make browser`). Run:
`OMP_NUM_THREADS=1 python bench/review_page.py --threads 1 --screenshot docs/review.png`.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from browser_helpers import find_browser  # noqa: E402

from fitsub.budget import limits_for  # noqa: E402
from fitsub.cli import main as fitsub_main  # noqa: E402
from fitsub.document import Document  # noqa: E402
from fitsub.formats import read_document, write_document  # noqa: E402
from fitsub.nmt.backend import NMTBackend, resolve_model_dir  # noqa: E402
from fitsub.pipeline import TranslateOptions, TranslationResult, translate_document  # noqa: E402
from fitsub.review.tsv import write_review  # noqa: E402

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


def load(driver: Any, page: Path) -> tuple[float, float]:
    """Open `page`: seconds from navigation to the first screen usable, and to every row built
    (the page's own clock)."""
    driver.get("about:blank")
    driver.get(page.resolve().as_uri())
    get = "return document.body.getAttribute('data-complete-ms')"
    while driver.execute_script(get) is None:
        time.sleep(0.02)
    ready = driver.execute_script("return document.body.getAttribute('data-ready-ms')")
    return float(ready) / 1000, float(driver.execute_script(get)) / 1000


def translate(
    src: Path, model: str | None, threads: int
) -> tuple[Document, TranslationResult, TranslateOptions]:
    torch.set_num_threads(threads)
    doc = read_document(src)
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.0)
    backend = NMTBackend(
        resolve_model_dir(None if model is None else Path(model), "en", "it"), device="cpu"
    )
    return doc, translate_document(doc, backend, opts), opts


def offered(row: dict[str, Any], fix: str) -> str | None:
    """The key of what the page offers for `row` (an alternative, 1-4; the unconstrained
    translation, 0) that a subtitler would take as `fix` (`ACCEPT`), or None."""
    good = {" ".join(t.split()) for t in {fix} | ACCEPT.get(row["src"], set())}
    keys = [(str(k + 1), a["text"]) for k, a in enumerate(row["alts"])]
    fits = row["unc_alt"] is not None and row["unc_alt"]["fits"]  # over budget: no fix
    keys += [("0", row["unc_fit"])] if fits else []
    return next((key for key, text in keys if " ".join(text.split()) in good), None)


def review_session(
    driver: Any, page: Path, downloads: Path, out: Path, choose: bool = False
) -> dict[str, Any]:
    """Walk every line to look at with Alt+↓, type the fixes (`choose`: pick an alternative
    instead where the page offers one that serves: Esc, then its key), export, apply."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    load(driver, page)
    rows = driver.execute_script(
        "return JSON.parse(document.getElementById('fitsub-data').textContent).rows"
    )
    keys = presses = clicks = visited = fixed = chosen = 0
    offers = 0  # rows visited that offer a fitting alternative
    left: list[str] = []
    while True:
        before = driver.execute_script(
            "return document.activeElement.closest && document.activeElement.closest('.row') ? document.activeElement.closest('.row').id : ''"
        )
        ActionChains(driver).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(
            Keys.ALT
        ).perform()
        keys += 1
        presses += 2
        now = driver.execute_script(
            "return document.activeElement.closest && document.activeElement.closest('.row') ? document.activeElement.closest('.row').id : ''"
        )
        if not now or now == before:
            keys -= 1  # the last press found nothing more
            presses -= 2
            break
        visited += 1
        row = rows[int(now.split("-")[1])]
        offers += any(a["kind"] != "unconstrained" for a in row["alts"])
        fix = FIXES.get(row["src"])
        if fix is None:
            left.append(row["src"])
            continue
        key = offered(row, fix) if choose else None
        if key is not None:
            ActionChains(driver).send_keys(Keys.ESCAPE).send_keys(key).perform()
            keys += 2
            presses += 2
            fixed += 1
            chosen += 1
            continue
        box = driver.switch_to.active_element
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(fix)
        keys += 1 + len(fix)
        presses += 2 + len(fix)
        fixed += 1
    driver.find_element("id", "export").click()
    driver.find_element("id", "copy-cmd").click()
    clicks += 2
    name = driver.execute_script(
        "return JSON.parse(document.getElementById('fitsub-data').textContent).meta.edits_name"
    )
    exported = downloads / name
    for _ in range(200):
        if exported.exists():
            break
        time.sleep(0.05)
    code = 0
    try:
        fitsub_main(["apply", str(exported), str(out), "-q", "--strict"])
    except SystemExit as exc:
        code = int(exc.code or 0)  # 3: an edited line still breaks a limit
    return {"flagged_rows": sum(1 for r in rows if r["flags"]), "visited": visited, "fixed": fixed,
            "chosen": chosen, "visited_with_alternatives": offers,
            "left_as_is": left, "keys": keys, "presses": presses, "clicks": clicks, "apply_exit": code}  # fmt: skip


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
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fitsub-review-bench-"))
    downloads = work / "downloads"
    downloads.mkdir()
    src = ROOT / "samples" / "lecture.srt"
    t0 = time.perf_counter()
    doc, result, opts = translate(src, args.model, args.threads)
    print(f"translated {src.name}: {len(doc.segments)} cues in {time.perf_counter() - t0:.1f} s")
    out = work / "lecture.it.srt"
    write_document(result.document, out)
    page = work / "lecture.html"
    common = {"source": doc, "limits": opts.limits, "lang": "it"}
    write_review(
        page, result.document, result.segments, "lecture.srt → lecture.it.srt", output=out, **common
    )  # type: ignore[arg-type]
    driver = driver_for(downloads)
    try:
        if args.screenshot is not None:
            from selenium.webdriver.common.keys import Keys

            load(driver, page)
            box = driver.find_element("css selector", "#seg-6 textarea")
            box.click()
            box.send_keys(Keys.CONTROL, Keys.END)
            box.send_keys(" nel 1652, restaurato nel 1890")
            driver.execute_script(  # row 4 just under the sticky header
                "window.scrollTo(0, document.getElementById('seg-3').offsetTop"
                " - document.querySelector('header').offsetHeight)"
            )
            driver.save_screenshot(str(args.screenshot))
            print(f"screenshot: {args.screenshot} ({args.screenshot.stat().st_size // 1024} KB)")
        session = review_session(driver_for_clean(driver, downloads), page, downloads, out)
        print(f"60-cue review, typing every fix: {session}")
        write_document(result.document, out)  # the translation as it was, for the second walk
        for old in downloads.iterdir():
            old.unlink()
        session = review_session(driver_for_clean(driver, downloads), page, downloads, out, True)
        print(f"60-cue review, choosing where an alternative serves: {session}")
        if args.cues <= 0:
            return
        big_doc, big_results = tile(doc, result, args.cues)
        big = work / "big.html"
        write_review(
            big,
            big_doc,
            big_results,
            "big",
            lang="it",
            limits=opts.limits,
            output=work / "big.it.srt",
        )
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


def renderer_cpu(driver: Any) -> float:
    """CPU seconds the page's renderer process has used (Chromium's `ProcessTime`)."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "ProcessTime"))


def driver_for_clean(driver: Any, downloads: Path) -> Any:
    """The same session with the page's saved edits (localStorage) cleared."""
    driver.execute_script("try { localStorage.clear(); } catch (e) {}")
    return driver


if __name__ == "__main__":
    main()
