"""Headless Chromium for the browser tests: Debian's chromium and chromium-driver (``.ci/run``
installs them), driven by Selenium. Under CI=true a missing browser is a failure; elsewhere
the test is skipped with the reason."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import IN_CI, require_module

__all__ = ["CHROMEDRIVER", "need_browser", "chrome"]

CHROMEDRIVER = "/usr/bin/chromedriver"


def need_browser() -> str:
    """The Chromium binary; skips (fails under CI) without it, its driver or Selenium."""
    require_module("selenium")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not (chromium and os.path.exists(CHROMEDRIVER)):
        msg = "headless Chromium (apt-get install chromium chromium-driver) is not installed"
        if IN_CI:
            pytest.fail(msg + "; under CI the browser tests must run")
        pytest.skip(msg)
    return chromium


def chrome(width: int = 900, height: int = 1000):
    """A new headless Chromium session (``--headless=new --no-sandbox``); the caller quits it."""
    chromium = need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    opts.binary_location = chromium
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.set_page_load_timeout(30)
    return drv
