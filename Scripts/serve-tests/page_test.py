#!/usr/bin/env python3
"""Drives `serve`'s web page in headless Chromium (Debian's chromium and chromium-driver, with
Selenium): reaches the file input with the keyboard, uploads a photo, waits for the results,
checks the DOM, and saves screenshots at desktop and phone sizes.

Usage: page_test.py URL PHOTO SCREENSHOT_DIR
Prints one JSON object with what it found; exits 1 with a message when the page fails a check.
"""

import json
import sys
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    url, photo, shots = sys.argv[1], str(Path(sys.argv[2]).resolve()), Path(sys.argv[3])
    shots.mkdir(parents=True, exist_ok=True)
    driver = browser()
    report = {}
    try:
        driver.get(url)
        check(driver.title == "VisionCatalog", f"title is {driver.title!r}")
        # The keyboard reaches the file input first.
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
        focused = driver.execute_script("return document.activeElement && document.activeElement.id")
        report["first_tab_stop"] = focused
        check(focused == "file", f"the first Tab stop is {focused!r}, not the file input")

        driver.find_element(By.ID, "file").send_keys(photo)
        WebDriverWait(driver, 120).until(
            lambda d: not d.find_element(By.ID, "result").get_attribute("hidden")
            or "error" in (d.find_element(By.ID, "status").get_attribute("class") or ""))
        status = driver.find_element(By.ID, "status")
        report["status"] = status.text
        check("error" not in (status.get_attribute("class") or ""), f"the page shows an error: {status.text}")

        shown = driver.find_element(By.ID, "photo")
        report["photo_alt"] = shown.get_attribute("alt")
        check(shown.is_displayed() and report["photo_alt"], "the chosen photo is not shown with alt text")
        natural = driver.execute_script("const i = document.getElementById('photo'); return [i.naturalWidth, i.naturalHeight]")
        report["photo_size"] = natural
        check(natural[0] > 0, "the photo did not load")

        bars = driver.find_elements(By.CSS_SELECTOR, "#labels li")
        report["labels"] = [bar.find_element(By.TAG_NAME, "span").text for bar in bars]
        check(len(bars) == 5, f"{len(bars)} label bars, not 5")
        meters = driver.find_elements(By.CSS_SELECTOR, "#labels [role=meter]")
        check(all(m.get_attribute("aria-valuenow") for m in meters), "a bar has no value")

        report["category"] = driver.find_element(By.ID, "category").text
        check(report["category"], "no category shown")
        cards = driver.find_elements(By.CSS_SELECTOR, "#products .card")
        report["products"] = [card.find_element(By.TAG_NAME, "strong").text for card in cards]
        check(cards, "no product cards")
        alts = [card.find_element(By.TAG_NAME, "img").get_attribute("alt") for card in cards]
        check(all(alts), "a product picture has no alt text")
        driver.save_screenshot(str(shots / "page.png"))

        driver.set_window_size(390, 844)
        columns = driver.execute_script(
            "return getComputedStyle(document.querySelector('main')).gridTemplateColumns")
        report["small_screen_columns"] = columns
        check(len(columns.split()) == 1, f"the small-screen layout has columns {columns!r}")
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
        check(not overflow, "the page scrolls sideways on a small screen")
        driver.save_screenshot(str(shots / "page-small.png"))
        report["screenshots"] = [str(shots / "page.png"), str(shots / "page-small.png")]
    except AssertionError as failure:
        driver.save_screenshot(str(shots / "page-failed.png"))
        print(json.dumps(report))
        print(f"page check failed: {failure}", file=sys.stderr)
        sys.exit(1)
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
