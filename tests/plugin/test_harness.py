"""The plugin's views rendered in a real browser: the harness page (obsidian-plugin/harness/,
the views over the fake obsidian module and the fake API) built and loaded in headless
Chromium, each scene's DOM read back — the same page `npm run harness` screenshots for
docs/screenshots/07_plugin_*.png. Skipped, saying why, without chromium or without the
plugin's Node packages (`npm ci` in obsidian-plugin/, which .ci/run does)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "obsidian-plugin"
CHROMIUM = shutil.which("chromium")
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(NODE is None or not (PLUGIN / "node_modules" / "esbuild").is_dir(),
                       reason="the plugin's Node packages are not installed (npm ci in obsidian-plugin/)"),
]


@pytest.fixture(scope="module")
def page() -> str:
    subprocess.run([NODE, str(PLUGIN / "harness" / "build.mjs")], check=True, timeout=300)
    return (PLUGIN / "harness" / "index.html").as_uri()


def dom(page: str, scene: str) -> str:
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=5000", "--dump-dom", f"{page}?scene={scene}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'data-ready="yes"' in done.stdout, "the scene did not finish rendering"
    return done.stdout


def texts(html: str, cls: str) -> list[str]:
    return re.findall(rf'<[a-z]+ class="{cls}"[^>]*>([^<]*)<', html)


def test_the_related_panel_renders_the_related_notes(page):
    html = dom(page, "related")
    assert texts(html, "reme-view-title") == ["Related to pool-size"]
    names = texts(html, "reme-hit-name")
    assert names[0] == "pgbouncer-port" and "pool-size" not in names and len(names) == 5
    assert texts(html, "reme-hit-via") == ["linked"]
    assert "reme: embedding · vectors 12/37 files" in html


def test_the_search_modal_renders_its_hits(page):
    html = dom(page, "search")
    modal = html[html.index('class="modal-container"'):]
    assert texts(modal, "reme-hit-name") == ["pgbouncer-port", "statement-timeout", "database-overview"]


def test_the_review_view_renders_a_proposal_with_its_story_and_diff(page):
    html = dom(page, "review")
    assert texts(html, "reme-action reme-action-[a-z]+") == ["hub", "merge", "refine"]
    assert "material" in texts(html, "reme-story-key")
    assert any(t.startswith("+description: The payments-api DB pool size is 40")
               for t in texts(html, "reme-diff-add"))
    assert "dream 1/3" in html  # the running job in the status bar
