"""The web board in a real browser: ``tawla serve`` on loopback, headless Chromium driven by
Selenium, a 1-point match against a bot played to the end by tapping lit checkers and lit
points (and, to keep the test short, by picking whole moves from the list after a few turns).

Runs under CI=true (``.ci/run`` installs Debian's chromium and chromium-driver); elsewhere it
is skipped with a reason when Chromium, its driver or Selenium is missing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from browser_helpers import chrome, need_browser
from conftest import require_module

TAPPED_TURNS = 3
"""Turns of ours played checker by checker through the board before the move list takes over."""
GAME_SECONDS = 90
"""Wall-clock bound on the match (a bounded loop besides)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    need_browser()
    require_module("httpx")
    require_module("fastapi")
    from service_helpers import Server
    d = tmp_path_factory.mktemp("browser")
    s = Server(f"sqlite:///{d / 'browser.db'}", cwd=str(d)).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def driver():
    drv = chrome()
    yield drv
    drv.quit()


def _body(drv) -> dict:
    return drv.execute_script("return Object.assign({}, document.body.dataset)")


def _wait(drv, cond, what: str, timeout: float = 15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}; body {_body(drv)}; error {drv.find_element('id', 'error').text!r}")


def _visible(drv, element_id: str):
    el = drv.find_element("id", element_id)
    return el if el.is_displayed() else None


def _click_when_changed(drv, el) -> None:
    """Click and wait for the board to be redrawn (its version or selection to change)."""
    before = drv.execute_script("return document.getElementById('board').innerHTML.length + ':' + document.body.dataset.version")
    el.click()
    _wait(drv, lambda: drv.execute_script(
        "return document.getElementById('board').innerHTML.length + ':' + document.body.dataset.version") != before
        or drv.find_element("id", "error").text, "the board to change")


def _tap_step(drv, shot: Path | None = None) -> bool:
    """Tap a lit checker, then a lit point (or the lit tray); False when none is lit. With
    ``shot``, a screenshot of the board showing the lit destinations."""
    lit = drv.find_elements("css selector", "#board circle.checker.lit")
    if not lit:
        return False
    _click_when_changed(drv, lit[0])
    targets = _wait(drv, lambda: drv.find_elements("css selector", "#board circle.target"),
                    "lit points after selecting a checker")
    if shot is not None:
        drv.save_screenshot(str(shot))
    _click_when_changed(drv, targets[0])
    return True


def test_play_a_match_against_the_bot_to_the_end(server, driver, tmp_path):
    from selenium.webdriver.support.ui import Select
    t0 = time.monotonic()
    driver.get(server.url + "/")
    name = driver.find_element("id", "name")
    name.clear()
    name.send_keys("Ann")
    Select(driver.find_element("id", "ruleset")).select_by_value("backgammon")
    length = driver.find_element("id", "length")
    length.clear()
    length.send_keys("1")
    driver.find_element("id", "play-bot").click()
    _wait(driver, lambda: _body(driver).get("phase") not in (None, "setup", "waiting"), "the match to start")
    assert driver.find_element("css selector", "#board svg.tawla-board")

    our_turns = tapped_steps = 0
    for _ in range(3000):
        assert time.monotonic() - t0 < GAME_SECONDS, f"the match did not end in {GAME_SECONDS} s"
        b = _body(driver)
        if b["phase"] == "over":
            break
        if b["toAct"] != b["you"]:
            time.sleep(0.05)              # the bot's turn: the page polls
            continue
        if b["phase"] == "roll" and _visible(driver, "roll"):
            our_turns += 1
            _click_when_changed(driver, driver.find_element("id", "roll"))
        elif b["phase"] == "double" and _visible(driver, "take"):
            _click_when_changed(driver, driver.find_element("id", "take"))
        elif b["phase"] == "resign" and _visible(driver, "accept"):
            _click_when_changed(driver, driver.find_element("id", "accept"))
        elif b["phase"] == "move":
            step_shot = tmp_path / "browser_step.png" if tapped_steps == 0 else None
            if our_turns <= TAPPED_TURNS and _tap_step(driver, step_shot):
                tapped_steps += 1
            elif _visible(driver, "confirm"):
                _click_when_changed(driver, driver.find_element("id", "confirm"))
            elif _visible(driver, "pass"):
                _click_when_changed(driver, driver.find_element("id", "pass"))
            elif _visible(driver, "move-list"):
                _click_when_changed(driver, driver.find_element("id", "play-move"))
            else:
                time.sleep(0.05)
        else:
            time.sleep(0.05)
    else:
        raise AssertionError("the match did not end within the loop bound")

    _wait(driver, lambda: "Match over" in driver.find_element("id", "status").text, "the final status")
    assert tapped_steps >= 2, "the lit checkers and points were not played"
    assert _body(driver)["winner"] in ("0", "1")
    assert driver.execute_script("return game.socket && game.socket.readyState") == 1   # the room's WebSocket is open
    shot = tmp_path / "browser_match_over.png"
    driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("TAWLA_SCREENSHOTS")
    if keep:                              # copies for the docs: TAWLA_SCREENSHOTS=docs
        for f in (shot, tmp_path / "browser_step.png"):
            Path(keep, f.name).write_bytes(f.read_bytes())


@pytest.mark.parametrize("ruleset", ["adi", "mahbusa", "tawla31", "tawla31-saharat"])
def test_every_ruleset_starts_on_the_board(server, driver, ruleset):
    """The page opens a room of each ruleset against a bot and draws its board (tawla.svg)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import Select
    driver.get(server.url + "/")
    Select(driver.find_element("id", "ruleset")).select_by_value(ruleset)
    driver.find_element("id", "play-bot").click()
    def sides():  # the board is drawn again on every move of the bot: read it in one go, again if it went stale
        try:
            return [c.get_attribute("data-side") for c in driver.find_elements(
                "css selector", f"#board svg[data-ruleset='{ruleset}'] circle.checker")]
        except StaleElementReferenceException:
            return None

    drawn = _wait(driver, sides, f"a {ruleset} board")
    assert len(drawn) >= 10 and set(drawn) == {"on-roll", "opponent"}
    assert _body(driver)["phase"] in ("roll", "move", "double")
