"""Browser tests of homegate's web page (web/), in headless Chromium driven by Selenium.

The fixture runs a whole house: its own mosquitto on a free port, the Zigbee2MQTT simulator with the
demo devices, and `homegate run` on HTTP port 0 with a fresh database. Every test waits for what
it expects with an explicit deadline; none sleeps and hopes.

Run with scripts/browser-test.sh, or: pytest Tests/browser --bin-path "$(swift build --show-bin-path)"
Screenshots go to .build/browser-artifacts/.
"""

import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from pyhouse.house import START, House, free_port, stop as stop_process, wait_until
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".build" / "browser-artifacts"
WAIT = 15  # seconds for anything the page or the house should do

DESKTOP = (1280, 900)
PHONE = (360, 780)


# MARK: the house (Tests/pyhouse)


def stop(process, name):
    """Ends a gateway a test started, by its PID; one that will not stop leaves its stacks beside the screenshots."""
    stop_process(process, name, timeout=10, backtraces=ARTIFACTS)


class PageHouse(House):
    """The shared house, with the names these tests use."""

    api = House.request

    def start_gateway(self, name="homegate", extra_env=None):
        """`homegate run` on HTTP port 0: (process, port)."""
        env = dict(extra_env or {})
        if os.environ.get("BROWSER_TEST_LOG_LEVEL"):  # debug: every HTTP request in the copied log
            env.setdefault("HOMEGATE_LOG_LEVEL", os.environ["BROWSER_TEST_LOG_LEVEL"])
        gateway = super().start_gateway(name, env)
        return gateway.process, gateway.http_port

    @property
    def url(self):
        return f"http://127.0.0.1:{self.http_port}/"

    def accessory(self, accessory_id):
        return self.accessories().get(accessory_id)

    def subscribe_once(self, topic):
        """mosquitto_sub for one message, returned once its subscription is acknowledged."""
        return self.subscribe(topic, count=1, timeout=WAIT + 5, wait=WAIT)


@pytest.fixture(scope="session")
def house(bin_path):
    workdir = Path(tempfile.mkdtemp(prefix="homegate-browser-"))
    house = PageHouse(bin_path, workdir)
    house.backtraces = ARTIFACTS
    try:
        house.start_mosquitto()
        house.start_simulator()
        _, house.http_port = house.start_gateway()

        def ready():
            status, tree = house.api("GET", "/api/accessories")
            if status != 200:
                return False
            byid = {a["id"]: a for a in tree["accessories"]}
            wanted = ["bulb", "bulb_color_2", "power_plug"]
            if not all(i in byid and byid[i]["reachable"] for i in wanted):
                return False
            return house.value("bulb/lightbulb/on") is not None and house.value("bulb/lightbulb/brightness") is not None

        wait_until(ready, START, "the simulator's devices to appear in /api/accessories with their values")
        # Readings for the sensors, as they would come in a while (the simulator makes none here).
        for device, reading in [
            ("weather_sensor", {"temperature": 21.5, "humidity": 48, "pressure": 1012, "battery": 91}),
            ("front_door_contact", {"contact": True, "battery": 80}),
            ("occupancy_sensor", {"occupancy": False, "illuminance": 120, "battery": 64}),
            ("hallway_smoke_detector", {"smoke": False, "tamper": False, "battery_low": False, "battery": 100}),
            ("remote", {"battery": 55}),
            ("button", {"battery": 9}),
        ]:
            house.simulator("report", {"id": device, "state": reading})
        wait_until(lambda: house.value("weather_sensor/temperature_sensor/current_temperature") == 21.5
                   and house.value("button/battery_service/battery_level") == 9, START, "the sensors' first readings")
        yield house
    finally:
        try:
            house.stop_all()
        finally:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for log in workdir.glob("*.log"):
                shutil.copy(log, ARTIFACTS / log.name)
            house.remove()


# MARK: the browser


@pytest.fixture(scope="session")
def driver(house):
    """One browser for the session; it quits before the house stops, so that no page holds an
    event stream open while homegate shuts down."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in [*ARTIFACTS.glob("*.png"), *ARTIFACTS.glob("*.log"), *ARTIFACTS.glob("*-stuck.txt")]:
        old.unlink()
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={DESKTOP[0]},{DESKTOP[1]}", "--lang=en-GB"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The Debian driver, so that Selenium Manager never looks for one on the network.
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_window_size(*DESKTOP)
    browser.set_page_load_timeout(30)
    browser.set_script_timeout(10)
    yield browser
    browser.quit()


@pytest.fixture(autouse=True)
def page_errors(request, driver):
    """Every test starts at desktop width; a failed one leaves a screenshot; no test may cause a
    JavaScript error or a Content-Security-Policy violation."""
    driver.set_window_size(*DESKTOP)
    driver.get_log("browser")  # drop what earlier tests left
    house = request.getfixturevalue("house")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{house.http_port}/healthz", timeout=5):
            pass
    except OSError as error:
        pytest.fail(f"the gateway does not answer /healthz ({error}): it is hung or gone; see {ARTIFACTS / 'homegate.log'}")
    yield
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        shot(driver, f"FAILED-{request.node.name}")
    problems = [
        entry["message"] for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE"
        and "Failed to load resource" not in entry["message"]  # refused API calls are part of the tests
    ]
    assert not problems, "the page logged errors:\n" + "\n".join(problems)


def shot(driver, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def css(testid):
    return f'[data-testid="{testid}"]'


def find(driver, testid, root=None):
    return (root or driver).find_element(By.CSS_SELECTOR, css(testid))


def present(driver, testid, root=None):
    return (root or driver).find_elements(By.CSS_SELECTOR, css(testid))


def wait(driver, condition, what, timeout=WAIT):
    """WebDriverWait with a message; stale elements (the page redraws) just mean: look again."""
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: condition(d), message=f"timed out after {timeout} s waiting for {what}")


def click(driver, testid):
    """Scrolls the element to the middle (clear of the sticky header) and clicks it."""
    def clicked(d):
        element = find(d, testid)
        d.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        try:
            element.click()
        except WebDriverException as error:
            if "not clickable" in str(error) or "not interactable" in str(error):
                return False
            raise
        return True

    wait(driver, clicked, f"{testid} to be clickable")


def text(driver, testid):
    """The element's text, or "" while it is not there (the page redraws parts of itself)."""
    try:
        return find(driver, testid).text
    except WebDriverException:
        return ""


def type_into(driver, testid, value):
    """Replaces the text of an input, looking it up again if the page redrew it meanwhile."""
    def typed(d):
        element = find(d, testid)
        element.clear()
        element.send_keys(value)
        return element.get_property("value") == value

    wait(driver, typed, f"{value!r} to be typed into {testid}")


def choose(driver, testid, value):
    """Picks `value` in a <select>, looking it up again if the page redrew it meanwhile."""
    def chosen(d):
        element = find(d, testid)
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        Select(element).select_by_value(value)
        return True

    wait(driver, chosen, f"{value} to be chosen in {testid}")


def confirm_click(driver, testid):
    """A button that asks again before it acts: pressed, then pressed again once it asks."""
    click(driver, testid)  # arms
    wait(driver, lambda d: "again" in text(d, testid), f"{testid} to ask again")
    click(driver, testid)


def open_page(driver, house, url=None):
    driver.get(url or house.url)
    wait(driver, lambda d: present(d, "accessory-bulb"), "the accessories to be shown")
    wait(driver, lambda d: text(d, "stream-state") == "connected", "the event stream to connect")


def no_horizontal_scroll(driver):
    width, client = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width <= client, f"the page scrolls sideways: scrollWidth {width} > clientWidth {client}"


# MARK: the tests


def test_a_grouped_by_room_and_by_category(driver, house):
    open_page(driver, house)
    click(driver, "group-by-room")
    office = wait(driver, lambda d: present(d, "group-room-office"), "the Office room")[0]
    assert present(driver, "accessory-bulb", office), "the bulb should be in the Office room"
    groups = [g.get_attribute("data-testid") for g in driver.find_elements(By.CSS_SELECTOR, "#groups > section.group")]
    assert groups[0] == "group-room-default_room", f"the default room comes first: {groups}"
    names = driver.execute_script(
        "return [...document.querySelectorAll('#groups > section.group')].slice(1).map(s => s.getAttribute('aria-label'))")
    assert names == sorted(names, key=str.casefold), f"the other rooms are sorted by name: {names}"
    shot(driver, "a-by-room-desktop")

    click(driver, "group-by-category")
    lights = wait(driver, lambda d: present(d, "group-category-lightbulb"), "the Lights category")[0]
    assert present(driver, "accessory-bulb", lights), "the bulb should be among the lights"
    assert not present(driver, "group-room-office"), "no room groups in the category view"
    assert find(driver, "group-by-category").get_attribute("aria-pressed") == "true"
    shot(driver, "a-by-category-desktop")

    click(driver, "group-by-room")
    office = wait(driver, lambda d: present(d, "group-room-office"), "the Office room again")[0]
    assert present(driver, "accessory-bulb", office)


def test_b_toggle_reaches_the_device(driver, house):
    was_on = house.value("bulb/lightbulb/on")
    open_page(driver, house)
    click(driver, "accessory-bulb")
    toggle = wait(driver, lambda d: present(d, "char-bulb-lightbulb-on"), "the bulb's on switch")[0]
    assert toggle.get_attribute("aria-checked") == ("true" if was_on else "false")
    subscription = house.subscribe_once("zigbee2mqtt/bulb/set")
    try:
        click(driver, "char-bulb-lightbulb-on")
        payload = subscription.message()
    finally:
        subscription.close()
    assert payload.get("state") == ("OFF" if was_on else "ON"), f"the simulator got {payload}"
    # The device confirms; the page shows what it reported.
    want = "false" if was_on else "true"
    wait(driver, lambda d: find(d, "char-bulb-lightbulb-on").get_attribute("aria-checked") == want, "the switch to follow the device")
    wait(driver, lambda d: text(d, "summary-bulb").startswith("Off" if was_on else "On"), "the tile to say the new state")
    assert not find(driver, "error-bulb-lightbulb-on").is_displayed()
    shot(driver, "b-bulb-toggled-desktop")


def test_b1_identify_asks_the_device_to_show_itself(driver, house):
    open_page(driver, house)
    click(driver, "accessory-bulb")
    wait(driver, lambda d: present(d, "identify-bulb"), "the bulb's Identify button")
    subscription = house.subscribe_once("zigbee2mqtt/bulb/set")
    try:
        click(driver, "identify-bulb")
        payload = subscription.message()
    finally:
        subscription.close()
    assert payload == {"identify": "identify"}, f"the simulator got {payload}"
    wait(driver, lambda d: text(d, "identified-bulb") == "Asked it to show itself", "the page to say it asked")


def test_c_device_change_shows_without_reload(driver, house):
    open_page(driver, house)
    click(driver, "accessory-bulb")
    wait(driver, lambda d: present(d, "char-bulb-lightbulb-brightness"), "the brightness slider")
    current = house.value("bulb/lightbulb/brightness")
    # Zigbee2MQTT's 0-254 against HomeKit's percent: 25 is 10 %, 229 is 90 %.
    raw, percent = (25, 10) if current != 10 else (229, 90)
    driver.execute_script("window.__sameDocument = 'yes'")
    house.simulator("report", {"id": "bulb", "state": {"brightness": raw}})
    wait(driver, lambda d: text(d, "value-bulb-lightbulb-brightness") == f"{percent} %", f"the brightness to show {percent} %")
    slider = find(driver, "char-bulb-lightbulb-brightness")
    assert slider.get_property("value") == str(percent)
    assert driver.execute_script("return window.__sameDocument") == "yes", "the page was reloaded"
    assert house.value("bulb/lightbulb/brightness") == percent
    shot(driver, "c-device-brightness-desktop")


@pytest.fixture
def action_set(house):
    status, body = house.api("POST", "/api/action-sets", {
        "name": "Browser Evening",
        "actions": [
            {"characteristic": "bulb/lightbulb/on", "value": True},
            {"characteristic": "bulb/lightbulb/brightness", "value": 80},
        ],
    })
    assert status == 201, body
    yield body["id"]
    house.api("DELETE", f"/api/action-sets/{body['id']}")


@pytest.fixture
def trigger(house, action_set):
    status, body = house.api("POST", "/api/triggers", {
        "name": "Browser Night", "action_sets": [action_set], "timer": {"recurrence": {"at": "22:30"}},
    })
    assert status == 201, body
    yield body["id"]
    house.api("DELETE", f"/api/triggers/{body['id']}")


def test_d_run_an_action_set(driver, house, action_set):
    open_page(driver, house)
    click(driver, "tab-scenes")
    wait(driver, lambda d: present(d, f"run-{action_set}"), "the action set's Run button")
    assert text(driver, f"last-executed-{action_set}") == "never"
    click(driver, f"run-{action_set}")
    result = wait(driver, lambda d: present(d, f"result-{action_set}"), "the run's result")[0]
    wait(driver, lambda d: "2 of 2 ok" in text(d, f"result-{action_set}"), "the result to say both actions were done")
    result = find(driver, f"result-{action_set}")
    assert len(result.find_elements(By.CSS_SELECTOR, "li.ok")) == 2
    assert not result.find_elements(By.CSS_SELECTOR, "li.error")
    wait(driver, lambda d: text(d, f"last-executed-{action_set}") not in ("", "never"), "the last run time")
    status, body = house.api("GET", "/api/action-sets")
    listed = next(s for s in body["action_sets"] if s["id"] == action_set)
    assert listed.get("last_executed"), listed
    shot(driver, "d-action-set-run-desktop")


def test_d1_new_scene_from_how_things_are(driver, house):
    """A scene made on the page keeps the picked accessory as it is when saved; running it sets it back; it can be removed."""
    for path, value in [("bulb/lightbulb/on", True), ("bulb/lightbulb/brightness", 35)]:
        status, body = house.api("PUT", f"/api/accessories/{path}", {"value": value})
        assert status == 200, body
    wait_until(lambda: house.value("bulb/lightbulb/brightness") == 35 and house.value("bulb/lightbulb/on") is True,
               WAIT, "the bulb to be on at 35 %")
    open_page(driver, house)
    click(driver, "tab-scenes")
    click(driver, "new-scene-open")
    type_into(driver, "new-scene-name", "Browser Reading Light")
    click(driver, "add-scene")
    wait(driver, lambda d: "Pick at least one accessory" in text(d, "add-scene-error"), "the form to ask for an accessory")
    click(driver, "pick-bulb")
    assert not present(driver, "pick-weather_sensor"), "a sensor has nothing a scene could set"
    shot(driver, "d1-new-scene-desktop")
    click(driver, "add-scene")

    def saved():
        status, body = house.api("GET", "/api/action-sets")
        return next((s for s in body["action_sets"] if s["name"] == "Browser Reading Light"), None)

    scene = wait_until(saved, WAIT, "the scene to be stored")
    actions = {a["characteristic"]: a["value"] for a in scene["actions"]}
    assert actions.get("bulb/lightbulb/on") is True and actions.get("bulb/lightbulb/brightness") == 35, actions
    assert all(path.startswith("bulb/lightbulb/") for path in actions), f"only the bulb's light, no settings: {actions}"
    wait(driver, lambda d: present(d, f"run-{scene['id']}"), "the new scene's card")
    assert not find(driver, "new-scene").get_attribute("open"), "the form closes once saved"

    status, body = house.api("PUT", "/api/accessories/bulb/lightbulb/brightness", {"value": 90})
    assert status == 200, body
    wait_until(lambda: house.value("bulb/lightbulb/brightness") == 90, WAIT, "the bulb at 90 %")
    click(driver, f"run-{scene['id']}")
    wait(driver, lambda d: f"{len(actions)} of {len(actions)} ok" in text(d, f"result-{scene['id']}"), "the run's result")
    wait_until(lambda: house.value("bulb/lightbulb/brightness") == 35, WAIT, "the scene to set the bulb back to 35 %")

    click(driver, f"remove-{scene['id']}")  # arms
    wait(driver, lambda d: "again" in text(d, f"remove-{scene['id']}"), "the remove button to ask again")
    click(driver, f"remove-{scene['id']}")
    wait(driver, lambda d: not present(d, f"action-set-{scene['id']}"), "the scene's card to go")
    assert saved() is None, "the scene is removed from the gateway"


def test_d2_trigger_enable_switch(driver, house, trigger):
    open_page(driver, house)
    click(driver, "tab-automations")
    switch = wait(driver, lambda d: present(d, f"trigger-enabled-{trigger}"), "the trigger's switch")[0]
    assert switch.get_attribute("aria-checked") == "true"
    assert text(driver, f"last-fired-{trigger}") == "never"
    next_fire = text(driver, f"next-fire-{trigger}")
    assert re.search(r"\d\d:\d\d", next_fire), f"the next fire should be a time: {next_fire!r}"

    click(driver, f"trigger-enabled-{trigger}")
    wait(driver, lambda d: find(d, f"trigger-enabled-{trigger}").get_attribute("aria-checked") == "false", "the switch to turn off")
    wait(driver, lambda d: text(d, f"next-fire-{trigger}") == "off", "no next fire while disabled")
    status, body = house.api("GET", "/api/triggers")
    assert next(t for t in body["triggers"] if t["id"] == trigger)["enabled"] is False
    shot(driver, "d2-trigger-disabled-desktop")

    click(driver, f"trigger-enabled-{trigger}")
    wait(driver, lambda d: find(d, f"trigger-enabled-{trigger}").get_attribute("aria-checked") == "true", "the switch to turn on")
    wait(driver, lambda d: re.search(r"\d\d:\d\d", text(d, f"next-fire-{trigger}")), "the next fire again")
    status, body = house.api("GET", "/api/triggers")
    assert next(t for t in body["triggers"] if t["id"] == trigger)["enabled"] is True


def test_d3_new_automations(driver, house, action_set):
    """Automations made on the page: one at a time of day, one on motion that runs the scene when the sensor reports it."""
    made = []

    def trigger_named(name):
        status, body = house.api("GET", "/api/triggers")
        return next((t for t in body["triggers"] if t["name"] == name), None)

    try:
        open_page(driver, house)
        click(driver, "tab-automations")
        click(driver, "new-trigger-open")
        type_into(driver, "new-trigger-name", "Browser Late Lamp")
        choose(driver, "new-trigger-days", "weekdays")
        click(driver, "add-trigger")
        wait(driver, lambda d: "Pick the scenes" in text(d, "add-trigger-error"), "the form to ask for a scene")
        click(driver, f"trigger-pick-{action_set}")
        click(driver, "add-trigger")
        timed = wait_until(lambda: trigger_named("Browser Late Lamp"), WAIT, "the timed automation to be stored")
        made.append(timed["id"])
        assert timed["timer"]["recurrence"]["at"] == "22:30", timed
        assert timed["timer"]["recurrence"]["weekdays"] in ("weekdays", ["mon", "tue", "wed", "thu", "fri"]), timed
        assert timed["action_sets"] == [action_set] and timed["enabled"] and timed["next_fire"], timed
        wait(driver, lambda d: present(d, f"trigger-{timed['id']}"), "its card")

        status, body = house.api("PUT", "/api/accessories/bulb/lightbulb/on", {"value": False})
        assert status == 200, body
        wait_until(lambda: house.value("bulb/lightbulb/on") is False, WAIT, "the bulb to be off")
        click(driver, "new-trigger-open")
        type_into(driver, "new-trigger-name", "Browser Motion Lamp")
        choose(driver, "new-trigger-when", "change")
        choose(driver, "new-trigger-characteristic", "occupancy_sensor/motion_sensor/motion_detected")
        choose(driver, "new-trigger-target", "true")
        click(driver, f"trigger-pick-{action_set}")
        no_horizontal_scroll(driver)
        shot(driver, "d3-new-automation-desktop")
        click(driver, "add-trigger")
        motion = wait_until(lambda: trigger_named("Browser Motion Lamp"), WAIT, "the motion automation to be stored")
        made.append(motion["id"])
        assert motion["events"] == [{"characteristic": "occupancy_sensor/motion_sensor/motion_detected", "value": True}], motion

        house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": True}})
        wait_until(lambda: house.value("bulb/lightbulb/on") is True, WAIT, "the motion to run the scene and switch the bulb on")
        wait_until(lambda: (trigger_named("Browser Motion Lamp") or {}).get("last_fired"), WAIT, "the automation's last fire")
        wait(driver, lambda d: text(d, f"last-fired-{motion['id']}") not in ("", "never"), "the page to show when it fired")

        click(driver, f"trigger-remove-{timed['id']}")  # arms
        wait(driver, lambda d: "again" in text(d, f"trigger-remove-{timed['id']}"), "the remove button to ask again")
        click(driver, f"trigger-remove-{timed['id']}")
        wait(driver, lambda d: not present(d, f"trigger-{timed['id']}"), "the timed automation's card to go")
        assert trigger_named("Browser Late Lamp") is None, "the automation is removed from the gateway"
    finally:
        house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": False}})
        for trigger_id in made:
            house.api("DELETE", f"/api/triggers/{trigger_id}")


def test_d4_automation_only_if(driver, house, action_set):
    """An automation's "only if" made on the page: days picked one by one, a time window, and an accessory's state that
    keeps motion from switching the bulb on until the plug is on."""
    made = []

    def trigger_named(name):
        status, body = house.api("GET", "/api/triggers")
        return next((t for t in body["triggers"] if t["name"] == name), None)

    def write(path, value):
        status, body = house.api("PUT", f"/api/accessories/{path}", {"value": value})
        assert status == 200, body
        wait_until(lambda: house.value(path) is value, WAIT, f"{path} to be {value}")

    def report_motion():
        """Motion off then on, then a reading after it: once the reading is in, the gateway has handled the motion."""
        house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": False}})
        house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": True}})
        marker = 18.0 if house.value("weather_sensor/temperature_sensor/current_temperature") != 18.0 else 19.0
        house.simulator("report", {"id": "weather_sensor", "state": {"temperature": marker}})
        wait_until(lambda: house.value("weather_sensor/temperature_sensor/current_temperature") == marker, WAIT, "the reading after the motion")

    try:
        write("power_plug/outlet/on", False)
        write("bulb/lightbulb/on", False)
        open_page(driver, house)
        click(driver, "tab-automations")

        click(driver, "new-trigger-open")
        type_into(driver, "new-trigger-name", "Browser Odd Days")
        choose(driver, "new-trigger-days", "custom")
        click(driver, f"trigger-pick-{action_set}")
        click(driver, "add-trigger")
        wait(driver, lambda d: "Pick the days" in text(d, "add-trigger-error"), "the form to ask for the days")
        click(driver, "new-trigger-day-mon")
        click(driver, "new-trigger-day-wed")
        choose(driver, "new-trigger-only-time", "night")
        click(driver, "add-trigger")
        # The test house has no location: the gateway's reason is shown, and nothing is stored.
        wait(driver, lambda d: "need the house's location" in text(d, "add-trigger-error"), "the gateway's reason for refusing 'at night'")
        assert trigger_named("Browser Odd Days") is None
        choose(driver, "new-trigger-only-time", "between")
        click(driver, "add-trigger")
        odd = wait_until(lambda: trigger_named("Browser Odd Days"), WAIT, "the automation with picked days to be stored")
        made.append(odd["id"])
        assert odd["timer"]["recurrence"]["weekdays"] == ["mon", "wed"], odd
        assert odd["conditions"] == {"time": {"after": "22:00", "before": "06:00"}}, odd
        wait(driver, lambda d: "on Mon, Wed" in text(d, f"trigger-{odd['id']}") and "between 22:00 and 06:00" in text(d, f"trigger-{odd['id']}"),
             "its card to say when it fires and the hours it runs in")

        click(driver, "new-trigger-open")
        type_into(driver, "new-trigger-name", "Browser Motion If Plug")
        choose(driver, "new-trigger-when", "change")
        choose(driver, "new-trigger-characteristic", "occupancy_sensor/motion_sensor/motion_detected")
        choose(driver, "new-trigger-target", "true")
        choose(driver, "new-trigger-only-time", "between")
        driver.execute_script("arguments[0].value = '06:00'", find(driver, "new-trigger-only-after"))  # as "Until" (06:00)
        choose(driver, "new-trigger-only-characteristic", "power_plug/outlet/on")
        choose(driver, "new-trigger-only-target", "true")
        click(driver, f"trigger-pick-{action_set}")
        click(driver, "add-trigger")
        wait(driver, lambda d: "two different times" in text(d, "add-trigger-error"), "the form to refuse an empty window")
        choose(driver, "new-trigger-only-time", "")
        no_horizontal_scroll(driver)
        shot(driver, "d4-only-if-desktop")
        click(driver, "add-trigger")
        motion = wait_until(lambda: trigger_named("Browser Motion If Plug"), WAIT, "the motion automation to be stored")
        made.append(motion["id"])
        assert motion["conditions"] == {"characteristic": "power_plug/outlet/on", "op": "=", "value": True}, motion
        wait(driver, lambda d: "is On" in text(d, f"trigger-{motion['id']}"), "its card to show the condition")

        report_motion()
        assert trigger_named("Browser Motion If Plug")["last_fired"] is None, "motion with the plug off does nothing"
        assert house.value("bulb/lightbulb/on") is False

        write("power_plug/outlet/on", True)
        report_motion()
        wait_until(lambda: house.value("bulb/lightbulb/on") is True, WAIT, "motion with the plug on to switch the bulb on")
        assert trigger_named("Browser Motion If Plug")["last_fired"]
    finally:
        house.simulator("report", {"id": "occupancy_sensor", "state": {"occupancy": False}})
        for trigger_id in made:
            house.api("DELETE", f"/api/triggers/{trigger_id}")


def test_e_unreachable_device_is_marked(driver, house):
    open_page(driver, house)
    click(driver, "group-by-room")
    wait(driver, lambda d: present(d, "accessory-power_plug"), "the coffee machine")
    assert not present(driver, "unreachable-power_plug")
    try:
        house.simulator("availability", {"id": "power_plug", "state": "offline"})
        wait(driver, lambda d: present(d, "unreachable-power_plug"), "the plug to be marked unreachable")
        tile = driver.find_element(By.CSS_SELECTOR, '.tile[data-accessory="power_plug"]')
        assert "unreachable" in tile.get_attribute("class").split()
        click(driver, "accessory-power_plug")
        wait(driver, lambda d: present(d, "detail-unreachable"), "the detail to say unreachable")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", find(driver, "unreachable-power_plug"))
        shot(driver, "e-unreachable-desktop")
    finally:
        house.simulator("availability", {"id": "power_plug", "state": "online"})
    wait(driver, lambda d: not present(d, "unreachable-power_plug"), "the plug to be reachable again")
    wait(driver, lambda d: present(d, "detail-reachable"), "the detail to say reachable again")


def test_f_refused_write_shows_the_reason(driver, house):
    """A write the gateway refuses (503: the device is unreachable) shows the server's error by the
    control, and the control goes back to the device's value."""
    open_page(driver, house)
    was_on = house.value("bulb_color_2/lightbulb/on")
    try:
        house.simulator("availability", {"id": "bulb_color_2", "state": "offline"})
        wait(driver, lambda d: present(d, "unreachable-bulb_color_2"), "bulb_color_2 to be unreachable")
        click(driver, "accessory-bulb_color_2")
        wait(driver, lambda d: present(d, "char-bulb_color_2-lightbulb-on"), "its on switch")
        click(driver, "char-bulb_color_2-lightbulb-on")
        wait(driver, lambda d: "not reachable" in text(d, "error-bulb_color_2-lightbulb-on"), "the refusal's reason")
        error = text(driver, "error-bulb_color_2-lightbulb-on")
        assert error == "bulb_color_2: is not reachable", error
        wait(driver, lambda d: find(d, "char-bulb_color_2-lightbulb-on").get_attribute("aria-checked") == ("true" if was_on else "false"),
             "the switch to go back")
        shot(driver, "f-refused-write-desktop")
    finally:
        house.simulator("availability", {"id": "bulb_color_2", "state": "online"})
    wait_until(lambda: house.accessory("bulb_color_2")["reachable"], WAIT, "bulb_color_2 to be reachable again")


def test_g_phone_width(driver, house, trigger):
    driver.set_window_size(*PHONE)
    open_page(driver, house)
    click(driver, "group-by-room")
    no_horizontal_scroll(driver)
    shot(driver, "g-by-room-phone")

    heights = driver.execute_script(
        "return [...document.querySelectorAll('.tab, .segmented button, .tile .switch, .tile-open')]"
        ".filter(e => e.offsetParent).map(e => e.getBoundingClientRect().height)")
    assert heights and min(heights) >= 32, f"controls too small to touch: {sorted(heights)[:5]}"

    click(driver, "accessory-bulb")
    detail = wait(driver, lambda d: [e for e in present(d, "detail") if e.is_displayed()], "the bulb's detail")[0]
    assert detail.size["width"] <= driver.execute_script("return document.documentElement.clientWidth")
    wait(driver, lambda d: find(d, "char-bulb-lightbulb-brightness").is_displayed(), "the brightness slider")
    # The bulb answered the gateway's state request at its start: the page, opened later, knows when.
    reported = find(driver, "last-seen").find_elements(By.TAG_NAME, "time")
    assert reported and reported[0].get_attribute("datetime"), find(driver, "last-seen").text
    no_horizontal_scroll(driver)
    shot(driver, "g-bulb-detail-phone")
    click(driver, "detail-close")
    wait(driver, lambda d: not find(d, "detail").is_displayed(), "the detail to close")

    click(driver, "group-by-category")
    wait(driver, lambda d: present(d, "group-category-lightbulb"), "the categories")
    no_horizontal_scroll(driver)
    shot(driver, "g-by-category-phone")
    click(driver, "group-by-room")

    for view in ("scenes", "automations", "rooms"):
        click(driver, f"tab-{view}")
        wait(driver, lambda d: find(d, f"view-{view}").is_displayed(), f"the {view} view")
        no_horizontal_scroll(driver)
        shot(driver, f"g-{view}-phone")
        if view == "scenes":
            click(driver, "new-scene-open")
            wait(driver, lambda d: find(d, "pick-bulb").is_displayed(), "the new scene's accessories")
            no_horizontal_scroll(driver)
            shot(driver, "g-new-scene-phone")
            click(driver, "new-scene-open")
        if view == "automations":
            click(driver, "new-trigger-open")
            choose(driver, "new-trigger-when", "change")
            choose(driver, "new-trigger-characteristic", "weather_sensor/temperature_sensor/current_temperature")
            wait(driver, lambda d: find(d, "new-trigger-number").is_displayed(), "a number for a temperature")
            choose(driver, "new-trigger-only-time", "between")
            choose(driver, "new-trigger-only-characteristic", "weather_sensor/temperature_sensor/current_temperature")
            wait(driver, lambda d: find(d, "new-trigger-only-number").is_displayed(), "a comparison for a temperature")
            no_horizontal_scroll(driver)
            shot(driver, "g-new-automation-phone")
            choose(driver, "new-trigger-when", "time")
            choose(driver, "new-trigger-days", "custom")
            wait(driver, lambda d: find(d, "new-trigger-day-sun").is_displayed(), "the days to pick")
            no_horizontal_scroll(driver)
            shot(driver, "g-new-automation-days-phone")
            click(driver, "new-trigger-open")
    click(driver, "tab-accessories")

    # The same in dark mode.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        wait(driver, lambda d: d.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches"), "dark mode")
        no_horizontal_scroll(driver)
        shot(driver, "g-by-room-phone-dark")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_h_rooms_and_zones_are_edited(driver, house):
    def api_room(room_id):
        status, body = house.api("GET", "/api/rooms")
        return next((r for r in body["rooms"] if r["id"] == room_id), None)

    def confirm(testid):
        confirm_click(driver, testid)

    open_page(driver, house)
    try:
        click(driver, "tab-rooms")
        type_into(driver, "new-room-name", "Browser Attic")
        click(driver, "add-room")
        wait(driver, lambda d: present(d, "room-browser_attic"), "the new room")
        assert api_room("browser_attic")["name"] == "Browser Attic"

        type_into(driver, "room-name-browser_attic", "Browser Loft")
        click(driver, "room-rename-browser_attic")
        wait_until(lambda: api_room("browser_attic")["name"] == "Browser Loft", WAIT, "the room to be renamed")
        wait(driver, lambda d: find(d, "room-name-browser_attic").get_property("value") == "Browser Loft", "the new name in the page")

        # An accessory into the room, from its detail.
        click(driver, "tab-accessories")
        click(driver, "accessory-bulb")
        wait(driver, lambda d: present(d, "room-select-bulb"), "the bulb's room picker")
        choose(driver, "room-select-bulb", "browser_attic")
        wait(driver, lambda d: present(d, "group-room-browser_attic"), "the room's group")
        wait(driver, lambda d: present(d, "accessory-bulb", find(d, "group-room-browser_attic")), "the bulb in the new room")
        assert house.accessory("bulb")["room"] == "browser_attic"
        assert not present(driver, "group-room-office"), "the Office, now empty, is not shown"
        shot(driver, "h-bulb-moved-desktop")
        choose(driver, "room-select-bulb", "office")
        wait(driver, lambda d: present(d, "group-room-office"), "the bulb back in the Office")
        wait_until(lambda: house.accessory("bulb")["room"] == "office", WAIT, "the bulb to be back in the Office")

        # A zone with the room in it.
        click(driver, "tab-rooms")
        type_into(driver, "new-zone-name", "Browser Upstairs")
        click(driver, "add-zone")
        wait(driver, lambda d: present(d, "zone-browser_upstairs"), "the new zone")
        click(driver, "zone-browser_upstairs-room-browser_attic")
        wait(driver, lambda d: find(d, "zone-browser_upstairs-room-browser_attic").get_attribute("aria-pressed") == "true", "the room in the zone")
        status, zones = house.api("GET", "/api/zones")
        assert next(z for z in zones["zones"] if z["id"] == "browser_upstairs")["rooms"] == ["browser_attic"]
        shot(driver, "h-rooms-and-zones-desktop")

        confirm("zone-remove-browser_upstairs")
        wait(driver, lambda d: not present(d, "zone-browser_upstairs"), "the zone to go")
        confirm("room-remove-browser_attic")
        wait(driver, lambda d: not present(d, "room-browser_attic"), "the room to go")
        assert api_room("browser_attic") is None
        assert not present(driver, "room-remove-default_room"), "the default room cannot be removed"
    finally:
        house.api("PUT", "/api/accessories/bulb/room", {"room": "office"})
        house.api("DELETE", "/api/zones/browser_upstairs")
        house.api("DELETE", "/api/rooms/browser_attic")


def test_i_token_is_asked_for_and_kept(driver, house):
    """A gateway with http.token: the page asks for it, says when it is wrong, keeps it, and
    gives it to the event stream."""
    token = "browser-test-token"
    process, port = house.start_gateway("homegate-token", {
        "HOMEGATE_HTTP_TOKEN": token,
        "HOMEGATE_BASE_TOPIC": "homegate_token",
        "HOMEGATE_MQTT_CLIENT_ID": "homegate-browser-token",
    })
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_until(lambda: house.api("GET", "/api/accessories", port=port, token=token)[0] == 200, START, "the second gateway")
        driver.get(url)
        dialog = wait(driver, lambda d: [e for e in present(d, "token-dialog") if e.is_displayed()], "the token form")[0]
        assert "needs a token" in text(driver, "token-reason")
        shot(driver, "i-token-asked-desktop")

        type_into(driver, "token-input", "not-the-token")
        click(driver, "token-save")
        wait(driver, lambda d: "not this gateway's" in text(d, "token-reason"), "the wrong token to be refused")
        assert dialog.is_displayed()

        type_into(driver, "token-input", token)
        click(driver, "token-save")
        wait(driver, lambda d: present(d, "accessory-bulb"), "the accessories once the token is given")
        wait(driver, lambda d: text(d, "stream-state") == "connected", "the event stream with ?access_token=")
        assert not dialog.is_displayed()
        assert driver.execute_script("return localStorage.getItem('homegate.token')") == token

        driver.refresh()  # kept: not asked again
        wait(driver, lambda d: present(d, "accessory-bulb"), "the accessories after a reload")
        wait(driver, lambda d: text(d, "stream-state") == "connected", "the event stream after a reload")
        assert not find(driver, "token-dialog").is_displayed()

        # The gateway dies: the page says its stream is down and keeps trying.
        process.kill()
        process.wait(timeout=10)
        wait(driver, lambda d: text(d, "stream-state") == "reconnecting", "the stream state to say reconnecting")
        shot(driver, "i-stream-reconnecting-desktop")
        driver.get_log("browser")  # the refused reconnections are expected here
    finally:
        driver.get("about:blank")  # the page's event stream ends before its gateway does
        stop(process, "homegate-token")


def test_j_home_picker(driver, house):
    """A home added on the page is shown at once; with two the page offers a picker; each home shows its own accessories;
    a home is renamed, made primary and removed from the page."""
    cabin = None
    try:
        open_page(driver, house)
        click(driver, "tab-rooms")
        type_into(driver, "new-home-name", "Browser Cabin")
        click(driver, "add-home")

        def added():
            status, body = house.api("GET", "/api/homes")
            return next((h for h in body["homes"] if h["name"] == "Browser Cabin"), None)

        cabin = wait_until(added, WAIT, "the new home to be stored")
        wait(driver, lambda d: present(d, f"room-{cabin['default_room']}"), "the new home's rooms to be shown")
        click(driver, "tab-accessories")
        wait(driver, lambda d: "No accessories in this home" in text(d, "groups"), "the new, empty home to be shown")
        choose(driver, "home-picker", "home")
        wait(driver, lambda d: present(d, "accessory-bulb"), "the primary home's accessories")
        picker = wait(driver, lambda d: [e for e in present(d, "home-picker") if e.is_displayed()], "the home picker")[0]
        options = [o.get_attribute("value") for o in picker.find_elements(By.TAG_NAME, "option")]
        assert options == ["home", cabin["id"]], options
        choose(driver, "home-picker", cabin["id"])
        wait(driver, lambda d: not present(d, "accessory-bulb"), "the primary home's accessories to go")
        assert "No accessories in this home" in text(driver, "groups")
        click(driver, "tab-rooms")
        wait(driver, lambda d: present(d, f"room-{cabin['default_room']}"), "the cabin's default room")
        shot(driver, "j-second-home-desktop")

        # Renamed, made primary and back, then removed, all from the Rooms view.
        def home(home_id):
            status, body = house.api("GET", "/api/homes")
            return next((h for h in body["homes"] if h["id"] == home_id), None), body["primary"]

        assert present(driver, "home-is-primary-home") and not present(driver, "home-remove-home"), "the primary home cannot be removed"
        type_into(driver, f"home-name-{cabin['id']}", "Browser Lodge")
        click(driver, f"home-rename-{cabin['id']}")
        wait_until(lambda: home(cabin["id"])[0]["name"] == "Browser Lodge", WAIT, "the home to be renamed")
        wait(driver, lambda d: "Browser Lodge" in text(d, "home-picker"), "the new name in the picker")
        click(driver, f"home-primary-{cabin['id']}")
        wait_until(lambda: home(cabin["id"])[1] == cabin["id"], WAIT, "the lodge to be the primary home")
        wait(driver, lambda d: present(d, f"home-is-primary-{cabin['id']}") and present(d, "home-remove-home"), "the page to show the lodge as primary")
        shot(driver, "j-homes-desktop")
        click(driver, "home-primary-home")
        wait_until(lambda: home("home")[1] == "home", WAIT, "the first home to be primary again")
        confirm_click(driver, f"home-remove-{cabin['id']}")
        wait_until(lambda: home(cabin["id"])[0] is None, WAIT, "the lodge to be removed")
        removed, cabin = cabin, None
        wait(driver, lambda d: not present(d, f"home-{removed['id']}"), "the lodge to leave the page")
        wait(driver, lambda d: present(d, "room-office"), "the primary home's rooms, shown once the lodge is gone")
        picker = present(driver, "home-picker")
        assert not picker or not picker[0].is_displayed(), "no picker with one home"
        click(driver, "tab-accessories")
        wait(driver, lambda d: present(d, "accessory-bulb"), "the primary home's accessories again")
    finally:
        if cabin:
            house.api("DELETE", f"/api/homes/{cabin['id']}")
        driver.execute_script("localStorage.removeItem('homegate.home')")


def test_k_homekit_panel(driver, house):
    """The HomeKit view: with the bridge off it says how to turn it on; with it on (a second gateway
    with hap.enabled and a token) it shows the QR code fetched with the token, the setup code the
    API gives, the advertisement state, and "New setup code" changes the code shown. The code is
    never logged."""
    open_page(driver, house)
    click(driver, "tab-homekit")
    wait(driver, lambda d: "hap.enabled: true" in text(d, "homekit-off"), "the off text")
    shot(driver, "k-homekit-off-desktop")

    token = "browser-hap-token"
    process, port = house.start_gateway("homegate-hap", {
        "HOMEGATE_HTTP_TOKEN": token,
        "HOMEGATE_BASE_TOPIC": "homegate_hap",
        "HOMEGATE_MQTT_CLIENT_ID": "homegate-browser-hap",
        "HOMEGATE_HAP_ENABLED": "true",
        "HOMEGATE_HAP_BIND": "127.0.0.1",
        "HOMEGATE_HAP_PORT": str(free_port()),
        "HOMEGATE_HAP_NAME": "homegate browser",
    })
    try:
        url = f"http://127.0.0.1:{port}/"

        def bridge():
            status, body = house.api("GET", "/api/homekit", port=port, token=token)
            assert status == 200, body
            return body["bridges"][0] if body["enabled"] and body["bridges"] else None

        # DNS-SD may be absent here: then "not advertised" with its reason; wait until it has tried.
        first = wait_until(lambda: (b := bridge()) and b["advertisement"]["state"] != "starting" and b, START,
                           "the HomeKit bridge to start and try to advertise")
        driver.get(url)
        driver.execute_script("localStorage.setItem('homegate.token', arguments[0])", token)
        driver.get("about:blank")
        driver.get(url + "#homekit")
        wait(driver, lambda d: text(d, "homekit-code-1") == first["setup_code"], "the setup code the API gives")
        assert find(driver, "view-homekit").is_displayed()

        def qr_loaded(d):
            image = find(d, "homekit-qr-1")
            source = image.get_attribute("src") or ""
            return source.startswith("data:image/svg+xml") and d.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth > 0", image) and source

        first_qr = wait(driver, qr_loaded, "the QR code image to load")
        advertisement = text(driver, "homekit-advertisement-1")
        detail = first["advertisement"]["detail"]
        assert detail in advertisement, f"{advertisement!r} should show {detail!r}"
        if first["advertisement"]["state"] == "not_advertised":
            assert advertisement.startswith("not advertised:"), advertisement
        assert "None" in text(driver, "homekit-controllers-1"), "no controller has paired"
        shot(driver, "k-homekit-desktop")
        driver.set_window_size(*PHONE)
        wait(driver, lambda d: find(d, "homekit-qr-1").is_displayed(), "the QR code at a phone's width")
        no_horizontal_scroll(driver)
        shot(driver, "k-homekit-phone")
        driver.set_window_size(*DESKTOP)

        click(driver, "homekit-new-code-1")
        wait(driver, lambda d: text(d, "homekit-code-1") not in ("", first["setup_code"]), "a new setup code on the page")
        second = bridge()
        assert second["setup_code"] != first["setup_code"]
        assert text(driver, "homekit-code-1") == second["setup_code"]
        wait(driver, lambda d: (source := qr_loaded(d)) and source != first_qr, "the QR code of the new setup URI")

        status, health = house.api("GET", "/readyz", port=port, token=token)
        assert health["homekit"]["bridges"][0]["advertisement"] == second["advertisement"]["state"], health
        log = (house.workdir / "homegate-hap.log").read_text(errors="replace")
        for code in (first["setup_code"], second["setup_code"]):
            assert code not in log, "the setup code must never be logged"
    finally:
        driver.get("about:blank")  # the page's event stream ends before its gateway does
        stop(process, "homegate-hap")


HAP_PYTHON = ROOT / ".build" / "hap-venv" / "bin" / "python"


def test_l_homekit_remove_pairings(driver, house):
    """A controller that really paired (aiohomekit) is listed with its admin flag; "Remove" (confirmed)
    removes it and the view shows none; after a fresh pairing, "Remove all pairings" does the same; after
    another, "New identity" gives the bridge a new device id and no pairing."""
    if not HAP_PYTHON.exists():
        pytest.skip(f"needs aiohomekit in {HAP_PYTHON.parent.parent}: run scripts/hap-bridge-test.sh once")
    hap_port = free_port()
    process, port = house.start_gateway("homegate-hap-pairing", {
        "HOMEGATE_BASE_TOPIC": "homegate_hap_pairing",
        "HOMEGATE_MQTT_CLIENT_ID": "homegate-browser-hap-pairing",
        "HOMEGATE_HAP_ENABLED": "true",
        "HOMEGATE_HAP_BIND": "127.0.0.1",
        "HOMEGATE_HAP_PORT": str(hap_port),
    })
    try:
        def bridge():
            status, body = house.api("GET", "/api/homekit", port=port)
            assert status == 200, body
            return body["bridges"][0] if body["bridges"] else None

        def pair():
            found = wait_until(bridge, START, "the HomeKit bridge to start")
            result = subprocess.run([str(HAP_PYTHON), str(ROOT / "Tests" / "browser" / "hap_pair.py"), str(hap_port),
                                     found["device_id"], found["setup_code"]], capture_output=True, text=True, timeout=60)
            assert result.returncode == 0, result.stderr
            return result.stdout.strip()

        controller = pair()
        driver.get(f"http://127.0.0.1:{port}/#homekit")
        row = wait(driver, lambda d: present(d, f"homekit-controller-{controller}"), "the paired controller")[0]
        assert "admin" in row.text and text(driver, "homekit-paired-1") == "Paired"
        shot(driver, "l-homekit-paired-desktop")
        confirm_click(driver, f"homekit-remove-{controller}")
        wait_until(lambda: bridge()["controllers"] == [], WAIT, "the pairing to be removed")
        wait(driver, lambda d: "None" in text(d, "homekit-controllers-1") and text(d, "homekit-paired-1") == "Not paired",
             "the view to show no controller")

        again = pair()  # open to pairing again
        driver.refresh()
        wait(driver, lambda d: present(d, f"homekit-controller-{again}"), "the new controller")
        confirm_click(driver, "homekit-remove-all-1")
        wait_until(lambda: not bridge()["paired"], WAIT, "every pairing to be removed")
        wait(driver, lambda d: "None" in text(d, "homekit-controllers-1"), "the view to show no controller after Remove all")

        third = pair()  # "New identity" (confirmed): a new device id, and the pairing is gone with the old one
        old_id = bridge()["device_id"]
        driver.refresh()
        wait(driver, lambda d: present(d, f"homekit-controller-{third}"), "the third controller")
        confirm_click(driver, "homekit-new-identity-1")
        wait_until(lambda: bridge()["device_id"] != old_id and not bridge()["paired"], WAIT, "a new identity without pairings")
        new_id = bridge()["device_id"]
        wait(driver, lambda d: new_id in text(d, "homekit-bridge-1") and old_id not in text(d, "homekit-bridge-1"),
             "the view to show the new device id")
    finally:
        driver.get("about:blank")
        stop(process, "homegate-hap-pairing")


MATTER_FIXTURE = ROOT / "Tests" / "browser" / "matter-fabric.yaml"


def test_m_matter_panel(driver, house):
    """The Matter part of the view: with the bridge off it says how to turn it on. A gateway with
    matter.enabled, restored from an export whose bridge is on one fabric (Tests/browser/matter-fabric.yaml,
    exported after the SDK's controller commissioned it, fabric of test vendor 0xFFF1): the fabric is
    listed by its ecosystem's name and no code shows; "Add to another ecosystem" opens a window whose
    code, QR code and time left show; "Close the window" closes it. With a window open again, the
    page follows what another ecosystem joining changes, made through the API: the fabric removed,
    then the window closed; the bridge's own code and QR code show, as it is open to commissioning
    again, with no reload."""
    import socket
    open_page(driver, house)
    click(driver, "tab-homekit")
    wait(driver, lambda d: "matter.enabled: true" in text(d, "matter-off"), "the Matter off text")

    name = "homegate-matter"
    restored = house.run_homegate("import", str(MATTER_FIXTURE), name=name)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    process, port = house.start_gateway(name, {
        "HOMEGATE_BASE_TOPIC": "homegate_matter",
        "HOMEGATE_MQTT_CLIENT_ID": "homegate-browser-matter",
        "HOMEGATE_MATTER_ENABLED": "true",
        "HOMEGATE_MATTER_PORT": str(free_port("::1", socket.SOCK_DGRAM)),
    })
    try:
        def bridge():
            status, body = house.api("GET", "/api/matter", port=port)
            assert status == 200, body
            return body

        wait_until(lambda: bridge()["serving"], START, "the Matter bridge to serve")
        driver.get(f"http://127.0.0.1:{port}/#homekit")
        wait(driver, lambda d: "Matter test vendor 1" in text(d, "matter-fabric-1"), "the fabric by its ecosystem's name")
        assert not present(driver, "matter-code"), "on a fabric with no window, no code commissions the bridge"
        assert text(driver, "matter-paired") == "In 1 ecosystem"
        shot(driver, "m-matter-on-a-fabric-desktop")

        click(driver, "matter-open-window")
        wait(driver, lambda d: present(d, "matter-window"), "the window to open")
        opened = bridge()
        code = opened["window"]["manual_code"]
        wait(driver, lambda d: text(d, "matter-code").replace("-", "") == code, "the window's code")
        wait(driver, lambda d: (src := find(d, "matter-qr").get_attribute("src") or "").startswith("data:image/svg+xml") and src,
             "the window's QR code")
        left = text(driver, "matter-window-left")
        assert re.fullmatch(r"1[45]:\d\d", left), left
        driver.set_window_size(*PHONE)
        wait(driver, lambda d: find(d, "matter-qr").is_displayed(), "the QR code at a phone's width")
        no_horizontal_scroll(driver)
        shot(driver, "m-matter-window-phone")
        driver.set_window_size(*DESKTOP)

        click(driver, "matter-close-window")
        wait(driver, lambda d: not present(d, "matter-window") and not present(d, "matter-code"), "the window to close")
        assert bridge()["window"] is None

        # What another ecosystem joining does, made by the API behind the page's back: its fabric
        # changes and the window closes. The page follows while its window is open, with no reload.
        driver.execute_script("window.matterNoReload = true")
        click(driver, "matter-open-window")
        wait(driver, lambda d: present(d, "matter-window") and present(d, "matter-code"), "the window to open again")
        again = bridge()["window"]["manual_code"]
        assert house.api("DELETE", "/api/matter/fabrics/1", port=port)[0] == 200
        wait(driver, lambda d: text(d, "matter-paired") == "Not added yet" and not present(d, "matter-fabric-1"),
             "the page to drop the fabric while the window is open")
        assert text(driver, "matter-code").replace("-", "") == again  # the window's code while it is open
        assert house.api("DELETE", "/api/matter/window", port=port)[0] == 200
        own = bridge()["manual_code"]
        assert own and own not in (code, again)
        wait(driver, lambda d: not present(d, "matter-window") and text(d, "matter-code").replace("-", "") == own,
             "the page to drop the window's code for the bridge's own once the window closed")
        wait(driver, lambda d: (src := find(d, "matter-qr").get_attribute("src") or "").startswith("data:image/svg+xml")
             and "Matter%20setup%20code%20" + quote(bridge()["qr_payload"], safe="") in src, "the QR code of the bridge's own code")
        assert driver.execute_script("return window.matterNoReload") is True, "the page reloaded"
        assert text(driver, "matter-paired") == "Not added yet"
        shot(driver, "m-matter-no-fabric-desktop")
    finally:
        driver.get("about:blank")
        stop(process, "homegate-matter")
