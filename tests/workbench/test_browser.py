"""One end-to-end check in a real browser: `reme-workbench workbench` serves the demo
vault's notebooks in JupyterLab on 127.0.0.1; headless Chromium (Debian's `chromium`,
driven by Playwright — nothing downloads a browser) opens each review notebook, runs it,
and on the proposal queue clicks Accept: the proposal's file is then on disk.

A screenshot of each review screen is saved (to docs/screenshots/ when
WORKBENCH_SCREENSHOTS=1, else to the test's temp folder) for the README.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import copy_demo

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                       "(`apt-get install chromium`; .ci/run installs it)"),
    pytest.mark.timeout(600),
]
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "reme-browser-test"
SCREENS = ("01_dream_review", "02_communities", "03_merge_votes", "04_uncertain_duplicates",
           "05_archive")
SHOT_HEIGHT = 1300  # pixels of each screen kept in the screenshot
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(port: int, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    url = f"http://127.0.0.1:{port}/api/status?token={TOKEN}"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"JupyterLab exited: {proc.stdout.read() if proc.stdout else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError("JupyterLab did not answer on 127.0.0.1 in time")


@pytest.fixture(scope="module")
def lab(tmp_path_factory, demo_cache):
    vault = copy_demo(demo_cache, tmp_path_factory.mktemp("browser") / "reme-demo")
    exe = Path(sys.executable).with_name("reme-workbench")
    port = free_port()
    # the user's own Jupyter settings and news popups stay out: a config folder of its own
    env = {**os.environ, "JUPYTER_TOKEN": TOKEN, "JUPYTER_RUNTIME_DIR": str(vault.parent / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(vault.parent / "lab-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(vault.parent / "lab-workspaces")}
    proc = subprocess.Popen([str(exe), "--vault", str(vault), "workbench", "--no-browser",
                             "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        wait_for_server(port, proc)
        yield vault, port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_notebook(page, port: int, name: str) -> None:
    """Open `name` alone (`reset`: no tab of the last one restored), run all its cells and
    wait for its screen, whose title is an <h3>; the run is asked again if the kernel was
    not ready for the first ask."""
    page.goto(f"http://127.0.0.1:{port}/lab/tree/workbench/{name}.ipynb?reset&token={TOKEN}")
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    for attempt in range(4):
        page.wait_for_selector(".jp-StatusBar-Widget :text('Idle')", timeout=90_000)
        page.click(".jp-Notebook .jp-Cell >> nth=0")
        page.click("li.lm-MenuBar-item:has-text('Run')")
        page.click("li.lm-Menu-item:has-text('Run All Cells')")
        try:
            page.wait_for_selector(".widget-html h3", timeout=60_000)
            break
        except Exception:
            if attempt == 3:
                page.screenshot(path=f"/tmp/browser-failed-{name}.png", full_page=True)
                raise
    page.wait_for_timeout(1500)  # the last widgets and images settle


def test_the_workbench_in_a_real_browser(lab, tmp_path):
    vault, port = lab
    shots = ROOT / "docs" / "screenshots" if os.environ.get("WORKBENCH_SCREENSHOTS") else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    pending = sorted(p for p in (vault / "meta" / "proposals").glob("p-*.json")
                      if json.loads(p.read_text())["state"] == "pending")
    assert pending, "the demo should leave proposals for review"
    first = json.loads(pending[0].read_text())
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": SHOT_HEIGHT + 200})
        try:
            for name in SCREENS:
                run_notebook(page, port, name)
                no_news = page.locator(".jp-Notification-Toast button:has-text('No')")
                if no_news.count():
                    no_news.first.click()
                # the screen itself: the last cell's output, from its top, one window high
                screen = page.locator(".jp-Notebook .jp-Cell").last.locator(".jp-OutputArea")
                screen.evaluate("el => el.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(300)
                box = screen.bounding_box()
                page.screenshot(path=str(shots / f"{name}.png"), clip={
                    "x": box["x"], "y": max(box["y"], 0), "width": box["width"],
                    "height": min(box["height"], SHOT_HEIGHT)})
            # the queue: the first pending proposal is selected; accept it
            run_notebook(page, port, "01_dream_review")
            page.locator("button.widget-button", has_text="Accept").first.click()
            page.wait_for_selector(".reme-status:has-text('applied')", timeout=60_000)
        finally:
            browser.close()
    done = json.loads((vault / "meta" / "proposals" / f"{first['id']}.json").read_text())
    assert done["state"] == "applied", done.get("error")
    written = [op["path"] for op in first["ops"] if op["op"] != "delete"]
    assert written and all((vault / p).is_file() for p in written)
    before = first["before"]
    changed = [p for p in written if (vault / p).read_text(encoding="utf-8") != (before.get(p) or "")]
    assert changed, "accepting in the browser changed no file on disk"
