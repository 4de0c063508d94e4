"""Training checkpoints end to end: `train --save` / `--save-every` / Ctrl-C / `--resume`, the
`sample` command, `GPT.from_checkpoint`, and `task.predict` on strings."""

import os
import shlex
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.cli import main
from tinygrad_norm.cli import train as train_command
from tinygrad_norm.datasets import AddDigits, SortDigits
from tinygrad_norm.models import GPT, GPTConfig

TINY = ["--d-model", "16", "--n-layer", "1", "--n-head", "2", "--no-progress"]
REPORT = ["--eval-size", "10", "--samples", "1"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _printed_command(out: str, start: str) -> list[str]:
    """The arguments of the command line the CLI printed (after `python -m tinygrad_norm`)."""
    (line,) = [line for line in out.splitlines() if line.strip().startswith(start)]
    words = shlex.split(line)
    assert words[:3] == ["python", "-m", "tinygrad_norm"]
    return words[3:]


# --- task.predict takes what README says --------------------------------------------------------
@pytest.mark.parametrize(
    "task, prompts", [(SortDigits(), ["314159", "271828="]), (AddDigits(), ["123+089"])]
)
def test_predict_takes_prompts_as_strings_and_answers_in_strings(task, prompts):
    tg.manual_seed(0)
    model = GPT(GPTConfig(task.vocab_size, task.block_size, 16, 1, 2))
    answers = task.predict(model, prompts)
    ids = np.array([task.encode(p if p.endswith("=") else p + "=") for p in prompts])
    assert answers == [task.show_answer(a) for a in task.predict(model, ids)]
    assert all(isinstance(a, str) and set(a) <= set(task.vocab) for a in answers)
    with pytest.raises(ValueError, match="should have"):
        task.predict(model, ["12"])
    with pytest.raises(TypeError, match="a list of prompts"):
        task.predict(model, "314159")


# --- sizes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sizes, message",
    [
        (["--d-model", "0"], "d_model must be a positive int, got 0"),
        (["--n-head", "0"], "n_head must be a positive int, got 0"),
        (["--n-layer", "0"], "n_layer must be a positive int"),
        (["--d-model", "10", "--n-head", "4"], "divisible by n_head = 4"),
    ],
)
def test_bad_sizes_are_refused_before_anything_runs(sizes, message, capsys):
    assert main(["train", *sizes]) == 2
    out = capsys.readouterr().out
    assert out.startswith("error: ") and message in out and "data:" not in out


def test_gpt_config_checks_its_sizes():
    with pytest.raises(
        ValueError, match="d_model = 10 must be divisible by n_head = 4.*n_head = 5"
    ):
        GPTConfig(vocab_size=5, n_ctx=4, d_model=10, n_head=4)
    with pytest.raises(ValueError, match="vocab_size must be a positive int, got 0"):
        GPTConfig(vocab_size=0)


def test_save_options_are_checked_before_training(tmp_path, capsys):
    cases = [
        (["--save", str(tmp_path / "missing" / "a.npz")], "does not exist; create it first"),
        (["--save", str(tmp_path)], "is a folder; give a file name"),
        (["--save", str(tmp_path / "a.safetensors")], "not a training checkpoint; give a .pt"),
        (["--save-every", "2"], "--save-every needs --save PATH"),
        (["--save", str(tmp_path / "a.npz"), "--save-every", "0"], "--save-every must be at least"),
        (["--resume", str(tmp_path / "none.npz")], "cannot resume from"),
    ]
    for extra, message in cases:
        assert main(["train", *TINY, *extra]) == 2
        out = capsys.readouterr().out
        assert message in out and "data:" not in out, extra
    tg.save({"model": {}}, tmp_path / "other.npz")
    assert main(["train", "--resume", str(tmp_path / "other.npz")]) == 2
    assert "not a checkpoint of `train --save`" in capsys.readouterr().out


# --- save, the printed commands, sample ----------------------------------------------------------
def test_the_commands_train_save_prints_work(tmp_path, capsys):
    path = str(tmp_path / "my gpt.npz")  # a space: the printed command must quote it
    assert main(["train", *TINY, *REPORT, "--steps", "20", "--save", path]) == 0
    out = capsys.readouterr().out
    checkpoint = tg.load(path)
    assert checkpoint["config"]["d_model"] == 16 and len(checkpoint["history"]) == 20
    assert main(_printed_command(out, "python -m tinygrad_norm sample")) == 0
    samples = capsys.readouterr().out.splitlines()
    assert len(samples) == 5 and all("= → " in line for line in samples)

    (python_line,) = [line for line in out.splitlines() if "from_checkpoint" in line]
    scope = {"tg": tg}
    exec(python_line.split("or in Python: ", 1)[1], scope)
    model = scope["model"]
    assert isinstance(model, GPT) and not model.training
    assert main(["sample", "--load", path, "--prompt", "314159", "--prompt", "9"]) == 2
    assert "should have 6 characters" in capsys.readouterr().out
    assert main(["sample", "--load", path, "--prompt", "314159"]) == 0
    (answer,) = SortDigits().predict(model, ["314159"])
    assert capsys.readouterr().out == f"314159= → {answer}\n"


def test_sample_continues_a_text_prompt(tmp_path, capsys):
    text = tmp_path / "tiny.txt"
    text.write_text("the quick brown fox jumps over the lazy dog.\n" * 20)
    path = str(tmp_path / "text.npz")
    args = ["train", "--text", str(text), *TINY, "--steps", "5", "--block-size", "16"]
    assert main([*args, "--samples", "0", "--save", path]) == 0
    capsys.readouterr()
    assert main(["sample", "--load", path, "--prompt", "the ", "--max-new-tokens", "7"]) == 0
    rule, sample = capsys.readouterr().out.split("\n", 1)
    assert rule == "-" * 40 and sample.startswith("the ") and len(sample) == 4 + 7 + 1  # "\n"
    assert main(["sample", "--load", path, "--prompt", "THE"]) == 2
    assert "never saw: ['E', 'H', 'T']" in capsys.readouterr().out


def test_from_checkpoint_of_a_bare_state_dict_explains(tmp_path):
    model = GPT(GPTConfig(vocab_size=5, n_ctx=4, d_model=8, n_layer=1, n_head=2))
    tg.save(model.state_dict(), tmp_path / "weights.npz")
    with pytest.raises(ValueError, match=r"holds no model config.*load_state_dict\(tg.load"):
        GPT.from_checkpoint(tmp_path / "weights.npz")


# --- interrupt and resume ------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".npz", ".pt"])  # NumPy's format, PyTorch's
def test_resume_continues_with_the_same_loss_curve(tmp_path, capsys, monkeypatch, suffix):
    full, part = str(tmp_path / f"full{suffix}"), str(tmp_path / f"part{suffix}")
    run = ["train", *TINY, *REPORT, "--steps", "6"]
    assert main([*run, "--save", full]) == 0
    uninterrupted = capsys.readouterr().out

    train = train_command.train

    def ctrl_c_after_three_steps(*args, callback, **kwargs):
        def after_step(step, loss):
            if step == 2:
                os.kill(os.getpid(), signal.SIGINT)  # the real signal, handled by the CLI
            return callback(step, loss)

        return train(*args, callback=after_step, **kwargs)

    monkeypatch.setattr(train_command, "train", ctrl_c_after_three_steps)
    assert main([*run, "--save", part, "--save-every", "2"]) == 130
    out = capsys.readouterr().out
    assert "interrupted after step 3 of 6" in out and len(tg.load(part)["history"]) == 3
    monkeypatch.undo()
    assert main([*_printed_command(out, "python -m tinygrad_norm train --resume"), *REPORT]) == 0
    resumed = capsys.readouterr().out
    assert "resumed at step 3" in resumed

    a, b = tg.load(full), tg.load(part)
    assert len(a["history"]) == 6 and a["history"] == b["history"]  # bit for bit
    for name, value in a["model"].items():
        np.testing.assert_array_equal(value.numpy(), b["model"][name].numpy(), err_msg=name)
    assert a["rng"]["batches"] == b["rng"]["batches"]
    np.testing.assert_array_equal(a["rng"]["global"], b["rng"]["global"])  # a uint8 state tensor
    report = lambda out: out[out.index("held-out accuracy") : out.index("saved the")]  # noqa: E731
    assert report(resumed).split("\n")[1:] == report(uninterrupted).split("\n")[1:]


def test_save_every_writes_checkpoints_during_training(tmp_path, monkeypatch):
    path = str(tmp_path / "ckpt.npz")
    seen = []
    save = train_command.save

    def recording_save(state, where):
        seen.append(len(state["history"]))
        save(state, where)

    monkeypatch.setattr(train_command, "save", recording_save)
    assert main(["train", *TINY, *REPORT, "--steps", "7", "--save", path, "--save-every", "3"]) == 0
    assert seen == [3, 6, 7]


def test_ctrl_c_in_a_real_process_saves_and_exits_without_a_traceback(tmp_path):
    path = tmp_path / "run.npz"
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONUNBUFFERED="1", OPENBLAS_NUM_THREADS="1")
    command = [sys.executable, "-m", "tinygrad_norm", "train", *TINY, "--steps", "100000"]
    process = subprocess.Popen(
        [*command, "--save", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        lines = []
        while not lines or not lines[-1].startswith("training:"):
            lines.append(process.stdout.readline())
            assert lines[-1], "the process ended before training"
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    steps = len(tg.load(path)["history"])
    assert f"interrupted after step {steps} of 100000" in out
    assert f"python -m tinygrad_norm train --resume {path}" in out
