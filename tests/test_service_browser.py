"""The web board in a real browser: ``tawla serve`` on loopback, headless Chromium driven by
Selenium, a 1-point match against a bot played to the end by tapping lit checkers and lit
points (and, to keep the test short, by picking whole moves from the list after a few turns);
the clock, the opening roll and the lines for what the server played on a 1-second turn; a
spectator's view, a dropped socket and a coin table's grace period; a rated match's rating
changes. ``TAWLA_SCREENSHOTS=docs`` copies the screenshots to the docs.

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


def _keep(*shots: Path) -> None:
    """Copies of the screenshots for the docs: TAWLA_SCREENSHOTS=docs."""
    keep = os.environ.get("TAWLA_SCREENSHOTS")
    if keep:
        for f in shots:
            Path(keep, f.name).write_bytes(f.read_bytes())


def _text(drv, element_id: str) -> str:
    """The text of an element, "" while it is hidden."""
    return drv.execute_script(f"const e = document.getElementById('{element_id}'); return e.hidden ? '' : e.innerText")


def _setup(drv, url: str, name: str = "Ann", turn_seconds: str = "", rated: bool = False) -> None:
    """The setup form: a 1-point backgammon match against the bot."""
    drv.get(url + "/")
    for field, value in (("name", name), ("length", "1"), ("turn-seconds", turn_seconds)):
        el = drv.find_element("id", field)
        el.clear()
        el.send_keys(value)
    if rated:
        drv.find_element("id", "rated").click()
    drv.find_element("id", "play-bot").click()
    _wait(drv, lambda: _body(drv).get("phase") not in (None, "setup", "waiting"), "the match to start")


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
    _keep(shot, tmp_path / "browser_step.png")


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


FORCED = {"type": "turn", "t": 0, "player": 0, "dice": [6, 5], "move": "24/13", "how": "forced"}
"""A forced move for seat 0, added to the page's state to see its line."""


def test_clock_opening_roll_and_what_the_server_played(server, driver, tmp_path):
    """On 1-second turns the server rolls and moves for a player who does not: the clock counts
    down, the opening roll of the game is shown, and a line says what was played for him."""
    _setup(driver, server.url, turn_seconds="1")
    events = driver.execute_script("return game.state.match.events")
    opening = [e for e in events if e["type"] == "opening"]
    assert opening and opening[-1]["starter"] in (0, 1)
    d0, d1 = opening[-1]["dice"]
    line = _wait(driver, lambda: _text(driver, "opening"), "the opening roll")
    assert f"Game 1 · opening roll: Ann {d0}, " in line and f" {d1} — " in line
    bot = driver.execute_script("return game.state.seats[1].name")
    assert ("Ann", bot)[opening[-1]["starter"]] + " starts" in line
    if len(opening) > 1:
        assert "rerolled" in line
    clock = _wait(driver, lambda: _text(driver, "clock"), "the clock")
    assert clock.endswith(("0:01", "0:00")) and "clock" in clock
    note = _wait(driver, lambda: "Time ran out" in _text(driver, "notes") and _text(driver, "notes"),
                 "a line for the server's play", timeout=20)
    assert "for Ann" in note
    events = driver.execute_script("return game.state.match.events")
    assert any(e["type"] == "timeout" and e["player"] == 0 for e in events)
    shot = tmp_path / "browser_clock.png"
    driver.save_screenshot(str(shot))
    # a forced move in the log: its line, with the dice, as the page draws it
    drawn = driver.execute_script(
        "const s = game.state; render(Object.assign({}, s, {match: Object.assign({}, s.match, "
        "{events: s.match.events.concat([arguments[0]])})})); return document.getElementById('notes').innerText",
        FORCED)
    assert "Forced move for Ann (6-5): 24/13" in drawn
    driver.execute_script("act('leave')")           # ends the match: no more timeouts
    _wait(driver, lambda: _body(driver).get("phase") == "over", "the match to end")
    _wait(driver, lambda: _text(driver, "clock") == "", "the clock to go")
    _keep(shot)


def test_a_spectator_follows_and_a_player_reconnects(server, driver, tmp_path):
    """A second tab joins the full room as a spectator: it names the players, shows no action,
    and follows the match. The player's network drops, then his socket alone: the page says it
    is reconnecting, and is back on the same seat."""
    _setup(driver, server.url)
    player = driver.current_window_handle
    code = driver.execute_script("return game.code")
    driver.switch_to.new_window("tab")
    watcher = driver.current_window_handle
    try:
        driver.get(server.url + "/#room=" + code)
        driver.find_element("id", "join").click()
        _wait(driver, lambda: _body(driver).get("spectator") == "true" and _text(driver, "players"),
              "the spectator's view")
        bot = driver.execute_script("return game.state.seats[1].name")
        assert _text(driver, "players") == f"Watching: Ann (white) vs {bot} (black)"
        assert "you are a spectator" in _text(driver, "info")
        assert driver.find_element("css selector", "#board svg.tawla-board")
        buttons = [b.get_attribute("id") for b in driver.find_elements(
            "css selector", "#controls button, #controls span") if b.is_displayed()]
        assert buttons == []
        seen = int(_body(driver)["version"])
        driver.switch_to.window(player)
        _wait(driver, lambda: _visible(driver, "roll") or _visible(driver, "play-move") or _visible(driver, "pass")
              or _visible(driver, "confirm"), "our turn")
        for name in ("roll", "play-move", "pass", "confirm"):
            if _visible(driver, name):
                _click_when_changed(driver, driver.find_element("id", name))
                break
        driver.switch_to.window(watcher)
        _wait(driver, lambda: int(_body(driver)["version"]) > seen, "the spectator's board to follow")
        shot = tmp_path / "browser_spectator.png"
        driver.save_screenshot(str(shot))
        driver.close()
    finally:
        driver.switch_to.window(player)
    token = driver.execute_script("return game.token")
    back = "return game.socket && game.socket.readyState === 1 && !document.getElementById('connection').innerText"
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", offline)      # the network drops
    try:
        _wait(driver, lambda: _text(driver, "connection") == "Reconnecting…", "the reconnecting note")
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**offline, "offline": False})
    _wait(driver, lambda: driver.execute_script(back), "the page to be back")
    note = driver.execute_async_script(                                      # the socket alone drops
        "const done = arguments[arguments.length - 1]; game.socket.close(); const t0 = Date.now();"
        "const look = () => { const t = document.getElementById('connection').innerText;"
        "  if (t || Date.now() - t0 > 3000) done(t); else setTimeout(look, 5); }; look();")
    assert note == "Reconnecting…"
    _wait(driver, lambda: driver.execute_script(back), "the socket to come back")
    assert driver.execute_script("return [game.token, game.seat, document.body.dataset.you]") == [token, 0, "0"]
    _keep(shot)


def test_a_coin_table_shows_the_grace_period_of_a_dropped_player(server, driver):
    """On a coin table the opponent's socket closes: the board counts down the time he has to
    come back (the house's grace period) before he forfeits."""
    import httpx
    from service_helpers import ws_connect
    with httpx.Client(base_url=server.url, timeout=30) as c:
        tokens = [c.post("/v1/accounts", json={"name": n, "house": "saharat"}).json()["token"] for n in ("Ann", "Bob")]
        made = c.post("/v1/rooms", json={"ruleset": "adi", "house": "saharat", "length": 1, "stake": 10, "name": "Ann"},
                      headers={"Authorization": f"Bearer {tokens[0]}"})
        assert made.status_code == 201, made.text
        code, host = made.json()["code"], made.json()["token"]
        driver.get(server.url + "/")
        driver.execute_script(
            "sessionStorage.setItem('tawla:' + arguments[0], JSON.stringify({token: arguments[1], seat: 0}))",
            code, host)
        driver.get(server.url + "/?seat#room=" + code)
        _wait(driver, lambda: _body(driver).get("phase") == "waiting", "the waiting room")
        joined = c.post(f"/v1/rooms/{code}/join", json={"name": "Bob"},
                        headers={"Authorization": f"Bearer {tokens[1]}"})
        assert joined.status_code == 200, joined.text
        with ws_connect(server, code, joined.json()["token"], first_message=True) as ws:
            ws.recv(timeout=10)
        grace = _wait(driver, lambda: "Bob lost the connection" in _text(driver, "connection")
                      and _text(driver, "connection"), "the grace period")
        assert "back within 2:00 or the match is forfeited" in grace or "back within 1:5" in grace
        assert "offline" in _text(driver, "players")
        driver.execute_script("act('leave')")


def test_a_rated_match_shows_the_rating_changes(server, driver, tmp_path):
    """Rated ticked: the page makes an account (kept in localStorage), creates a rated room,
    and at the end of the match (a resignation the bot accepts) shows both rating changes and
    the link to the analysis, which opens with the room's token."""
    driver.get(server.url + "/")
    driver.execute_script("localStorage.clear()")
    _setup(driver, server.url, rated=True)
    kept = driver.execute_script("return JSON.parse(localStorage.getItem('tawla:account'))")
    assert kept["token"] and kept["name"] == "Ann"
    assert driver.execute_script("return game.state.options.rated") is True
    _wait(driver, lambda: _visible(driver, "resign-box"), "our turn")
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("id", "resign-kind")).select_by_value("backgammon")
    driver.find_element("id", "resign").click()
    lines = _wait(driver, lambda: _text(driver, "ratings"), "the rating changes")
    bot = driver.execute_script("return game.state.seats[1].name")
    assert "Rating of Ann: 1500.0 → " in lines and "(−" in lines and f"Rating of {bot}: " in lines
    ratings = driver.execute_script("return game.state.ratings")
    assert ratings[0]["change"] < 0 < ratings[1]["change"]
    assert f"Match over: {bot} wins" in _text(driver, "status")
    link = driver.find_element("id", "analysis-link")
    assert link.is_displayed() and link.text == "Analysis of the match"
    shot = tmp_path / "browser_rated_over.png"
    driver.save_screenshot(str(shot))
    _keep(shot)
    tabs = set(driver.window_handles)
    link.click()
    _wait(driver, lambda: set(driver.window_handles) - tabs, "the analysis tab")
    main = driver.current_window_handle
    driver.switch_to.window((set(driver.window_handles) - tabs).pop())
    try:
        _wait(driver, lambda: driver.current_url.startswith("blob:") and bot in driver.page_source,
              "the analysis page", timeout=30)
    finally:
        driver.close()
        driver.switch_to.window(main)
