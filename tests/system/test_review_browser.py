"""The review page in a real browser (headless Chromium through Selenium): edit against the live
limits, export, `fitsub apply`; and a subtitle's markup never runs.

Needs Chromium and its driver (Debian: `apt-get install chromium chromium-driver`; `make
browser` tries) and the `selenium` package (the dev extra). Where either is missing the tests
are skipped, saying which.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import loaded
from cli_helpers import run
from doubles import NBestToyBackend
from review_helpers import translate_with_review, use_toy_backend


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    use_toy_backend(monkeypatch)


def meter(driver: Any, row: int, kind: str) -> tuple[str, str]:
    """(text, class) of one live counter of row `row` (kind: chars, line, cps)."""
    span = driver.find_element("css selector", f"#seg-{row} .meter [data-k={kind}]")
    return span.text, span.get_attribute("class")


def retype(driver: Any, box: Any, text: str) -> None:
    from selenium.webdriver.common.keys import Keys

    box.click()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    box.send_keys(text)


def test_edit_past_the_budget_turns_red_fix_export_and_apply(tmp_path: Path, browser: Any) -> None:
    out = translate_with_review(tmp_path)
    loaded(browser, tmp_path / "review.html")
    box = browser.find_element("css selector", "#seg-5 textarea")  # "We go home now." (cue 6)
    assert box.get_attribute("value") == "Noi andiamo casa adesso."
    budget = int(meter(browser, 5, "chars")[0].split("/")[1])
    retype(browser, box, "Noi adesso andiamo tutti insieme a casa nostra.")  # 47 characters
    text, cls = meter(browser, 5, "chars")
    assert text == f"chars 47/{budget}" and cls == "bad"
    assert "broken" in browser.find_element("id", "seg-5").get_attribute("class")
    line, cls = meter(browser, 5, "line")  # re-flowed on apply: two lines within 42
    assert re.fullmatch(r"line (\d+)/42 \u00d72/2", line) and cls == "ok", line
    note = browser.find_element("css selector", "#seg-5 .reflow").text
    assert note.startswith("re-flowed on apply:")
    box.send_keys(" E poi a letto, e poi a dormire, e domani a scuola.")  # 98: over 2 lines too
    assert meter(browser, 5, "line")[1] == "bad"
    retype(browser, box, "Andiamo a casa.")
    assert meter(browser, 5, "chars") == (f"chars 15/{budget}", "ok")
    assert "broken" not in browser.find_element("id", "seg-5").get_attribute("class")
    assert browser.find_element("id", "edit-count").text == "1 edited"
    browser.find_element("id", "export").click()
    exported = tmp_path / "downloads" / "talk.it.edits.json"
    for _ in range(100):
        if exported.exists():
            break
        time.sleep(0.05)
    before = out.read_text(encoding="utf-8").split("\n\n")
    assert run(["apply", str(exported), str(out), "--source", str(tmp_path / "talk.srt")]) == 0
    after = out.read_text(encoding="utf-8").split("\n\n")
    assert after[5].split("\n")[2] == "Andiamo a casa."
    assert after[:5] == before[:5]
    browser.save_screenshot(str(tmp_path / "review.png"))
    assert (tmp_path / "review.png").stat().st_size > 1000


def test_subtitle_markup_stays_text(tmp_path: Path, browser: Any) -> None:
    translate_with_review(tmp_path)
    loaded(browser, tmp_path / "review.html")
    assert browser.execute_script("return window.pwned === undefined")
    assert (
        browser.execute_script("return document.querySelectorAll('img, #rows script').length") == 0
    )
    shown = browser.find_element("css selector", "#seg-0 pre.src").text
    assert shown == "<script>window.pwned = 1</script> & <img src=x onerror=window.pwned=2> you"
    lines = browser.find_element("css selector", "#seg-1 pre.src").text
    assert lines == "<i>Yes, go home now\nand this is it.</i>"  # markup and line break shown


def test_a_script_that_got_into_the_page_does_not_run(tmp_path: Path, browser: Any) -> None:
    translate_with_review(tmp_path)
    page = tmp_path / "review.html"
    html = page.read_text(encoding="utf-8")  # as if the escaping had failed somewhere
    injected = '<script>window.pwned = 3</script><img src=x onerror="window.pwned = 4">'
    page.write_text(html.replace('<main id="rows">', injected + '<main id="rows">'), "utf-8")
    browser.get(page.resolve().as_uri())
    for _ in range(200):
        if browser.execute_script("return document.body.getAttribute('data-ready')") == "1":
            break
        time.sleep(0.02)
    assert browser.execute_script("return document.body.getAttribute('data-ready')") == "1"
    assert browser.execute_script("return window.pwned === undefined")  # the page's own ran
    refused = [e["message"] for e in browser.get_log("browser")]
    assert any("Content Security Policy" in m for m in refused), refused


def test_keys_walk_the_flagged_lines_and_filters_hide_the_rest(
    tmp_path: Path, browser: Any
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    translate_with_review(tmp_path)
    loaded(browser, tmp_path / "review.html")
    flagged = browser.execute_script(  # errors and over budget; timing-only rows skipped
        "return Array.from(document.querySelectorAll("
        "'.row.sev-error, .row.sev-budget, .row.broken')).map(r => r.id)"
    )
    assert flagged and "seg-5" not in flagged  # cue 6 fits and carries no flag
    visited = []
    for _ in flagged:
        ActionChains(browser).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(
            Keys.ALT
        ).perform()
        visited.append(browser.execute_script("return document.activeElement.closest('.row').id"))
    assert visited == flagged
    ActionChains(browser).key_down(Keys.ALT).send_keys("u").key_up(Keys.ALT).perform()
    last = int(flagged[-1].split("-")[1])
    value = browser.execute_script("return document.activeElement.value")
    assert value.replace("\n", " ") == browser.execute_script(
        "return JSON.parse(document.getElementById('fitsub-data').textContent).rows[arguments[0]].unc",
        last,
    )
    browser.find_element("id", "only-flagged").click()
    hidden = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rows .row')).filter(r => r.hidden).map(r => r.id)"
    )
    assert "seg-5" in hidden and not set(hidden) & set(flagged[:-1])


def test_edits_survive_a_reload_until_exported(tmp_path: Path, browser: Any) -> None:
    translate_with_review(tmp_path)
    page = tmp_path / "review.html"
    loaded(browser, page)
    retype(browser, browser.find_element("css selector", "#seg-5 textarea"), "Andiamo.")
    loaded(browser, page)
    assert (
        browser.find_element("css selector", "#seg-5 textarea").get_attribute("value") == "Andiamo."
    )
    assert browser.find_element("id", "edit-count").text == "1 edited"
    browser.find_element("css selector", "#seg-5 button.reset").click()
    assert browser.find_element("id", "edit-count").text == "0 edited"


def test_an_alternative_chosen_by_key_and_by_click_is_exported_and_applied(
    tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    use_toy_backend(monkeypatch, NBestToyBackend)
    out = translate_with_review(tmp_path)
    loaded(browser, tmp_path / "review.html")
    box = browser.find_element("css selector", "#seg-5 textarea")  # "We go home now." (cue 6)
    keys = browser.execute_script(
        "return Array.from(document.querySelectorAll('#seg-5 button.alt')).map("
        "b => [b.getAttribute('data-key'), b.getAttribute('data-text')])"
    )
    # the text the row holds ("Noi andiamo casa adesso.", the unconstrained, kept) is key 0
    assert keys == [["1", "Noi andiamo casa"], ["2", "Ecco, Noi andiamo casa adesso."],
                    ["3", "andiamo casa adesso."]]  # fmt: skip
    box.click()
    box.send_keys("3")  # in the text box a digit is typed, not a choice
    assert box.get_attribute("value").replace("3", "", 1) == "Noi andiamo casa adesso."
    ActionChains(browser).send_keys(Keys.ESCAPE).send_keys("3").perform()  # Esc, then 3
    assert box.get_attribute("value") == "andiamo casa adesso."
    ActionChains(browser).send_keys("0").perform()  # the unconstrained translation
    assert box.get_attribute("value") == "Noi andiamo casa adesso."
    assert "edited" not in browser.find_element("id", "seg-5").get_attribute("class")
    ActionChains(browser).send_keys("3").perform()
    assert box.get_attribute("value") == "andiamo casa adesso."
    assert "edited" in browser.find_element("id", "seg-5").get_attribute("class")
    chosen = browser.find_element("css selector", "#seg-5 button.alt.on")
    assert chosen.get_attribute("data-key") == "3"
    assert meter(browser, 5, "chars")[0].startswith("chars 20/")  # counted as any edit
    browser.find_element("css selector", "#seg-1 button.alt[data-key='1']").click()  # a click
    first = browser.find_element("css selector", "#seg-1 textarea").get_attribute("value")
    assert first == "Sì, andiamo casa adesso e questo è"
    assert browser.find_element("id", "edit-count").text == "2 edited"
    browser.find_element("id", "export").click()
    exported = tmp_path / "downloads" / "talk.it.edits.json"
    for _ in range(100):
        if exported.exists():
            break
        time.sleep(0.05)
    edits = json.loads(exported.read_text(encoding="utf-8"))["edits"]
    assert [(e["id"], e["text"]) for e in edits] == [
        ("2", "Sì, andiamo casa adesso e questo è"),
        ("6", "andiamo casa adesso."),
    ]
    assert run(["apply", str(exported), str(out), "--source", str(tmp_path / "talk.srt")]) == 0
    cues = out.read_text(encoding="utf-8").split("\n\n")
    assert cues[5].split("\n")[2] == "andiamo casa adesso."
    assert cues[1].split("\n")[2] == "<i>Sì, andiamo casa adesso e questo è</i>"
