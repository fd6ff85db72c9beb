"""Headless Chromium (Debian's chromium and chromium-driver) driven by Selenium, for the
web display tests. Skips when the browser is missing, unless CI requires it."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def open_browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        message = "Debian's chromium and chromium-driver are not installed"
        if os.environ.get("DAMAS_REQUIRE_BROWSER") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="damas-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic",
                 f"--user-data-dir={profile}", "--window-size=1200,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)
