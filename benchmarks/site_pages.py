"""Benchmark a built site as a reader meets it (issue 14): page weights, the one-page
edition's first render, the go-to box's answer time, in Debian's chromium from disk.

Run: ``.venv/bin/python benchmarks/site_pages.py KB`` (a knowledge base built by
``comprules build``, e.g. ``make site`` → ``build``). Prints, against the targets:

* the largest page of the site ≤ 150 KB, all.html pages apart (the five largest listed);
* the size of the latest English edition's all.html, and its first render in chromium
  (first contentful paint and the load event, median of 3 cold loads) beside the same
  edition's 702.html loaded the same way (the baseline, same run);
* the go-to box: Enter to the rule shown, for "702.37a" (the page's own edition, the
  edition's lineage table only) and for "502.26a" (an old number: words of the lineage
  table plus the numbers script of its chapter), median of 3, from a cold page.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

TARGET_PAGE = 150 * 1024
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def page_sizes(site: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(size, path) of every page but all.html, largest first; and of the all.html pages."""
    pages, single = [], []
    for path in site.rglob("*.html"):
        if "latest" in path.relative_to(site).parts:
            continue  # a hard-linked copy of the latest edition
        row = (path.stat().st_size, str(path.relative_to(site)))
        (single if path.name == "all.html" else pages).append(row)
    return sorted(pages, reverse=True), sorted(single, reverse=True)


def first_render(browser, url: str, runs: int = 3) -> tuple[float, float]:
    """Median first contentful paint and load event (ms) of cold loads of ``url``."""
    paints, loads = [], []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(url, wait_until="load")
        page.wait_for_timeout(200)  # the paint entry is recorded after the frame
        timing = page.evaluate("""() => {
            const p = performance.getEntriesByName('first-contentful-paint')[0];
            const n = performance.getEntriesByType('navigation')[0];
            return [p ? p.startTime : -1, n.loadEventEnd]; }""")
        paints.append(timing[0])
        loads.append(timing[1])
        context.close()
    return statistics.median(paints), statistics.median(loads)


def goto_time(browser, start: str, query: str, rule: str, runs: int = 3) -> float:
    """Median ms from Enter in the header's box to the rule's element shown."""
    times = []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(start)
        page.keyboard.press("/")
        page.keyboard.type(query)
        began = time.perf_counter()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "id => { const e = document.getElementById(id); return e !== null &&"
            " decodeURIComponent(location.hash.slice(1)) === id && !e.hasAttribute('data-go'); }",
            arg=rule,
        )
        times.append((time.perf_counter() - began) * 1000)
        context.close()
    return statistics.median(times)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = Path(sys.argv[1]).resolve() / "site"
    if not (site / "index.html").is_file():
        sys.exit(f"{site}: no site (build the knowledge base first)")
    pages, single = page_sizes(site)
    print(f"pages: {len(pages) + len(single)} ({len(single)} all.html)")
    largest = pages[0]
    mark = "ok" if largest[0] <= TARGET_PAGE else "OVER TARGET"
    print(
        f"largest page but all.html: {largest[1]} {largest[0] / 1024:.1f} KB (target {TARGET_PAGE // 1024} KB) {mark}"
    )
    for size, path in pages[1:5]:
        print(f"  next: {path} {size / 1024:.1f} KB")
    latest = max((p for p in (site / "en").iterdir() if p.name[:1].isdigit()), key=lambda p: p.name)
    one = latest / "all.html"
    print(
        f"largest all.html: {single[0][1]} {single[0][0] / 1e6:.2f} MB; {one.relative_to(site)} "
        f"{one.stat().st_size / 1e6:.2f} MB"
    )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        base_paint, base_load = first_render(browser, (latest / "702.html").as_uri())
        paint, load = first_render(browser, one.as_uri())
        print(
            f"first render, median of 3 cold loads: all.html paint {paint:.0f} ms, load {load:.0f} ms; "
            f"702.html paint {base_paint:.0f} ms, load {base_load:.0f} ms (baseline); "
            f"ratio {load / base_load:.1f}x"
        )
        start = (latest / "100.html").as_uri()
        direct = goto_time(browser, start, "702.37a", "702.37a")
        old = goto_time(browser, start, "502.26a", "702.37a")
        print(
            f"go-to box, Enter to the rule shown (median of 3): 702.37a {direct:.0f} ms (baseline), "
            f"502.26a {old:.0f} ms, ratio {old / direct:.1f}x"
        )
        browser.close()


if __name__ == "__main__":
    main()
