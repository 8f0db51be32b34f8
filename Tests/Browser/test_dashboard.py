"""The dashboard in Chromium: sign in, create a link, click it as an iPhone, see the visit;
a bad form shows a clear error and changes nothing; a forged cross-site form is refused."""
import http.server
import threading
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import IPHONE, console_errors, free_port, screenshot


def sign_in(driver, server, key=None, account=None):
    base = f"http://127.0.0.1:{server['port']}"
    driver.get(base + "/dashboard")
    assert driver.current_url == base + "/dashboard/signin"
    screenshot(driver, "dashboard-signin.png")
    if account:
        driver.find_element(By.ID, "email").send_keys(account[0])
        driver.find_element(By.ID, "password").send_keys(account[1])
    else:
        driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#signin button").click()
    WebDriverWait(driver, 10).until(expected_conditions.url_to_be(base + "/dashboard/links"))
    return base


def create_link(driver, code, path, title="", domain="go.demo.ferry.test"):
    Select(driver.find_element(By.ID, "domain")).select_by_value(domain)
    driver.find_element(By.ID, "path").send_keys(path)
    driver.find_element(By.ID, "code").send_keys(code)
    if title:
        driver.find_element(By.ID, "title").send_keys(title)
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "#new-link button").click()
    WebDriverWait(driver, 10).until(expected_conditions.staleness_of(page))


def test_sign_in_create_a_link_click_it_and_see_the_visit(phone_dashboard, server, dashboard_user):
    driver = phone_dashboard
    base = sign_in(driver, server, account=dashboard_user)
    # A new app with its link domain.
    driver.get(base + "/dashboard/apps")
    for field, value in [("id", "browserapp"), ("name", "Browser App"), ("web", "https://browser.example"), ("host", "go.browser.test"),
                         ("iosAppID", "ABCDE12345.com.browser.app"), ("appStoreID", "123"), ("route", "/u/{id}"),
                         ("routeWeb", "https://browser.example/u/{id}")]:
        driver.find_element(By.ID, field).send_keys(value)
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "#new-app button").click()
    WebDriverWait(driver, 10).until(expected_conditions.staleness_of(page))
    assert driver.current_url == base + "/dashboard/apps/browserapp?created=1"
    assert "ABCDE12345.com.browser.app" in driver.find_element(By.TAG_NAME, "pre").text
    driver.get(base + "/dashboard/links")
    # The messenger preview follows what is typed.
    driver.find_element(By.ID, "title").send_keys("Typed title")
    assert driver.find_element(By.CSS_SELECTOR, "#preview .preview-title").text == "Typed title"
    driver.find_element(By.ID, "title").clear()
    create_link(driver, "from-browser", "/u/77", "Made in a browser", domain="go.browser.test")
    assert driver.current_url == base + "/dashboard/links/go.browser.test/from-browser?created=1"
    assert "Link created." in driver.find_element(By.CSS_SELECTOR, "[role=status]").text

    # Someone taps the link on an iPhone.
    request = urllib.request.Request(f"http://127.0.0.1:{server['port']}/from-browser",
                                     headers={"Host": "go.browser.test", "User-Agent": IPHONE})
    with urllib.request.urlopen(request) as response:
        assert response.status == 200

    # Visits are written about once a second; the page shows the visit once it is.
    numbers = ""
    for _ in range(30):
        driver.get(base + "/dashboard/links/go.browser.test/from-browser")
        numbers = driver.find_element(By.CSS_SELECTOR, ".numbers").text
        if numbers.startswith("1\nvisits"):
            break
        time.sleep(0.25)
    assert numbers.startswith("1\nvisits"), numbers
    assert driver.find_element(By.CSS_SELECTOR, "figure svg[role=img]")
    screenshot(driver, "dashboard-link.png")
    driver.get(base + "/dashboard/links")
    assert "go.browser.test/from-browser" in driver.find_element(By.TAG_NAME, "table").text
    screenshot(driver, "dashboard-links.png")
    driver.get(base + "/dashboard/apps")
    screenshot(driver, "dashboard-apps.png")
    driver.get(base + "/dashboard/apps/browserapp")
    screenshot(driver, "dashboard-app.png")
    driver.get(base + "/dashboard/stats?app=browserapp")
    main = driver.find_element(By.TAG_NAME, "main").text
    assert "go.browser.test/from-browser" in main and main.split("\n").count("visits") == 1, main
    assert "1\nvisits" in main
    screenshot(driver, "dashboard-stats.png")
    assert console_errors(driver) == []


def test_a_bad_form_shows_a_clear_error_and_changes_nothing(phone_dashboard, server, admin_key):
    driver = phone_dashboard
    base = sign_in(driver, server, admin_key)
    create_link(driver, "nowhere-link", "/nowhere")
    alert = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
    assert "The link was not created" in alert and "path" in alert
    assert driver.find_element(By.ID, "path").get_attribute("value") == "/nowhere", "what was typed is kept"
    screenshot(driver, "dashboard-bad-form.png")
    driver.get(base + "/dashboard/links?q=nowhere-link")
    assert "No links" in driver.find_element(By.TAG_NAME, "main").text


def test_a_forged_cross_site_form_is_refused(phone_dashboard, server, admin_key):
    driver = phone_dashboard
    base = sign_in(driver, server, admin_key)
    # Another site (another origin) with a form that posts to the dashboard.
    attack = f"""<!doctype html><form method="post" action="{base}/dashboard/links">
      <input name="domain" value="go.demo.ferry.test"><input name="path" value="/u/5"><input name="code" value="forged">
      <button id="go">Win a prize</button></form>""".encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack)

        def log_message(self, *args):
            pass

    # Threads: Chromium opens spare connections, which would stall a server serving one at a time.
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        page = driver.find_element(By.TAG_NAME, "html")
        driver.find_element(By.ID, "go").click()
        WebDriverWait(driver, 10).until(expected_conditions.staleness_of(page))
        assert "Refused" in driver.find_element(By.TAG_NAME, "h1").text
        assert "Nothing was changed" in driver.find_element(By.TAG_NAME, "main").text
    finally:
        evil.shutdown()
    driver.get(base + "/dashboard/links?q=forged")
    assert "No links" in driver.find_element(By.TAG_NAME, "main").text
