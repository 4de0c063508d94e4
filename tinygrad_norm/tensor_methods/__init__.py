"""The methods `Tensor` inherits, grouped by what they do; each calls into `ops/`.

- `pointwise`: exp, log, sqrt, tanh, sigmoid, relu, clamp, maximum, masked_fill, matmul, ...
- `reductions`: sum, mean, var, std, max, min, argmax, norm, softmax, log_softmax, ...
- `movement`: reshape/view, flatten, permute, transpose, squeeze, expand, repeat, split, ...
- `math`: issue 12's trig, rounding, logical/bitwise, reductions, scans and sorting
- `shape`: gather / scatter / index ops, flip, roll, unfold, diagonal, ..., mm, bmm, dot, kron
- `compat`: PyTorch habits: device, cpu/cuda, nelement, type(), f"{t:.4f}", new_zeros, random fills
- `course`: t(), mT, int(), half(), clamp_min, stride(), exp_/relu_/..., addcmul_, lerp_
- `size`: `Size`, the shape as a tuple printed `torch.Size([2, 3])`
"""
