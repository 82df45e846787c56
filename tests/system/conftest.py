"""Fixtures the system tests share: a headless Chromium for the review page's browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import browser_in


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium downloading into tmp_path/downloads (the test skips without one)."""
    with browser_in(tmp_path) as driver:
        yield driver
