"""Headless Chromium for the book's page tests, driven by Playwright for Python.

Playwright launches the system's Chromium by path (Debian's ``chromium``: there is no browser
download), records console messages, uncaught page errors and failed requests, evaluates
JavaScript in the page and waits on conditions (no fixed sleeps).
"""

from __future__ import annotations

import shutil
from pathlib import Path

INSTALL = "sudo apt-get install -y chromium"  # the one command that makes these checks run


def chromium() -> str | None:
    """The system Chromium's path, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium page; ``console`` and ``failed`` collect what went wrong."""

    def __init__(self, width: int = 1280, height: int = 900):
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(
            executable_path=chromium(), headless=True,
            args=["--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"])
        self.page = self._browser.new_page(viewport={"width": width, "height": height})
        self.page.set_default_timeout(30_000)
        self.console: list[dict] = []
        self.failed: list[dict] = []
        self.page.on("console", lambda m: self.console.append(
            {"level": m.type, "text": m.text, "url": m.location.get("url")}))
        self.page.on("pageerror", lambda e: self.console.append({"level": "error", "text": str(e)}))
        self.page.on("requestfailed", lambda r: self.failed.append(
            {"url": r.url, "error": r.failure}))

    @property
    def version(self) -> str:
        return self._browser.version

    def clear(self) -> None:
        self.console.clear()
        self.failed.clear()

    def resize(self, width: int, height: int = 900) -> None:
        self.page.set_viewport_size({"width": width, "height": height})

    def open(self, path: Path) -> None:
        """Open a built page and wait until it has loaded and its charts are drawn."""
        self.page.goto(Path(path).resolve().as_uri(), wait_until="load")
        self.wait_for("[...document.querySelectorAll('.vega-embed')]"
                      ".every(e => e.querySelector('svg, canvas'))")

    def js(self, expression: str):
        return self.page.evaluate(expression)

    def wait_for(self, expression: str, timeout: float = 20.0) -> bool:
        """Whether ``expression`` became truthy within ``timeout`` seconds."""
        from playwright.sync_api import TimeoutError

        try:
            self.page.wait_for_function(expression, timeout=timeout * 1000)
            return True
        except TimeoutError:
            return False

    def hover(self, selector: str) -> None:
        self.page.locator(selector).first.hover()

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        self.page.screenshot(path=str(path), full_page=full_page)

    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            self._pw.stop()
