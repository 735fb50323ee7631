"""The built documentation as a reader sees it: home, getting started, the API reference and the
benchmarks page rendered by headless Chromium, at a desktop and a phone width.

Runs in ``nox -s docs`` after ``mkdocs build`` (which sets ``CHAINRULES_DOCS_SITE=site``); without
that variable the module is skipped (one line: there is no built site). With it, a missing
Chromium is a failure, not a skip. Each page is copied with a small script added that, once the
page has loaded, records what the browser laid out; Chromium's ``--dump-dom`` hands it back (and
``--screenshot`` keeps a picture of each page beside it). A page fails on:

* raw roles: reST cross-reference roles (``:func:`name```) that reached the rendered text;
* broken images: an ``<img>`` that did not load (``naturalWidth`` 0);
* text cut off without a scrollbar: a visible element with text whose ``overflow-x`` is
  ``hidden`` or ``clip`` and whose content is wider than its box (Material's code blocks and
  tables scroll, ``overflow: auto``, so they pass by design).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SITE = os.environ.get("CHAINRULES_DOCS_SITE")
if not SITE:
    pytest.skip(
        "renders the built site: runs in `nox -s docs` (set CHAINRULES_DOCS_SITE to a site/)",
        allow_module_level=True,
    )

PAGES = {
    "home": "index.html",
    "getting-started": "getting-started/index.html",
    "api": "api/index.html",
    "benchmarks": "benchmarks/index.html",
}
WIDTHS = {"desktop": 1280, "phone": 412}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|obj|data|exc|const|ref|doc|term):`?[~\w.]")

# Added before </body>: after the load event (images loaded or failed), what was laid out.
PROBE = """<script>
window.addEventListener("load", function () {
  var out = {text: document.body.innerText, images: [], cut: []};
  document.querySelectorAll("img").forEach(function (img) {
    out.images.push({src: img.getAttribute("src"), complete: img.complete,
                     width: img.naturalWidth});
  });
  var vw = document.documentElement.clientWidth;
  // on screen: its box, cut by every ancestor that clips, still overlaps the viewport (a closed
  // drawer's panels lie inside the viewport but outside their clipping ancestor)
  function shown(el) {
    if (el.checkVisibility && !el.checkVisibility({checkVisibilityCSS: true})) return false;
    var r = el.getBoundingClientRect(), left = Math.max(r.left, 0), right = Math.min(r.right, vw);
    for (var a = el.parentElement; a && right - left > 1; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === "visible") continue;
      var q = a.getBoundingClientRect();
      left = Math.max(left, q.left);
      right = Math.min(right, q.right);
    }
    return right - left > 1;
  }
  document.querySelectorAll("body *").forEach(function (el) {
    var s = getComputedStyle(el);
    if (s.overflowX !== "hidden" && s.overflowX !== "clip") return;
    if (el.scrollWidth <= el.clientWidth + 1) return;
    if (!shown(el)) return;
    var text = (el.innerText || "").trim();
    if (!text) return;
    out.cut.push({tag: el.tagName.toLowerCase(), cls: String(el.className),
                  scroll: el.scrollWidth, box: el.clientWidth, text: text.slice(0, 80)});
  });
  var pre = document.createElement("pre");
  pre.id = "chainrules-render-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _browser() -> str:
    given = os.environ.get("CHROMIUM")
    found = [w for w in ([given] if given else BROWSERS) if w and shutil.which(w)]
    if not found:
        pytest.fail(
            "the rendered-docs check needs Chromium and found "
            + (f"no browser at $CHROMIUM={given}" if given else f"none of {', '.join(BROWSERS)}")
            + " on PATH. Install it (`apt-get install -y chromium` on Debian and Ubuntu; `.ci/run`"
            " does so when it can) or point $CHROMIUM at a Chrome or Chromium binary.",
            pytrace=False,
        )
    return shutil.which(found[0]) or found[0]


def _add_probe(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "</body>" in text, page
    page.write_text(text.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")


def _render(browser: str, page: Path, width: int, shot: Path, profile: Path) -> dict[str, Any]:
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        f"--window-size={width},900",
        "--virtual-time-budget=10000",
        f"--screenshot={shot}",
        "--dump-dom",
        page.as_uri(),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r'<pre id="chainrules-render-probe">(.*?)</pre>', done.stdout, re.S)
    if done.returncode != 0 or not found:
        pytest.fail(
            f"{browser} did not render {page} (exit {done.returncode}); its last output:\n"
            + done.stderr[-2000:],
            pytrace=False,
        )
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """(page, width) -> what the probe recorded; the site is copied, the original untouched."""
    site = Path(SITE)  # type: ignore[arg-type]
    if not (site / "index.html").is_file():
        pytest.fail(f"CHAINRULES_DOCS_SITE={SITE} has no index.html: run mkdocs build first")
    browser = _browser()
    work = tmp_path_factory.mktemp("render")
    copy = work / "site"
    shutil.copytree(site, copy)
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for name, rel in PAGES.items():
        page = copy / rel
        _add_probe(page)
        for wname, width in WIDTHS.items():
            shot = work / f"{name}-{wname}.png"
            out[name, wname] = _render(browser, page, width, shot, work / "profile")
            out[name, wname]["screenshot"] = str(shot)
    return out


def _page_params() -> list[Any]:
    return [pytest.param(name, id=name) for name in PAGES]


@pytest.mark.parametrize("page", _page_params())
def test_no_raw_roles_in_the_rendered_text(rendered: Any, page: str) -> None:
    got = rendered[page, "desktop"]
    roles = sorted({m.group(0) for m in ROLE.finditer(got["text"])})
    assert not roles, f"{PAGES[page]} shows raw roles {roles} (screenshot {got['screenshot']})"


@pytest.mark.parametrize("page", _page_params())
def test_every_image_loads(rendered: Any, page: str) -> None:
    got = rendered[page, "desktop"]
    broken = [i["src"] for i in got["images"] if not i["complete"] or i["width"] == 0]
    assert not broken, f"{PAGES[page]}: images that did not load: {broken}"


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("page", _page_params())
def test_no_text_cut_off_without_a_scrollbar(rendered: Any, page: str, width: str) -> None:
    got = rendered[page, width]
    cut = [
        f"<{c['tag']} class={c['cls']!r}> {c['scroll']}px in {c['box']}px: {c['text']!r}"
        for c in got["cut"]
    ]
    assert not cut, (
        f"{PAGES[page]} at {WIDTHS[width]}px cuts text off with no scrollbar "
        f"(screenshot {got['screenshot']}):\n" + "\n".join(cut)
    )


def test_the_probe_saw_the_pages(rendered: Any) -> None:
    """The checks above read what the script recorded: it ran on every page and width, and the
    benchmarks page's plots were among the images it saw."""
    assert set(rendered) == {(p, w) for p in PAGES for w in WIDTHS}
    for key, got in rendered.items():
        assert len(got["text"]) > 500, key
        assert Path(got["screenshot"]).stat().st_size > 0, key
    srcs = [i["src"] for i in rendered["benchmarks", "desktop"]["images"]]
    assert any(s.endswith("population_grad.svg") for s in srcs), srcs


DEFECTS = """<!doctype html><html><body style="margin:0">
<p>Use :func:`check_cotangent` and :class:<code>Tangent</code>.</p>
<img src="missing.png" alt="missing"><img src="dot.svg" alt="present">
<div style="width:120px;overflow:hidden;white-space:nowrap">a long line of text cut off</div>
<div style="width:120px;overflow-x:clip;white-space:nowrap">another long cut line</div>
<div style="width:120px;overflow:auto;white-space:nowrap">a long line that scrolls</div>
<div style="position:fixed;left:-200px;width:200px;overflow:hidden">
  <div style="position:absolute;left:200px;width:60px;overflow:hidden;white-space:nowrap">
    panel of a closed drawer</div></div>
</body></html>"""
DOT = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<circle r="4" cx="5" cy="5"/></svg>'
)


def test_the_probe_finds_each_defect(tmp_path: Path) -> None:
    """The checks are only as good as the probe: on a page made of the three defects (and of
    what must pass: a scrolling box, a panel clipped away by a closed drawer) it reports each
    defect and nothing else."""
    page = tmp_path / "defects.html"
    page.write_text(DEFECTS, encoding="utf-8")
    (tmp_path / "dot.svg").write_text(DOT, encoding="utf-8")
    _add_probe(page)
    got = _render(_browser(), page, 800, tmp_path / "defects.png", tmp_path / "profile")
    assert sorted({m.group(0) for m in ROLE.finditer(got["text"])}) == [":class:T", ":func:`c"]
    broken = {i["src"]: (i["complete"] and i["width"] > 0) for i in got["images"]}
    assert broken == {"missing.png": False, "dot.svg": True}
    assert sorted(c["text"] for c in got["cut"]) == [
        "a long line of text cut off",
        "another long cut line",
    ]
