"""The backprop explorer in a real browser: headless Chromium driven by selenium.

Debian's `chromium` and `chromium-driver` (`make browser` installs them, as `make graphviz`
installs dot) and the selenium package (dev extra). Where they are missing these tests skip
with a note; CI (.ci/run) installs them and sets TINYGRAD_NORM_REQUIRE_BROWSER=1, which turns
that skip into a failure.

Each test opens the saved page from disk (`file://...#step=K`), as a learner would, and
checks what the page shows against `tg.backprop_steps` run on a fresh copy of the same graph.
"""

import io
import os
import shutil
import tempfile

import pytest

import tinygrad_norm as tg
from tinygrad_norm.cli.draw import mlp_example
from tinygrad_norm.cli.explore import gpt_block_example
from tinygrad_norm.learn.explore import _text

# Debian puts them here; elsewhere whatever PATH finds.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",  # needed as root (CI containers)
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--proxy-server=127.0.0.1:9",  # the network is off: a fetch would fail, not succeed
    "--window-size=1400,900",
]
INSTALL_NOTE = (
    "needs headless Chromium and selenium: `make browser` (apt-get install chromium "
    "chromium-driver, as root) and `pip install selenium` (the dev extra)"
)


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    for program in (CHROMIUM, CHROMEDRIVER):
        if not os.access(program, os.X_OK):
            return f"{program} is not installed"
    if shutil.which("dot") is None:
        return "Graphviz's dot is not installed"
    return None


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        if os.environ.get("TINYGRAD_NORM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{missing}; CI must run the browser tests: {INSTALL_NOTE}")
        pytest.skip(f"{missing}; {INSTALL_NOTE}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="tg-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    # The driver's path given explicitly: selenium-manager never downloads one.
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def mlp_page(tmp_path_factory):
    """(path of the saved page, its Explorer, the steps of backprop_steps on a fresh copy)."""
    loss, model = mlp_example()
    explorer = tg.explore(loss, params=model, title="MLP")
    path = explorer.save(tmp_path_factory.mktemp("explore") / "mlp.html")
    fresh_loss, _ = mlp_example()
    expected = [
        (step.op, step.formula, _text(step.grad_output)) for step in tg.backprop_steps(fresh_loss)
    ]
    return path, explorer, expected


def shown(driver) -> dict:
    """What the page shows now: the panel's fields and the elements marked `current`."""
    return driver.execute_script(
        """
        const text = (id) => document.getElementById(id).textContent;
        const current = [...document.querySelectorAll(".current")];
        return {
          index: text("step-index"), op: text("step-op"), formula: text("step-formula"),
          grad_output: text("step-grad-output"), hash: window.location.hash,
          current: current.map((e) => [e.id, e.tagName, e.textContent.trim()]),
          sending: document.querySelectorAll("#graph .sending").length,
        };
        """
    )


def check_step(page: dict, k: int, explorer, expected) -> None:
    op, formula, grad_output = expected[k]
    assert (page["index"], page["op"], page["formula"]) == (str(k), op, formula)
    assert page["grad_output"] == grad_output
    assert page["current"] == [[explorer.steps[k]["node"], "g", op]], page["current"]
    assert page["sending"] >= 1  # at least the arrow that brought grad_output


def test_opening_each_step_by_its_hash(browser, mlp_page):
    path, explorer, expected = mlp_page
    assert len(expected) == len(explorer.steps) > 5
    for k in range(len(expected)):
        browser.get("about:blank")  # a fresh load each time, not a hash change
        browser.get(f"{path.as_uri()}#step={k}")
        check_step(shown(browser), k, explorer, expected)
    assert browser.find_element("id", "leaf-grads").is_displayed()  # the last step
    leaf_text = browser.find_element("id", "leaf-list").text
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        assert f"{name}.grad" in leaf_text


def test_clicking_next_and_previous_and_the_arrow_keys(browser, mlp_page):
    from selenium.webdriver.common.keys import Keys

    path, explorer, expected = mlp_page
    browser.get(path.as_uri())
    check_step(shown(browser), 0, explorer, expected)
    assert not browser.find_element("id", "leaf-grads").is_displayed()
    for k in range(1, len(expected)):
        browser.find_element("id", "step-next").click()
        page = shown(browser)
        check_step(page, k, explorer, expected)
        assert page["hash"] == f"#step={k}"  # a link to this step
    browser.find_element("id", "step-next").click()  # past the end: stays at the last step
    check_step(shown(browser), len(expected) - 1, explorer, expected)
    browser.find_element("id", "step-prev").click()
    check_step(shown(browser), len(expected) - 2, explorer, expected)
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_LEFT)
    check_step(shown(browser), len(expected) - 3, explorer, expected)
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    check_step(shown(browser), len(expected) - 1, explorer, expected)


def test_the_slider_and_a_changed_hash(browser, mlp_page):
    path, explorer, expected = mlp_page
    browser.get(path.as_uri())
    browser.execute_script(
        "const s = document.getElementById('step-slider');"
        "s.value = '3'; s.dispatchEvent(new Event('input'));"
    )
    check_step(shown(browser), 3, explorer, expected)
    browser.execute_script("window.location.hash = '#step=2'")
    check_step(shown(browser), 2, explorer, expected)
    browser.execute_script("window.location.hash = '#step=999'")  # clamped to the last step
    check_step(shown(browser), len(expected) - 1, explorer, expected)


def test_a_screenshot_is_not_blank(browser, mlp_page):
    Image = pytest.importorskip("PIL.Image", reason="Pillow (with matplotlib) reads the PNG")
    path, _, _ = mlp_page
    browser.get(f"{path.as_uri()}#step=4")
    png = browser.get_screenshot_as_png()
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert image.size[0] >= 800 and len(colours) > 100  # text, boxes, gold, red, green
    gold = sum(n for n, (r, g, b) in colours if r > 240 and 200 < g < 225 and b < 30)
    assert gold > 500  # the current op, filled in gold


def test_a_gpt_block_page_is_small_offline_and_loads_fast(browser, tmp_path):
    loss, block = gpt_block_example()
    explorer = tg.explore(loss, params=block)
    path = explorer.save(tmp_path / "gpt_block.html")
    size = path.stat().st_size
    assert size < 2_000_000
    browser.get(f"{path.as_uri()}#step=3")
    timing = browser.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return [n.domContentLoadedEventEnd, n.loadEventEnd];"
    )
    resources = browser.execute_script("return performance.getEntriesByType('resource').length")
    print(
        f"GPT-block page: {size / 1e3:.0f} kB, {len(explorer)} steps, loaded in "
        f"{timing[1]:.0f} ms (DOM ready {timing[0]:.0f} ms)"
    )
    assert resources == 0  # fetched nothing: no script, style, image or font from anywhere
    assert 0 < timing[1] < 5000  # generous: the page loads in well under a second here
    assert shown(browser)["op"] == explorer.steps[3]["op"]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def _graph_overflow(driver) -> list:
    """The graph's nodes that reach beyond its pane's left or right edge, as [id, left, right,
    pane left, pane right] in CSS pixels."""
    return driver.execute_script(
        """
        const pane = document.getElementById("graph").getBoundingClientRect();
        return [...document.querySelectorAll("#graph .node")]
          .map((n) => [n.id, n.getBoundingClientRect()])
          .filter(([, r]) => r.left < pane.left - 0.5 || r.right > pane.right + 0.5)
          .map(([id, r]) => [id, r.left, r.right, pane.left, pane.right]);
        """
    )


@pytest.mark.parametrize("width", [1280, 1024])
def test_the_mlp_graph_fits_its_pane_in_a_laptop_window(browser, mlp_page, width):
    """Graphviz draws the MLP wider than the pane beside the panel in a 1280-pixel window; the
    page scales it to fit rather than clip its right-hand nodes."""
    path, explorer, _ = mlp_page
    browser.set_window_size(width, 800)
    try:
        for k in (0, 4, len(explorer) - 1):
            browser.get("about:blank")
            browser.get(f"{path.as_uri()}#step={k}")
            assert _graph_overflow(browser) == [], f"step {k} at {width} px"
        scale = browser.execute_script(
            "const svg = document.querySelector('#graph svg');"
            "return svg.getBoundingClientRect().width / (parseFloat(svg.getAttribute('width'))"
            " * 4 / 3);"
        )
        assert 0.6 <= scale <= 1  # drawn smaller, never below the legible MIN_SCALE
    finally:
        browser.set_window_size(1400, 900)
