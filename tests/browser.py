"""A small headless-Chromium driver over the DevTools protocol, for the book's page tests.

It opens a page from the built book (``file://``), records console messages and failed network
requests, evaluates JavaScript in the page and moves the mouse.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="anchorkit-chromium-")
        port = _free_port()
        self.proc = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self.profile}",
             f"--remote-debugging-port={port}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
                    targets = [t for t in json.load(r) if t["type"] == "page"]
                if targets:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError("chromium did not start")
            time.sleep(0.2)
        self.ws = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=30)
        self._id = 0
        self.console: list[dict] = []
        self.failed: list[dict] = []
        self._requests: dict[str, str] = {}
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _event(self, msg: dict) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.console.append({"level": params["type"], "text": text})
        elif method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.console.append({"level": "error", "text": d.get("exception", {}).get(
                "description", d.get("text", ""))})
        elif method == "Log.entryAdded":
            e = params["entry"]
            self.console.append({"level": e["level"], "text": e["text"], "url": e.get("url")})
        elif method == "Network.requestWillBeSent":
            self._requests[params["requestId"]] = params["request"]["url"]
        elif method == "Network.loadingFailed":
            self.failed.append({"url": self._requests.get(params["requestId"]),
                                "error": params.get("errorText")})

    def call(self, method: str, **params):
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def pump(self, seconds: float) -> None:
        """Let the page run (and its events arrive) for a while."""
        end = time.time() + seconds
        self.ws.settimeout(0.2)
        try:
            while time.time() < end:
                try:
                    self._event(json.loads(self.ws.recv()))
                except websocket.WebSocketTimeoutException:
                    pass
        finally:
            self.ws.settimeout(30)

    def open(self, path: Path, settle: float = 3.0) -> None:
        self.call("Page.navigate", url=Path(path).resolve().as_uri())
        self.wait_for("document.readyState === 'complete'")
        self.pump(settle)

    def js(self, expression: str):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> bool:
        end = time.time() + timeout
        while time.time() < end:
            if self.js(expression):
                return True
            self.pump(0.2)
        return False

    def hover(self, selector: str) -> None:
        box = self.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        for x, y in ((box[0] - 40, box[1] - 40), box):
            self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
            self.pump(0.3)

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            self.proc.wait(10)
            shutil.rmtree(self.profile, ignore_errors=True)
