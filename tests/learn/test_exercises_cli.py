"""`python -m tinygrad_norm exercises`: list, start, check, hint, solution, in-process."""

import pytest

from tinygrad_norm.cli import main

WRONG = "return grad_output.numpy() * (1 - ctx.y)"  # tanh without the square
RIGHT = "return grad_output.numpy() * (1 - ctx.y**2)"
UNWRITTEN = 'raise NotImplementedError("tanh: write the backward")'


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_list_numbers_the_exercises_with_their_state(workdir, capsys):
    assert main(["exercises", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["1.", "mul", "not", "started"]
    assert lines[19].split()[:2] == ["20.", "gelu"]


def test_start_edit_check_hint_solution(workdir, capsys):
    assert main(["exercises", "start", "tanh"]) == 0
    path = workdir / "exercises" / "tanh.py"
    assert '"""Exercise `tanh`' in path.read_text() and UNWRITTEN in path.read_text()
    assert main(["exercises", "start", "tanh"]) == 1  # never overwrites your work by surprise
    capsys.readouterr()

    assert main(["exercises", "check", "tanh"]) == 1
    assert "backward is not implemented yet" in capsys.readouterr().out
    assert main(["exercises", "solution", "tanh"]) == 1  # not before a pass
    assert "--force" in capsys.readouterr().err

    edit(path, UNWRITTEN, WRONG)
    assert main(["exercises", "check", "tanh"]) == 1
    out = capsys.readouterr().out
    assert "FAILED on x (3, 4), input 0 (x)" in out and "finite diff." in out
    main(["exercises", "list"])
    assert "tanh           failing" in capsys.readouterr().out

    for number in (1, 2, 3, 3):
        assert main(["exercises", "hint", "tanh"]) == 0
        assert f"Hint {number} of 3 for tanh" in capsys.readouterr().out

    edit(path, WRONG, RIGHT)
    assert main(["exercises", "check", "tanh"]) == 0
    assert "tanh: passed" in capsys.readouterr().out
    main(["exercises", "list"])
    assert "tanh           passed" in capsys.readouterr().out
    assert main(["exercises", "solution", "tanh"]) == 0
    assert "class Tanh(Function)" in capsys.readouterr().out

    edit(path, RIGHT, WRONG)  # broken again: the list says so, the solution stays open
    assert main(["exercises", "check", "tanh"]) == 1
    main(["exercises", "list"])
    assert "tanh           failing" in capsys.readouterr().out
    assert main(["exercises", "solution", "tanh"]) == 0


def test_solution_with_force_and_check_of_another_file(workdir, capsys):
    assert main(["exercises", "solution", "softmax", "--force"]) == 0
    assert "def backward" in capsys.readouterr().out
    assert main(["exercises", "start", "exp", "--dir", "mine"]) == 0
    mine = workdir / "mine" / "exp.py"
    edit(mine, 'raise NotImplementedError("exp: write the backward")', "return grad_output * ctx.y")
    copy = workdir / "attempt.py"
    copy.write_text(mine.read_text())
    assert main(["exercises", "check", "exp", str(copy)]) == 0
    assert main(["exercises", "check", "exp", "--dir", "mine"]) == 0
    assert main(["exercises", "check", "log", "--dir", "mine"]) == 1  # no file yet
    assert "exercises start log" in capsys.readouterr().err


def test_several_classes_the_one_named_after_the_exercise_is_graded(workdir, capsys):
    main(["exercises", "start", "exp"])
    path = workdir / "exercises" / "exp.py"
    edit(path, 'raise NotImplementedError("exp: write the backward")', "return grad_output * ctx.y")
    path.write_text(path.read_text() + "\n\nclass Helper(tg.Function):\n    pass\n")
    assert main(["exercises", "check", "exp"]) == 0
    edit(path, "class Exp(", "class Other(")
    assert main(["exercises", "check", "exp"]) == 1
    assert "cannot tell which class to grade" in capsys.readouterr().err


def test_an_error_in_the_file_shows_its_line(workdir, capsys):
    main(["exercises", "start", "exp"])
    path = workdir / "exercises" / "exp.py"
    edit(path, 'raise NotImplementedError("exp: write the backward")', "return grad_output * ctx.z")
    assert main(["exercises", "check", "exp"]) == 1
    out = capsys.readouterr().out
    line = path.read_text().splitlines().index("        return grad_output * ctx.z") + 1
    assert f'File "{path}", line {line}, in backward' in out and "ctx.z" in out
    path.write_text(path.read_text() + "\nprint(undefined_name)\n")
    assert main(["exercises", "check", "exp"]) == 1
    err = capsys.readouterr().err
    line = len(path.read_text().splitlines())
    assert err.startswith(f'Traceback (most recent call last):\n  File "{path}", line {line}')
    assert "NameError" in err and "cli" not in err  # from the learner's file on
    path.write_text(path.read_text() + "\ndef (:\n")
    assert main(["exercises", "check", "exp"]) == 1
    err = capsys.readouterr().err
    line = len(path.read_text().splitlines())
    assert "SyntaxError" in err and f'File "{path}", line {line}' in err


def test_unknown_exercise_is_refused(workdir, capsys):
    with pytest.raises(SystemExit):
        main(["exercises", "start", "sofmax"])
    assert "invalid choice: 'sofmax'" in capsys.readouterr().err
