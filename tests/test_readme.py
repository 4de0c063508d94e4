"""The README runs as written: every Python example prints what the README shows after it, and
every `python -m tinygrad_norm ...` command it mentions is a valid command line; the quick ones
(and a save-then-load pair) are run for real."""

import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from tinygrad_norm.cli import build_parser

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text()
FENCES = re.findall(r"```(\w*)\n(.*?)```", TEXT, flags=re.S)  # (language, body), in order
EXAMPLES = [
    (body, FENCES[i + 1][1] if i + 1 < len(FENCES) and FENCES[i + 1][0] == "text" else None)
    for i, (language, body) in enumerate(FENCES)
    if language == "python"
]
COMMANDS = sorted(
    {
        line.split("#")[0].split("&&")[0].strip()
        for line in re.findall(r"python -m tinygrad_norm [^`\n]*", TEXT)
        if "COMMAND" not in line  # the placeholder of "python -m tinygrad_norm COMMAND --help"
    }
)
# Run for real, in this order (the later ones read what the earlier ones wrote).
QUICK = [
    "python -m tinygrad_norm steps",
    "python -m tinygrad_norm draw graph.svg",
    "python -m tinygrad_norm explore --example mlp -o mlp.html",
    "python -m tinygrad_norm gradcheck -k relu",
    "python -m tinygrad_norm train --save gpt.npz",
    "python -m tinygrad_norm sample --load gpt.npz --prompt 314159",
]


def test_readme_has_examples_with_their_output():
    assert len(EXAMPLES) >= 3 and sum(shown is not None for _, shown in EXAMPLES) >= 3


@pytest.mark.parametrize(
    "index",  # an example that imports the real PyTorch is an oracle test
    [pytest.param(i, marks=pytest.mark.oracle) if "import torch" in code else i
     for i, (code, _) in enumerate(EXAMPLES)],
)  # fmt: skip
def test_readme_example_prints_what_the_readme_shows(index, capsys, tmp_path, monkeypatch):
    code, shown = EXAMPLES[index]
    if "import torch" in code:
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)  # the files an example writes go to a temporary folder
    exec(compile(code, f"README.md example {index}", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.strip(), "each README example prints something"
    if shown is not None:
        assert printed.rstrip() == shown.rstrip()


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_in_the_readme_is_a_valid_command_line(command):
    argv = shlex.split(command)[3:]  # after "python -m tinygrad_norm"
    if argv == ["--version"]:  # prints the versions and exits, as argparse's version action does
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(argv)
        assert exit_info.value.code == 0
        return
    args = build_parser().parse_args(argv)  # argparse exits (a test failure) if it is not
    assert args.command == argv[0]


def test_the_quick_commands_run_as_written(tmp_path):
    assert set(QUICK) <= set(COMMANDS), "QUICK names commands the README no longer shows"
    for command in QUICK:
        argv = [sys.executable, *shlex.split(command)[1:]]
        result = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr}"
