"""The preview page in a real browser, as an iPhone and an Android phone see it."""
import json
import sqlite3
import time

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import console_errors, screenshot


def test_iphone_preview_page_renders_cleanly(iphone, server):
    iphone.get(f"http://go.demo.ferry.test:{server['port']}/hello")
    assert iphone.find_element(By.TAG_NAME, "h1").text == "Ada on Ferry Demo"
    assert console_errors(iphone) == []
    path = screenshot(iphone, "preview-page-iphone.png")
    assert path.stat().st_size > 5000


def test_open_in_app_points_at_the_alternate_domain(iphone, server):
    iphone.get(f"http://go.demo.ferry.test:{server['port']}/hello")
    href = iphone.find_element(By.ID, "open").get_attribute("href")
    assert href == "https://open.demo.ferry.test/hello"


def test_get_the_app_copies_the_token_url_and_goes_to_the_store(iphone, server):
    page = f"http://go.demo.ferry.test:{server['port']}/hello"
    iphone.get(page)
    get = iphone.find_element(By.ID, "get")
    copied = get.get_attribute("data-copy")
    store = get.get_attribute("href")
    assert copied.startswith("https://go.demo.ferry.test/hello?ferry_token=")
    assert len(copied.split("ferry_token=")[1]) >= 16
    assert store.startswith("https://apps.apple.com/app/id1234567890")
    get.click()
    WebDriverWait(iphone, 10).until(lambda driver: driver.current_url.startswith("https://apps.apple.com/"))
    # Back on the page, the clipboard holds the link with the token.
    iphone.get(page)
    clipboard = iphone.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "navigator.clipboard.readText().then(done, error => done('error: ' + error));")
    assert clipboard == copied


def test_the_page_reports_screen_zone_and_languages_for_its_token(iphone, server):
    # What a probabilistic match compares if the token gets lost: the page sends it with
    # navigator.sendBeacon, and it reaches the click's deferred intent in the database.
    iphone.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Berlin"})
    iphone.get(f"http://go.demo.ferry.test:{server['port']}/hello")
    token = iphone.find_element(By.ID, "get").get_attribute("data-copy").split("ferry_token=")[1]
    signals = None
    for _ in range(50):
        with sqlite3.connect(server["database"]) as db:
            row = db.execute("SELECT document FROM deferred_intents WHERE token = ?", (token,)).fetchone()
        signals = json.loads(row[0])["signals"] if row else None
        if signals and "screen" in signals:
            break
        time.sleep(0.1)
    assert signals is not None, "the click left a deferred intent"
    assert signals["screen"] == {"width": 390, "height": 844}
    assert signals["timeZone"] == "Europe/Berlin"
    assert signals["languages"] and all(language == language.lower() for language in signals["languages"])
    assert signals["platform"] == "ios"
    assert console_errors(iphone) == []


def test_android_in_app_browser_gets_an_intent_button(android, server):
    android.get(f"http://go.demo.ferry.test:{server['port']}/hello")
    href = android.find_element(By.ID, "open").get_attribute("href")
    assert href.startswith("intent://go.demo.ferry.test/hello#Intent;scheme=https;package=com.example.ferrydemo;")
    assert "S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2F" in href
    assert console_errors(android) == []
    screenshot(android, "preview-page-android.png")


def test_a_hostile_title_is_shown_and_runs_nothing(iphone, server):
    iphone.get(f"http://go.demo.ferry.test:{server['port']}/xss")
    assert iphone.find_element(By.TAG_NAME, "h1").text == "<script>alert(1)</script>"
    assert iphone.title == "<script>alert(1)</script>"
    with pytest.raises(NoAlertPresentException):
        iphone.switch_to.alert.text
    assert iphone.find_elements(By.CSS_SELECTOR, "main img[src='x']") == []
    assert console_errors(iphone) == []
