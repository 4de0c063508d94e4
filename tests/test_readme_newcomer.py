"""README read by someone who has not seen the project: the first screen says what to install
and how to use it before any code, the make targets it names exist, its commands write no file
the repository tracks, and the text is laid out to be read in order."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
FENCES = re.findall(r"```(\w*)\n(.*?)```", README, flags=re.S)
FIRST_SCREEN = README[: README.index("```python")]  # everything before the first runnable code


def test_the_first_screen_says_how_to_install_and_use_it_before_any_code():
    assert "make demo" in FIRST_SCREEN and "make test" in FIRST_SCREEN
    for words in (".venv", ". .venv/bin/activate", ".venv/bin/python"):
        assert words in FIRST_SCREEN, f"the first screen does not say {words!r}"
    minimum = re.search(r'requires-python = ">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert f"Python {minimum.group(1)} or newer" in FIRST_SCREEN


def test_the_first_screen_names_the_system_packages_and_how_to_get_them():
    screen = " ".join(FIRST_SCREEN.split())  # one line: the words, however wrapped
    assert "Graphviz's `dot` program" in screen
    for way in ("apt-get install graphviz", "brew install graphviz", "conda install"):
        assert way in screen
    assert "Chromium" in screen and "browser tests" in screen


def test_make_demo_checks_dot_and_writes_the_table_to_the_file_readme_names():
    demo = re.search(r"^demo: (.*)$", MAKEFILE, flags=re.M).group(1).split()
    assert "graphviz" in demo  # installed or named, as for `make test`; never a failure
    table = re.search(r"^GRADCHECK_TABLE := (\S+)$", MAKEFILE, flags=re.M).group(1)
    assert "gradcheck --output $(GRADCHECK_TABLE)" in MAKEFILE
    assert f"`{table}`" in " ".join(FIRST_SCREEN.split())


def test_every_make_target_readme_names_exists():
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, flags=re.M))
    named = set(re.findall(r"`make (?:PY=\S+ )?([\w-]+)", README))
    named |= {t for lang, body in FENCES if lang == "sh" for t in re.findall(r"make (\w+)", body)}
    assert named and named <= targets, (
        f"README names make targets the Makefile lacks: {named - targets}"
    )


def test_readme_commands_write_no_file_of_the_repository():
    """A reader who runs README's commands in a clone must not overwrite a committed file
    (its screenshot command once wrote docs/explorer.png); `make screenshot` does that."""
    commands = "\n".join(body for lang, body in FENCES if lang == "sh")
    commands += "\n" + "\n".join(re.findall(r"`(python -m tinygrad_norm [^`]*)`", README))
    written = re.findall(r"(?:--screenshot=|-o |--out |--save |--output |draw )(\S+)", commands)
    assert written
    for path in written:
        assert not (ROOT / path.strip("\"'")).exists(), f"a README command overwrites {path}"
    assert "docs/explorer.png" in README and "make screenshot" in README
    recipe = MAKEFILE.split("\nscreenshot:", 1)[1].split("\n\n", 1)[0]
    assert "--screenshot=docs/explorer.png" in recipe


def test_the_notebook_list_is_numbered_in_reading_order():
    section = README.split("## Notebooks", 1)[1].split("\n## ", 1)[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \[", section, flags=re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 11
    files = re.findall(r"^\d+\. \[(\d\d) · [^\]]*\]\(notebooks/(\d\d)_", section, flags=re.M)
    assert len(files) == len(numbers) and all(shown == name for shown, name in files)


def test_one_place_lists_where_tinygrad_norm_differs_from_pytorch():
    headings = [line for line in README.splitlines() if line.startswith("#") and "differ" in line]
    assert len(headings) == 1, headings
    lead_ins = [line for line in README.splitlines() if re.search(r"differs? from PyTorch:$", line)]
    assert lead_ins == []


def test_no_paragraph_is_a_wall_of_text():
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    paragraphs = re.split(r"\n\s*\n", prose)
    items = [item for p in paragraphs for item in re.split(r"\n(?=(?:- |\d+\. ))", p)]
    for paragraph in items:  # a list's items count one by one
        if paragraph.lstrip().startswith(("|", "#")):
            continue
        words = len(paragraph.split())
        assert words <= 250, f"a paragraph of {words} words: {paragraph[:80]!r}..."
