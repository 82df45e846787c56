"""Headless Chromium for the review page tests (Selenium); skips the test when none is here."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

INSTALL = "apt-get install chromium chromium-driver (or `make browser`), pip install selenium"


def find_browser() -> tuple[str, str] | str:
    """(chromium, chromedriver) paths, or why none can be used."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return f"selenium is not installed ({INSTALL})"
    binary = os.environ.get("FITSUB_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    driver = os.environ.get("FITSUB_CHROMEDRIVER") or shutil.which("chromedriver")
    if binary is None or driver is None:
        return f"no Chromium / chromedriver on PATH ({INSTALL})"
    return binary, driver


def chromium(downloads: Path | None = None, width: int = 1400, height: int = 900) -> Any:
    """A headless Chromium session (downloads into `downloads`); skips the test when none."""
    found = find_browser()
    if isinstance(found, str):
        pytest.skip(f"review page browser test skipped: {found}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--disable-extensions"):  # fmt: skip
        options.add_argument(arg)
    if downloads is not None:
        options.add_experimental_option(
            "prefs",
            {"download.default_directory": str(downloads), "download.prompt_for_download": False},
        )
    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    except Exception as err:  # noqa: BLE001 - a browser that cannot start is no test failure
        pytest.skip(f"review page browser test skipped: Chromium did not start ({err})")
    if downloads is not None:
        driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
        )
    return driver


def loaded(driver: Any, page: Path, timeout_s: float = 10.0) -> float:
    """Open `page` and wait until its script has built the table; the seconds it took."""
    start = time.perf_counter()
    driver.get(page.resolve().as_uri())
    while driver.execute_script("return document.body.getAttribute('data-ready')") != "1":
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert not errors, errors
        assert time.perf_counter() - start < timeout_s, "the review page did not finish loading"
        time.sleep(0.02)
    return time.perf_counter() - start


@contextmanager
def browser_in(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium downloading into tmp_path/downloads, quit afterwards (or a skip)."""
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = chromium(downloads)
    try:
        yield driver
    finally:
        driver.quit()
