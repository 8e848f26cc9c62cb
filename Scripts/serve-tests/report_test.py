#!/usr/bin/env python3
"""Opens an `evaluate --report` file in headless Chromium (Debian's chromium and chromium-driver,
with Selenium) and checks it: the figures, the per-class table and its sorting (by mouse and by
keyboard), the confusion heat map, the misclassified thumbnails with alt text, that nothing is
fetched from anywhere, and the small-screen layout; saves screenshots.

Usage: report_test.py REPORT.html SCREENSHOT_DIR
Prints one JSON object with what it found; exits 1 with a message when a check fails.
"""

import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_test import browser, check


def column_values(driver, index):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#classes tbody tr')).map(r => "
        f"{index} === 0 ? r.cells[0].textContent : Number(r.cells[{index}].dataset.value))")


def main():
    report_path, shots = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    shots.mkdir(parents=True, exist_ok=True)
    driver = browser()
    found = {}
    try:
        driver.get(report_path.as_uri())
        found["title"] = driver.title
        figures = {
            element.find_element(By.TAG_NAME, "span").text: element.find_element(By.TAG_NAME, "strong").text
            for element in driver.find_elements(By.CSS_SELECTOR, ".figure")
        }
        found["figures"] = figures
        check("accuracy" in figures and figures["accuracy"].endswith("%"), "no accuracy figure")
        rows = driver.find_elements(By.CSS_SELECTOR, "#classes tbody tr")
        found["classes"] = len(rows)
        check(len(rows) == int(figures["classes"]), "the table does not have a row per class")

        recall = driver.find_element(By.CSS_SELECTOR, "#classes thead button[data-column='2']")
        recall.click()
        descending = column_values(driver, 2)
        check(descending == sorted(descending, reverse=True), "recall did not sort descending")
        # The keyboard sorts too: Enter on the focused header button reverses the order.
        driver.execute_script("arguments[0].focus()", recall)
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        ascending = column_values(driver, 2)
        check(ascending == sorted(ascending), "Enter on the recall header did not reverse the order")
        driver.find_element(By.CSS_SELECTOR, "#classes thead button[data-column='0']").click()
        names = column_values(driver, 0)
        check(names == sorted(names, key=lambda n: n.lower()) or names == sorted(names),
              "the class names did not sort")
        found["sorted_by_keyboard"] = True

        cells = driver.find_elements(By.CSS_SELECTOR, ".heatmap svg rect title")
        found["heatmap_cells"] = len(cells)
        check(cells, "the heat map has no cells")
        label = driver.find_element(By.CSS_SELECTOR, ".heatmap svg").get_attribute("aria-label")
        check(label.startswith("Confusion matrix"), "the heat map has no accessible name")

        thumbnails = driver.find_elements(By.CSS_SELECTOR, ".gallery img")
        found["thumbnails"] = len(thumbnails)
        check(len(driver.find_elements(By.CSS_SELECTOR, ".gallery figure")) == int(figures["misclassified"]),
              "not one figure per misclassified photo")
        check(all(image.get_attribute("alt") for image in thumbnails), "a thumbnail has no alt text")
        loaded = driver.execute_script(
            "return Array.from(document.querySelectorAll('.gallery img')).every(i => i.naturalWidth > 0)")
        check(loaded, "a thumbnail did not load")
        fetched = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(n => !n.startsWith('data:'))")
        found["fetched"] = fetched
        check(not fetched, f"the report fetched {fetched}")
        driver.save_screenshot(str(shots / "report.png"))

        driver.set_window_size(390, 844)
        overflow = driver.execute_script(
            "return document.body.scrollWidth > document.documentElement.clientWidth + 1")
        check(not overflow, "the report scrolls sideways on a small screen (outside the heat map)")
        driver.save_screenshot(str(shots / "report-small.png"))
    except AssertionError as failure:
        driver.save_screenshot(str(shots / "report-failed.png"))
        print(json.dumps(found))
        print(f"report check failed: {failure}", file=sys.stderr)
        sys.exit(1)
    finally:
        driver.quit()
    print(json.dumps(found))


if __name__ == "__main__":
    main()
