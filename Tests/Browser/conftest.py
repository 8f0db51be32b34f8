"""Starts `ferry serve --demo` on a free port with a throwaway database, and Chromium."""
import json
import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
HOSTS = ["go.demo.ferry.test", "open.demo.ferry.test"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    binary = os.environ.get("FERRY_BINARY") or str(ROOT / ".build/debug/ferry")
    folder = tempfile.mkdtemp(prefix="ferry-browser-")
    database = os.path.join(folder, "ferry.sqlite")
    port = free_port()
    # A link whose title and description are attacks: the page must show them as text.
    subprocess.run([binary, "app", "list", "--database", database], check=True, capture_output=True)
    process = subprocess.Popen(
        [binary, "serve", "--demo", "--port", str(port), "--database", database, "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("ferry serve did not start")
        subprocess.run([binary, "link", "create", "--domain", "go.demo.ferry.test", "--path", "/u/666", "--code", "xss",
                        "--title", "<script>alert(1)</script>", "--description", "\"><img src=x onerror=alert(2)>",
                        "--database", database], check=True, capture_output=True)
        yield {"port": port, "database": database, "binary": binary}
    finally:
        process.terminate()
        process.wait(timeout=30)


def make_driver(port, user_agent, width, height, pixel_ratio):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        # The demo's domains (and the stores) resolve to this machine; nothing leaves it.
        "--host-resolver-rules=" + ", ".join(f"MAP {host} 127.0.0.1" for host in HOSTS)
        + ", MAP apps.apple.com 127.0.0.1, MAP play.google.com 127.0.0.1",
        # The clipboard API needs a secure context; the test server speaks plain HTTP.
        "--unsafely-treat-insecure-origin-as-secure=" + ",".join(f"http://{host}:{port}" for host in HOSTS),
    ]:
        options.add_argument(argument)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": width, "height": height, "pixelRatio": pixel_ratio, "touch": True},
        "userAgent": user_agent,
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(15)
    return driver


IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")
ANDROID_FACEBOOK = ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240405.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
                    "Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/460.0.0.48.109;]")


@pytest.fixture
def iphone(server):
    driver = make_driver(server["port"], IPHONE, 390, 844, 3)
    driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": f"http://go.demo.ferry.test:{server['port']}",
        "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
    })
    yield driver
    driver.quit()


@pytest.fixture
def android(server):
    driver = make_driver(server["port"], ANDROID_FACEBOOK, 412, 915, 2.625)
    yield driver
    driver.quit()


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


DESKTOP = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36")


@pytest.fixture
def phone_dashboard(server):
    """A marketer on a phone-sized screen (the dashboard must work there)."""
    driver = make_driver(server["port"], IPHONE, 390, 844, 3)
    yield driver
    driver.quit()


@pytest.fixture
def admin_key(server):
    output = subprocess.run([server["binary"], "apikey", "create", "--name", "browser", "--database", server["database"]],
                            check=True, capture_output=True, text=True).stdout
    return output.split()[1]


@pytest.fixture(scope="session")
def dashboard_user(server):
    email, password = "marketer@demo.ferry.test", "a long browser password"
    subprocess.run([server["binary"], "user", "create", "--email", email, "--name", "Marketer", "--database", server["database"]],
                   input=password + "\n", check=True, capture_output=True, text=True)
    return email, password
