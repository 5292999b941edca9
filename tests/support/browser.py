"""Headless Chromium through WebDriver, from Debian's `chromium` and `chromium-driver` packages.

The driver path is passed explicitly, so Selenium Manager never looks for (or downloads) a
browser or driver of its own. Without the two binaries the tests that need them are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WINDOW = (1280, 1000)
PAGE_LOAD_TIMEOUT_S = 30

# Headless, and nothing that phones home: on a closed network Chromium's background
# connections are refused, and the session stalls without these.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)

SKIP_REASON = (
    "headless Chromium is not installed: apt-get install chromium chromium-driver "
    "(.ci/run installs them)"
)


def browser_available() -> bool:
    return CHROMIUM.is_file() and CHROMEDRIVER.is_file()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A fresh headless Chromium (its own profile directory), quit after the test."""
    if not browser_available():
        pytest.skip(SKIP_REASON)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    service = Service(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT_S)
    try:
        yield driver
    finally:
        driver.quit()


def click_and_load(driver: Any, element: Any) -> None:
    """Click ``element`` (a form's button or a link) and wait, bounded, for the next page: a mark
    set on the old page's window is gone once the browser has loaded another document. (Waiting
    for the old root to go stale races the navigation: Chromium may answer mid-way with an
    inspector error instead of a stale element.)"""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.wait import WebDriverWait

    driver.execute_script("window.__hindsightOldPage = true;")
    element.click()

    def loaded(d: Any) -> bool:
        return bool(
            d.execute_script(
                "return window.__hindsightOldPage === undefined"
                " && document.readyState === 'complete';"
            )
        )

    WebDriverWait(driver, PAGE_LOAD_TIMEOUT_S, ignored_exceptions=(WebDriverException,)).until(
        loaded
    )
