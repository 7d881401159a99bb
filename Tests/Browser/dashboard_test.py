#!/usr/bin/env python3
"""Browser test of the dashboard (/__admin/ui) in headless Chromium.

Starts the built `mock-server` on port 0, loads the dashboard, sends requests to the
mock, and checks that they appear live (over the event stream), that a request's
details open, and that the scenario switcher switches. Keeps a screenshot in
artifacts/dashboard.png. Prints a closing `N passed, N failed` line; exits 1 on failure.

Needs: chromium and chromium-driver (Debian), selenium (PyPI) — `.ci/run` installs them.
Usage: python3 Tests/Browser/dashboard_test.py [path/to/mock-server]
"""
import json, os, subprocess, sys, time, urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "mock-server")
ARTIFACTS = os.path.join(ROOT, "artifacts")
results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f" — {detail}"), flush=True)


def texts(driver, css, attribute=None):
    """The texts (or an attribute) of the elements matching css, read again if the page
    re-renders them meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException
    for _ in range(20):
        try:
            return [e.get_attribute(attribute) if attribute else e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]
        except StaleElementReferenceException:
            time.sleep(0.05)
    return []


def request(base, path, method="GET", body=None, headers=None):
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def main():
    server = subprocess.Popen([BINARY, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    driver = None
    try:
        line = server.stdout.readline().strip()
        base = line.removeprefix("Listening on ")
        check("the server starts and prints its address", base.startswith("http://127.0.0.1:"), line)

        options = webdriver.ChromeOptions()
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"]:
            options.add_argument(flag)
        chromium = next((p for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] if os.path.exists(p)), None)
        if chromium:
            options.binary_location = chromium
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        wait = WebDriverWait(driver, 15)

        driver.get(base + "/__admin/ui")
        wait.until(lambda d: d.find_element(By.ID, "status").text == "live")
        check("the page loads and connects to the event stream", True)
        wait.until(lambda d: len(Select(d.find_element(By.ID, "scenario")).options) >= 15)
        check("the scenario switcher lists the shipped scenarios", True)

        # Requests sent now must appear without reloading the page.
        request(base, "/menu?category=soups")
        request(base, "/order", "POST", b'{"menuIds": [5]}', {"Content-Type": "application/json"})
        request(base, "/no-such-route")
        request(base, "/categories", headers={"X-Mock-Scenario": "server-errors"})
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#requests tr")) >= 4)
        rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#requests tr")]
        check("live rows show method, path and status", any("GET /menu?category=soups 200" in r for r in rows), rows)
        check("an unmatched request shows its 404", any("/no-such-route 404" in r for r in rows), rows)
        check("the scenario step is shown", any("server-errors/5xx-cycle#1" in r for r in rows), rows)
        wait.until(lambda d: all("…" not in r.text for r in d.find_elements(By.CSS_SELECTOR, "#requests tr")))
        check("durations arrive when responses end", all(" ms" in r.text for r in driver.find_elements(By.CSS_SELECTOR, "#requests tr")))

        # The timeline plots every request (one circle each), coloured by status.
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline circle")) >= 4)
        statuses = sorted(texts(driver, "#timeline circle", "data-status"))
        check("the timeline plots each request as a point", statuses == ["200", "200", "404", "500"], statuses)
        classes = texts(driver, "#timeline circle", "class")
        check("a 5xx point is drawn in the 5xx colour", "p5" in classes, classes)
        ticks = texts(driver, "#timeline text")
        check("the plot has a latency axis", "1 ms" in ticks and "10 ms" in ticks, ticks)

        # Routes with hit counts: the menu route answered once.
        wait.until(lambda d: any(r.startswith("restaurant.menu") and r.endswith(" 1") for r in texts(d, "#routes tr")))
        routes = texts(driver, "#routes tr")
        check("routes show their hit counts", any(r.startswith("restaurant.order") and r.endswith(" 1") for r in routes), routes)
        check("a route never asked shows 0", any(r.startswith("restaurant.categories") and r.endswith(" 0") for r in routes), routes)

        # A request that breaks its API's OpenAPI document (a misspelt query name the server
        # ignores) is answered as before, and marked, each violation's path on hover.
        status, _ = request(base, "/menu?categroy=soups")
        check("the lenient answer stays", status == 200, status)
        wait.until(lambda d: any("categroy" in r for r in texts(d, "#requests tr.violates")))
        marked = texts(driver, "#requests tr.violates")
        check("a request that breaks the API document is marked",
              len(marked) == 1 and "/menu?categroy=soups" in marked[0] and "⚠ 1 violation" in marked[0], marked)
        titles = texts(driver, "#requests td.violation", "title")
        check("the mark names the violation's path and reason",
              any("$.query.categroy: a query parameter the document does not have" in t for t in titles), titles)

        order_row = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#requests tr") if "/order" in r.text)
        order_row.click()
        wait.until(lambda d: '"answeredBy": "restaurant.order"' in d.find_element(By.ID, "details").text)
        check("clicking a row shows its headers and body", '{\\"menuIds\\": [5]}' in driver.find_element(By.ID, "details").text
              or "menuIds" in driver.find_element(By.ID, "details").text)

        Select(driver.find_element(By.ID, "scenario")).select_by_value("flaky")
        deadline = time.time() + 10
        while time.time() < deadline and json.loads(request(base, "/__admin/scenarios")[1])["current"] != "flaky":
            time.sleep(0.1)
        check("the switcher switches the server's scenario", json.loads(request(base, "/__admin/scenarios")[1])["current"] == "flaky")

        # Rules with hit counts and the state machine's state, switched to a scenario with one.
        request(base, "/__admin/scenario", "PUT", b'{"name": "order-fails-then-succeeds"}', {"Content-Type": "application/json"})
        wait.until(lambda d: "order-fails-then-succeeds" in d.find_element(By.ID, "scenario-title").text)
        check("the machine starts in Started", "order: Started" in driver.find_element(By.ID, "machines").text,
              driver.find_element(By.ID, "machines").text)
        request(base, "/order", "POST", b'{"menuIds": [1]}', {"Content-Type": "application/json"})
        wait.until(lambda d: "order: failed-once" in d.find_element(By.ID, "machines").text)
        wait.until(lambda d: any(r.startswith("order-first-failure") and r.endswith(" 1") for r in texts(d, "#rules tr")))
        rules = texts(driver, "#rules tr")
        check("the rule that answered counts one hit and the machine moved",
              any(r.startswith("order-first-failure") and r.endswith(" 1") for r in rules)
              and any(r.startswith("order-second-failure") and r.endswith(" 0") for r in rules), rules)
        check("a rule shows its state transition", any("order: Started → failed-once" in r for r in rules), rules)
        request(base, "/__admin/scenario", "PUT", b'{"name": "flaky"}', {"Content-Type": "application/json"})

        request(base, "/api/products/16/secret-0016", "DELETE", headers={"identifier": "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", "X-Mock-Scenario": "happy-path"})
        driver.find_element(By.ID, "reset-state").click()
        deadline = time.time() + 10
        while time.time() < deadline and request(base, "/api/products/16", headers={"X-Mock-Scenario": "happy-path"})[0] != 200:
            time.sleep(0.1)
        check("the reset button restores the fixtures", request(base, "/api/products/16", headers={"X-Mock-Scenario": "happy-path"})[0] == 200)
        wait.until(lambda d: "Scenario flaky" in d.find_element(By.ID, "scenario-title").text)
        check("the panel follows the scenario switch while requests keep coming", True)
        rules = texts(driver, "#rules tr")
        check("the flaky scenario's rule is listed with its hits", any(r.startswith("seeded-5xx") for r in rules), rules)

        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, "dashboard.png")
        driver.save_screenshot(shot)
        check("a screenshot is kept", os.path.getsize(shot) > 10_000, shot)

        # A chaos proxy in front of this server shows its real traffic on its own dashboard.
        proxy = subprocess.Popen([BINARY, "proxy", "--upstream", base, "--port", "0", "--scenario", "order-fails-then-succeeds"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            proxy_base = proxy.stdout.readline().strip().removeprefix("Listening on ")
            check("the proxy starts", proxy_base.startswith("http://127.0.0.1:"), proxy_base)
            driver.get(proxy_base + "/__admin/ui")
            wait.until(lambda d: d.find_element(By.ID, "status").text == "live")
            request(proxy_base, "/categories")
            request(proxy_base, "/order", "POST", b'{"menuIds": [1]}', {"Content-Type": "application/json"})
            wait.until(lambda d: len(texts(d, "#requests tr")) >= 2)
            rows = texts(driver, "#requests tr")
            check("the proxy's dashboard shows the real answer and the stubbed one",
                  any("GET /categories 200" in r for r in rows) and any("POST /order 500" in r and "order-first-failure#1" in r for r in rows), rows)
            wait.until(lambda d: "proxy 1" in d.find_element(By.ID, "other").text)
            check("answers from the upstream are counted as the proxy's", "scenario-stub 1" in driver.find_element(By.ID, "other").text,
                  driver.find_element(By.ID, "other").text)
        finally:
            proxy.terminate()
            proxy.wait(timeout=10)
    except Exception as error:  # a failure to drive the browser is a failed test, with its reason
        check("the browser test ran to the end", False, repr(error))
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait(timeout=10)
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
