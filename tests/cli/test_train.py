"""The built-in tasks, the character dataset, the training loop and the `train` command."""

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.cli import main
from tinygrad_norm.cli import train as train_command
from tinygrad_norm.datasets import AddDigits, CharDataset, SortDigits
from tinygrad_norm.models.gpt import GPT, GPTConfig
from tinygrad_norm.models.training import clip_grad_norm, learning_rate, train

TASKS = [SortDigits(6), SortDigits(4), AddDigits(3), AddDigits(2)]
IDS = [repr(t) for t in TASKS]


def solve(task, prompt: str) -> str:
    """The right answer, computed from the prompt's text alone (not with the task's code)."""
    if isinstance(task, SortDigits):
        return "".join(sorted(prompt[:-1]))
    a, b = prompt[:-1].split("+")
    return str(int(a) + int(b)).zfill(task.n_digits + 1)


def key(prompt: str) -> int:
    return int("".join(c for c in prompt if c.isdigit()))


# --- tasks ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_encode_decode_round_trip(task):
    text = task.vocab[::-1] * 2
    assert task.decode(task.encode(text)) == text
    assert task.encode(task.vocab) == list(range(task.vocab_size))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        task.encode("12x")


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_batches_hold_right_answers_and_mask_the_prompt(task):
    idx, targets = task.batch(64, np.random.default_rng(0))
    assert idx.shape == targets.shape == (64, task.block_size)
    assert idx.dtype == targets.dtype == np.int64
    P = task.prompt_len
    for row, target in zip(idx, targets):
        sequence = task.decode(row) + task.vocab[target[-1]]
        prompt, answer = sequence[:P], sequence[P:]
        assert prompt.endswith("=") and answer == solve(task, prompt)
        # the prompt's targets are ignored; the rest are the next tokens
        assert (target[: P - 1] == -100).all()
        np.testing.assert_array_equal(target[P - 1 :], task.encode(answer))
        np.testing.assert_array_equal(target[P - 1 : -1], row[P:])


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_held_out_problems_never_appear_in_training(task):
    rng = np.random.default_rng(1)
    trained = {
        key(task.decode(row[: task.prompt_len]))
        for _ in range(20)
        for row in task.batch(200, rng)[0]
    }
    prompts, answers = task.held_out_problems(2000, rng)
    held_out = {key(task.decode(p)) for p in prompts}
    assert not trained & held_out
    assert task.is_held_out(np.array(sorted(held_out))).all()
    assert not task.is_held_out(np.array(sorted(trained))).any()
    assert all(task.decode(a) == solve(task, task.decode(p)) for p, a in zip(prompts, answers))
    # one problem in ten is held out, the same ones whatever the seed
    every = np.arange(20_000)
    assert 0.08 < task.is_held_out(every).mean() < 0.12
    np.testing.assert_array_equal(task.is_held_out(every), task.is_held_out(every.copy()))


class Oracle:
    """A "model" that answers with the given rule, through the generate() interface."""

    def __init__(self, task, rule):
        self.task, self.rule, self.calls = task, rule, []

    def generate(self, idx, max_new_tokens, temperature=1.0):
        self.calls.append((max_new_tokens, temperature))
        rows = []
        for prompt in np.asarray(idx.data):
            answer = self.rule(self.task.decode(prompt))[:max_new_tokens]
            rows.append(np.concatenate([prompt, self.task.encode(answer)]))
        return tg.tensor(np.array(rows))


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_accuracy_of_a_perfect_a_constant_and_a_nearly_right_model(task):
    perfect = Oracle(task, lambda p: solve(task, p))
    assert task.accuracy(perfect, 300, np.random.default_rng(0)) == 1.0
    assert perfect.calls[0] == (task.answer_len, 0)  # greedy, the answer's length
    constant = Oracle(task, lambda p: "0" * task.answer_len)
    assert task.accuracy(constant, 300, np.random.default_rng(0)) < 0.05
    # the whole answer must be right: a wrong last digit scores nothing
    last_wrong = Oracle(
        task, lambda p: solve(task, p)[:-1] + str((int(solve(task, p)[-1]) + 1) % 10)
    )
    assert task.accuracy(last_wrong, 300, np.random.default_rng(0)) == 0.0


def test_answers_are_shown_as_a_person_writes_them():
    task = AddDigits(3)
    assert task.show_answer(task.encode("0212")) == "212"
    assert task.show_answer(task.encode("1212")) == "1212"
    assert task.show_answer(task.encode("0000")) == "0"
    assert SortDigits(3).show_answer([0, 1, 1]) == "011"


# --- text -----------------------------------------------------------------------------------------
def test_char_dataset_windows_and_split():
    text = "".join(chr(ord("a") + i % 26) for i in range(500))
    data = CharDataset(text, block_size=10)
    assert data.vocab_size == 26 and data.decode(data.encode("hello")) == "hello"
    idx, targets = data.batch(8, np.random.default_rng(0))
    assert idx.shape == targets.shape == (8, 10)
    np.testing.assert_array_equal(targets, (idx + 1) % 26)  # the next letter
    val, _ = data.batch(50, np.random.default_rng(0), split="val")
    train_text, val_text = text[:450], text[450:]
    assert all(data.decode(row) in val_text for row in val)
    assert len(data.splits["train"]) == len(train_text)
    with pytest.raises(ValueError, match="too few"):
        CharDataset("abc", block_size=10)


# --- the training loop ----------------------------------------------------------------------------
def test_learning_rate_schedule():
    assert learning_rate(0, 100, 1.0, warmup=10) == pytest.approx(0.1)
    assert learning_rate(9, 100, 1.0, warmup=10) == pytest.approx(1.0)
    assert learning_rate(10, 100, 1.0, warmup=10, min_lr=0.1) == pytest.approx(1.0)
    assert learning_rate(99, 100, 1.0, warmup=10, min_lr=0.1) == pytest.approx(0.1)
    assert learning_rate(54, 100, 1.0, warmup=10, min_lr=0.0) == pytest.approx(0.5, abs=0.02)
    assert learning_rate(50, 100, 1.0, schedule="linear", min_lr=0.0) == pytest.approx(
        0.495, abs=1e-3
    )
    assert learning_rate(50, 100, 0.3, schedule="constant") == 0.3
    with pytest.raises(ValueError, match="schedule"):
        learning_rate(50, 100, 1.0, schedule="step")


def test_clip_grad_norm_scales_all_gradients_together():
    a = tg.tensor([3.0], requires_grad=True)
    b = tg.tensor([4.0], requires_grad=True)
    (a * a / 2 + b * b / 2).sum().backward()  # grads 3 and 4: global norm 5
    assert clip_grad_norm([a, b], 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose([a.grad.item(), b.grad.item()], [0.6, 0.8], rtol=1e-5)
    assert clip_grad_norm([a, b], 10.0) == pytest.approx(1.0, rel=1e-5)  # under: unchanged
    np.testing.assert_allclose([a.grad.item(), b.grad.item()], [0.6, 0.8], rtol=1e-5)


def tiny_model(task, **sizes):
    tg.manual_seed(0)
    config = dict(d_model=16, n_layer=1, n_head=2, dropout=0.0) | sizes
    return GPT(GPTConfig(task.vocab_size, task.block_size, **config))


def test_training_reduces_the_loss_and_calls_back(capsys):
    task = SortDigits(3)
    model = tiny_model(task)
    seen = []
    history = train(model, task, 80, 32, 1e-2, warmup=5, callback=lambda s, l: seen.append(s))
    assert len(history) == 80 and seen == list(range(80))
    assert np.mean(history[-10:]) < 0.6 * np.mean(history[:10])
    assert all(np.isfinite(history))
    assert "loss" in capsys.readouterr().err  # the progress bar, on stderr


def test_training_stops_when_the_callback_says_so_and_without_a_bar(capsys):
    task = SortDigits(3)
    history = train(tiny_model(task), task, 50, 8, progress=False, callback=lambda s, l: s == 4)
    assert len(history) == 5
    assert capsys.readouterr().err == ""


# --- the command ----------------------------------------------------------------------------------
TINY = ["--steps", "30", "--d-model", "16", "--n-layer", "1", "--n-head", "2", "--no-progress"]


def test_train_command_prints_accuracy_and_samples(capsys):
    assert main(["train", *TINY, "--eval-size", "50", "--samples", "3"]) == 0
    out = capsys.readouterr().out
    assert "SortDigits(length=6)" in out and "30 steps" in out
    assert "held-out accuracy:" in out and "/50 problems" in out
    lines = [line for line in out.splitlines() if line.startswith("  ") and "→" in line]
    assert len(lines) >= 3 and all(line.rstrip().endswith("✓") or "✗" in line for line in lines)
    for line in lines[:3]:  # the samples: a prompt and an answer of six digits
        prompt, answer = line.split("→")
        assert len(prompt.strip()) == 7 and len(answer.split()[0]) == 6


def test_train_command_add_task(capsys):
    assert main(["train", "--task", "add", *TINY, "--eval-size", "20", "--samples", "2"]) == 0
    out = capsys.readouterr().out
    assert "AddDigits(n_digits=3)" in out and "held-out accuracy:" in out
    assert any("+" in line and "→" in line for line in out.splitlines())


def test_train_command_saves_weights_that_load_into_a_fresh_model(tmp_path, monkeypatch):
    made = []

    class Recorded(GPT):
        def __init__(self, config):
            super().__init__(config)
            made.append(self)

    monkeypatch.setattr(train_command, "GPT", Recorded)
    path = tmp_path / "sort.npz"
    assert main(["train", *TINY, "--eval-size", "10", "--save", str(path)]) == 0
    (trained,) = made
    fresh = GPT(trained.config)
    idx = tg.tensor(np.random.default_rng(0).integers(0, 11, (3, 12)))
    before, _ = fresh.eval()(idx)
    fresh.load_state_dict(tg.load(path)["model"])
    after, _ = fresh(idx)
    expected, _ = trained.eval()(idx)
    np.testing.assert_array_equal(after.data, expected.data)
    assert not np.allclose(before.data, expected.data)  # the file held trained weights
    rebuilt, _ = GPT.from_checkpoint(path)(idx)  # no sizes needed: the config is in the file
    np.testing.assert_array_equal(rebuilt.data, expected.data)


def test_train_command_on_a_text_file(tmp_path, capsys):
    path = tmp_path / "tiny.txt"
    path.write_text("the quick brown fox jumps over the lazy dog.\n" * 20)
    args = ["train", "--text", str(path), *TINY, "--block-size", "16", "--samples", "2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "CharDataset" in out and "held-out loss:" in out
    assert out.count("-" * 40) == 2


def test_train_command_reports_a_bad_file_or_size(tmp_path, capsys):
    assert main(["train", "--text", str(tmp_path / "missing.txt")]) == 2
    assert "cannot train on" in capsys.readouterr().out
    assert main(["train", "--d-model", "10", "--n-head", "4"]) == 2
    assert "divisible" in capsys.readouterr().out
    assert main(["train", "--steps", "0"]) == 2
    assert "--steps must be at least 1" in capsys.readouterr().out
