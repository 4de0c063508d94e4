"""The course-style GPT timing script: the same source gives the same loss and gradients under
tinygrad_norm and PyTorch (composed attention, exact GELU); no timings are checked."""

import numpy as np
import pytest

from tinygrad_norm.utils import course_gpt

TINY = {"batch": 2, "block": 8, "embd": 16, "heads": 2, "layers": 1, "vocab": 11}


def test_tinygrad_norm_step_gives_a_finite_loss_and_gradients():
    model, idx, targets = course_gpt.setups(TINY)["tinygrad_norm"]
    loss = course_gpt.step(model, idx, targets)
    assert np.isfinite(loss) and loss > 0
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.oracle
def test_same_loss_and_gradients_as_pytorch():
    pytest.importorskip("torch")
    libs = course_gpt.setups(TINY)
    (ours, *ours_batch), (theirs, *theirs_batch) = libs["tinygrad_norm"], libs["torch"]
    assert course_gpt.step(ours, *ours_batch) == pytest.approx(
        course_gpt.step(theirs, *theirs_batch), rel=1e-5
    )
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name
        )


def test_main_prints_the_step_times(capsys):
    args = [f"--{k}={v}" for k, v in TINY.items()]
    course_gpt.main(args + ["--steps", "1"])
    assert "ms/step" in capsys.readouterr().out
