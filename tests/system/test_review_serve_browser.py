"""`fitsub review --serve` in headless Chromium: ask the server for a shorter line, pick one of
the answer's alternatives by its key, export and `fitsub apply`. The server is bound to
127.0.0.1 on a free port in a thread, with the n-best toy backend (no model).

Needs Chromium and its driver (as tests/system/test_review_browser.py); skipped without them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run
from doubles import NBestToyBackend
from review_helpers import translate_with_review, use_toy_backend

from fitsub.cli.documents import load_input
from fitsub.cli.run_settings import read_run_settings
from fitsub.cli.translation import resolve_run
from fitsub.review.page import served_page
from fitsub.review.serve import Reviewer, make_server, url_of


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    use_toy_backend(monkeypatch, NBestToyBackend)


def _serve(out: Path, src: Path) -> tuple[Any, str]:
    flags, page = read_run_settings(out, device="cpu", threads=1)
    opts, backend = resolve_run(flags).with_model()
    reviewer = Reviewer(
        source=load_input(src), translated=load_input(out), backend=backend, opts=opts
    )
    html = served_page(page.read_text(encoding="utf-8"), reviewer.translated, reviewer.source)
    server, token = make_server(html, reviewer, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server, token)


def _wait(condition: Any, what: str, timeout_s: float = 20.0) -> None:
    start = time.perf_counter()
    while not condition():
        assert time.perf_counter() - start < timeout_s, what
        time.sleep(0.05)


def test_ask_shorter_pick_export_and_apply(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    out = translate_with_review(tmp_path)
    src = tmp_path / "talk.srt"
    server, url = _serve(out, src)
    try:
        browser.get(url)
        ready = "return document.body.getAttribute('data-ready')"
        _wait(lambda: browser.execute_script(ready) == "1", "the served page did not load")
        box = browser.find_element("css selector", "#seg-5 textarea")
        assert box.get_attribute("value") == "Noi andiamo casa adesso."
        asks = browser.find_elements("css selector", "#seg-5 button.ask")
        assert [b.text for b in asks] == ["shorter", "longer", "term\u2026"]
        asks[0].click()
        note = browser.find_element("css selector", "#seg-5 .asked")
        _wait(lambda: note.text.startswith(("asked", "not answered")), "no answer")
        assert note.text.startswith("asked 22 chars"), note.text
        alts = browser.find_elements("css selector", "#seg-5 .alts button.alt")
        assert alts, "the answer brought no alternative"
        first = alts[0].get_attribute("data-text")
        ActionChains(browser).send_keys("1").perform()  # outside the text box: take it
        assert box.get_attribute("value") == first
        assert len(first) <= 22
        browser.find_element("id", "export").click()
        exported = tmp_path / "downloads" / "talk.it.edits.json"
        _wait(exported.exists, "the export was not saved")
        assert run(["apply", str(exported), str(out), "--source", str(src)]) == 0
        assert out.read_text(encoding="utf-8").split("\n\n")[5].split("\n")[2] == first
        ActionChains(browser).send_keys("-").perform()  # the key asks again, shorter still
        _wait(lambda: note.text.startswith("asked 2"), "the key asked nothing")
        asks[2].click()  # a forced term, at the row's budget
        prompt = browser.switch_to.alert
        prompt.send_keys("home = dimora")
        prompt.accept()
        budget = browser.execute_script(
            "return JSON.parse(document.getElementById('fitsub-data').textContent).rows[5].budget"
        )
        _wait(lambda: note.text.startswith(f"asked {budget} chars"), "the term asked nothing")
        errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        assert not errors, errors
    finally:
        server.shutdown()
        server.server_close()
