"""The review page as a subtitler keeps it open all day (headless Chromium through Selenium), on a
60-cue talk: the layout holds at 1366×768 and 1920×1080 (element boxes, not pixels), flags follow
an edit, a walk-through of four fixes in few keys, and a half-done edits file loaded back.

Skipped, saying why, where Chromium, its driver or selenium is missing (see
test_review_browser.py).
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import chromium, loaded
from cli_helpers import run
from review_helpers import talk_60, translate_with_review, use_toy_backend

# Every text, control and flag chip inside its cell; cells side by side; each column header on
# one line and whole; the header's items apart; no sideways scrolling. A list of problems.
OVERLAPS = """
const problems = [];
const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 &&
  a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
const apart = (a, b) => a.right <= b.left + 1 || b.right <= a.left + 1 ||
  a.bottom <= b.top + 1 || b.bottom <= a.top + 1;
const textRects = (node) => {
  const out = [], walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    if (!walk.currentNode.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(walk.currentNode);
    out.push(...Array.from(range.getClientRects()).filter((r) => r.width > 0));
  }
  return out;
};
let boxes = 0;
const rows = Array.from(document.querySelectorAll('.row.head, #rows .row')).filter((r) => !r.hidden);
for (const row of rows) {
  row.style.contentVisibility = 'visible';  // lay out the rows off screen too
  const cells = Array.from(row.children).map((c) => [c, c.getBoundingClientRect()]);
  cells.forEach(([cell, box], k) => {
    if (k && box.left < cells[k - 1][1].right - 0.5) problems.push(`${row.id}: cell ${k} overlaps ${k - 1}`);
    const items = textRects(cell).concat(Array.from(
      cell.querySelectorAll('textarea, button, .flag')).map((e) => e.getBoundingClientRect()));
    boxes += items.length;
    items.forEach((r) => { if (!inside(r, box)) problems.push(`${row.id || 'head'}: cell ${k} overflows`); });
  });
}
for (const cell of document.querySelectorAll('.row.head .cell')) {
  const lines = textRects(cell).length;
  if (lines !== 1 || cell.scrollWidth > cell.clientWidth) problems.push(`header ${cell.textContent}: ${lines} lines`);
}
const items = Array.from(document.querySelectorAll('.bar > *, .legend > *, .counts li'))
  .filter((e) => !e.classList.contains('legend')).map((e) => [e, e.getBoundingClientRect()]);
items.forEach(([a, ra], k) => items.slice(k + 1).forEach(([b, rb]) => {
  if (!a.contains(b) && !b.contains(a) && !apart(ra, rb)) problems.push(`header: ${a.textContent} / ${b.textContent}`);
}));
if (document.documentElement.scrollWidth > window.innerWidth) problems.push('sideways scroll');
return [problems, boxes];
"""


class Counted:
    """Keys and clicks sent to the page, counted as a person presses them (Alt+↓ is 2 keys)."""

    def __init__(self, driver: Any) -> None:
        self.driver, self.keys, self.clicks = driver, 0, 0

    def chord(self, *keys: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        chain = ActionChains(self.driver)
        for key in keys[:-1]:
            chain.key_down(key)
        chain.send_keys(keys[-1])
        for key in reversed(keys[:-1]):
            chain.key_up(key)
        chain.perform()
        self.keys += len(keys)

    def type(self, text: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(text).perform()
        self.keys += len(text)

    def click(self, element_id: str) -> None:
        self.driver.find_element("id", element_id).click()
        self.clicks += 1


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    use_toy_backend(monkeypatch)


@pytest.fixture
def talk(tmp_path: Path) -> Path:
    """The 60-cue talk translated with its review page; the translated file."""
    return translate_with_review(tmp_path, talk_60())


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    (tmp_path / "downloads").mkdir()
    driver = chromium(tmp_path / "downloads")
    try:
        yield driver
    finally:
        driver.quit()


def viewport(driver: Any, width: int, height: int) -> None:
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def row_state(driver: Any, row: int) -> tuple[list[str], list[str]]:
    """(the row's classes, its flag chips as "name" or "name (pending)")."""
    return driver.execute_script(
        "const r = document.getElementById('seg-' + arguments[0]);"
        "return [Array.from(r.classList), Array.from(r.querySelectorAll('.flag')).map("
        "f => f.textContent + (f.classList.contains('pending') ? ' (pending)' : ''))]",
        row,
    )


def focused_row(driver: Any) -> str:
    return driver.execute_script("return document.activeElement.closest('.row').id")


def downloaded(folder: Path, name: str) -> Path:
    path = folder / name
    for _ in range(200):
        if path.exists() and path.stat().st_size:
            return path
        time.sleep(0.05)
    raise AssertionError(f"{name} was not downloaded")


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768), (1920, 1080)])
def test_no_box_overlaps_at_laptop_and_desktop_sizes(
    tmp_path: Path, talk: Path, browser: Any, size: tuple[int, int]
) -> None:
    viewport(browser, *size)
    loaded(browser, tmp_path / "review.html")
    browser.execute_script("document.querySelector('#seg-3 textarea').focus()")
    browser.find_element("id", "export").click()  # the command line shown in the header too
    problems, boxes = browser.execute_script(OVERLAPS)
    assert problems == [] and boxes > 60 * 8
    source = browser.find_element("css selector", "#seg-17 pre.src")  # a link with no space
    assert browser.execute_script("return arguments[0].getClientRects().length", source) >= 1
    lines = browser.execute_script(
        "const r = document.createRange(); r.selectNodeContents(arguments[0].firstChild);"
        "return r.getClientRects().length",
        source,
    )
    assert lines >= 2  # wrapped inside its cell, not run over the next column
    browser.save_screenshot(str(tmp_path / f"review-{size[0]}.png"))


def test_rows_are_coloured_by_severity_and_the_header_counts_each(
    tmp_path: Path, talk: Path, browser: Any
) -> None:
    loaded(browser, tmp_path / "review.html")
    assert "sev-error" in row_state(browser, 3)[0]  # a number dropped
    assert "sev-budget" in row_state(browser, 12)[0]  # over its budget
    assert "sev-timing" in row_state(browser, 9)[0]  # "Sì." on screen half a second: muted
    assert row_state(browser, 0)[0] == ["row"]
    legend = browser.execute_script(
        "return Array.from(document.querySelectorAll('.legend [data-sev]')).map(e => e.textContent)"
    )
    assert legend == ["error 7", "over budget 3", "timing only 4"]
    counted = browser.execute_script(
        "return ['error', 'budget', 'timing'].map(s => document.querySelectorAll("
        "'#rows .row.sev-' + s).length)"
    )
    assert counted == [7, 3, 4]


def test_flags_follow_an_edit_and_the_score_says_it_is_not_rechecked(
    tmp_path: Path, talk: Path, browser: Any
) -> None:
    page = tmp_path / "review.html"
    html = page.read_text(encoding="utf-8")  # give row 4 a quality score (the toy has none)
    page.write_text(html.replace('"q":null', '"q":0.31', 4), encoding="utf-8")
    loaded(browser, page)
    assert row_state(browser, 3)[1] == ["number-changed", "dropped-content"]
    box = browser.find_element("css selector", "#seg-3 textarea")
    box.click()
    box.send_keys(" 10.")  # the number the fitting dropped, typed back
    classes, flags = row_state(browser, 3)
    assert flags == [] and "edited" in classes and "sev-error" not in classes  # no stale flag
    score = browser.find_element("css selector", "#seg-3 .score").text
    assert "not rechecked: the score needs the model" in score  # apply cannot score it again
    box.send_keys(" 11")  # a number the source does not have, and now 33 characters of 30
    assert row_state(browser, 3)[1] == ["number-changed", "over-budget"]
    detail = browser.find_element("css selector", "#seg-3 .flags .detail").text
    assert detail == "added 11" and "sev-error" in row_state(browser, 3)[0]
    link = browser.find_element("css selector", "#seg-17 textarea")  # dropped (a ratio) + too-small
    link.click()
    link.send_keys(" qui")
    assert row_state(browser, 17)[1] == ["dropped-content (pending)", "too-small"]
    budget = browser.find_element("css selector", "#seg-12 textarea")
    budget.click()
    budget.send_keys(" davvero")
    assert row_state(browser, 12)[1] == ["over-budget"]  # still over: recounted, 27 chars
    assert browser.find_element("css selector", "#seg-12 .flags .detail").text.startswith("27 ")


def test_four_fixes_in_few_keys_then_export_and_the_apply_command_runs(
    tmp_path: Path, talk: Path, browser: Any
) -> None:
    from selenium.webdriver.common.keys import Keys

    loaded(browser, tmp_path / "review.html")
    me = Counted(browser)
    alt_down = (Keys.ALT, Keys.ARROW_DOWN)
    me.chord(*alt_down)
    assert focused_row(browser) == "seg-3"  # the first error; the caret at the end
    me.type(" 10.")
    me.chord(*alt_down)
    assert focused_row(browser) == "seg-12"  # over budget
    me.chord(Keys.CONTROL, "a")
    me.type("Enorme.")
    me.chord(*alt_down)
    assert focused_row(browser) == "seg-13"  # rows 9 (too short only) skipped
    me.type(" 20.")
    me.chord(*alt_down)
    assert focused_row(browser) == "seg-17"  # a link: left as it is
    me.chord(*alt_down)
    assert focused_row(browser) == "seg-23"
    me.type(" 30.")
    assert browser.find_element("id", "edit-count").text == "4 edited"
    me.click("export")
    me.click("copy-cmd")
    assert (me.keys, me.clicks) == (31, 2)  # the target: at most 60 keys and 2 clicks
    (tmp_path / "walkthrough.json").write_text(json.dumps({"keys": me.keys, "clicks": me.clicks}))
    command = browser.find_element("id", "apply-cmd").get_attribute("value")
    words = shlex.split(command)
    assert words[:3] == ["fitsub", "apply", "~/Downloads/talk.it.edits.json"]
    assert words[3:] == [str(talk.resolve()), "--source", str((tmp_path / "talk.srt").resolve())]
    edits = downloaded(tmp_path / "downloads", "talk.it.edits.json")
    before = talk.read_text(encoding="utf-8").split("\n\n")
    assert run([words[1], str(edits), *words[3:]]) == 0
    after = talk.read_text(encoding="utf-8").split("\n\n")
    changed = [k for k in range(60) if after[k] != before[k]]
    assert changed == [3, 12, 13, 23]
    assert after[3].split("\n")[2] == "Noi andiamo casa adesso, e 10."
    assert after[12].split("\n")[2] == "Enorme."
    assert [c.split("\n")[:2] for c in after] == [c.split("\n")[:2] for c in before]


def test_a_half_done_file_loads_back_and_bad_files_change_nothing(
    tmp_path: Path, talk: Path, browser: Any
) -> None:
    page = tmp_path / "review.html"
    loaded(browser, page)
    for row, text in ((3, " 10."), (12, " ok")):
        browser.find_element("css selector", f"#seg-{row} textarea").send_keys(text)
    browser.find_element("id", "export").click()
    saved = downloaded(tmp_path / "downloads", "talk.it.edits.json")
    browser.execute_script("localStorage.clear()")  # the next day, in another browser
    loaded(browser, page)
    assert browser.find_element("id", "edit-count").text == "0 edited"
    browser.find_element("id", "load").send_keys(str(saved))
    note = browser.find_element("id", "load-note")
    for _ in range(100):
        if note.text:
            break
        time.sleep(0.05)
    assert note.text.startswith("loaded 2 edit(s) from talk.it.edits.json")
    assert browser.find_element("id", "edit-count").text == "2 edited"
    value = browser.find_element("css selector", "#seg-3 textarea").get_attribute("value")
    assert value == "Noi andiamo casa adesso, e 10." and row_state(browser, 3)[1] == []
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(browser).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(Keys.ALT).perform()
    assert focused_row(browser) == "seg-13"  # goes on after the last edit
    browser.find_element("css selector", "#seg-13 textarea").send_keys(" 20.")
    good = json.loads(saved.read_text(encoding="utf-8"))
    other = {**good, "fingerprint": {**good["fingerprint"], "structure": "0" * 64}}
    older = {**good, "version": 0}
    bad = {
        "other.json": (json.dumps(other), "holds the edits of another file"),
        "cut.json": (saved.read_text(encoding="utf-8")[:200], "is not valid JSON (truncated"),
        "older.json": (json.dumps(older), "another version of the review page"),
    }
    texts = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rows textarea')).map(b => b.value)"
    )
    for name, (content, says) in bad.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
        browser.execute_script("document.getElementById('load-note').textContent = ''")
        browser.find_element("id", "load").send_keys(str(tmp_path / name))
        for _ in range(100):
            if note.text:
                break
            time.sleep(0.05)
        assert says in note.text and note.text.endswith("nothing loaded, your edits are unchanged")
        assert "bad" in note.get_attribute("class")
        assert browser.find_element("id", "edit-count").text == "3 edited"
        assert texts == browser.execute_script(
            "return Array.from(document.querySelectorAll('#rows textarea')).map(b => b.value)"
        )


NUMBER_TEXTS = {
    "en": ["fifty thousand people at 3 pm", "twenty-one and two and three", "1,000 or 1.000 at 10:30",
           "one of us, two hundred and five", "at 7.00 or 12 am, 007 and 0"],
    "it": ["cinquantamila persone alle 15", "Grazie mille, ventuno", "sei tu? sei altre",
           "duecentocinque e dieci per cento", "tremila e due, 1.500.000"],
    "de": ["einundzwanzig Jahre, zweijährige", "tausend Dank", "fünfzigtausend und drei"],
    "fr": ["quatre-vingt-dix-neuf, vingt et un", "mille mercis", "un livre neuf, cent deux"],
    "es": ["treinta y dos, mil gracias", "doscientos cincuenta", "veintiuno y dos"],
}  # fmt: skip
CASES = Path(__file__).resolve().parents[1] / "fixtures" / "live_flags.json"


def test_the_pages_number_and_name_checks_read_as_the_python_flags(
    tmp_path: Path, talk: Path, browser: Any
) -> None:
    """`checks.js` reads numbers as `fitsub.quality.flags.numbers` does, and gives the flags of
    the shared cases (tests/unit/test_flag_registry.py runs the Python on them)."""
    from fitsub.quality.flags import numbers
    from fitsub.quality.numbers import reader_tables
    from fitsub.review.page.live import page_checks, row_checks

    loaded(browser, tmp_path / "review.html")
    for lang, texts in NUMBER_TEXTS.items():
        got = browser.execute_script(
            "const R = fitsubChecks.reader(arguments[0]);"
            "return arguments[1].map(t => fitsubChecks.numbers(t, R))",
            reader_tables(lang),
            texts,
        )
        assert got == [numbers(t, lang) for t in texts], lang
    row = row_checks("Anna met Marco at 10 and 12", "Anna ha incontrato Marco alle 10 e 12", "it")
    assert row == {"nums": ["10", "12"], "keep": ["10", "12"], "names": ["marco"]}
    cases = json.loads(CASES.read_text("utf-8"))["cases"]
    for case in cases:
        live = browser.execute_script(
            "const R = fitsubChecks.reader(arguments[0]);"
            "return fitsubChecks.liveFlags(arguments[1], arguments[2], arguments[3], R)",
            reader_tables(case["lang"]),
            page_checks(case["lang"])["live"],
            row_checks(case["source"], case["unconstrained"], case["lang"]),
            case["edited"],
        )
        assert live == case["flags"], case
