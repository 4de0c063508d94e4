"""The methods `Tensor` inherits, grouped by what they do; each calls into `ops/`.

- `math`: elementwise maths (exp, log, clamp, pow, matmul, trig, rounding, logical/bitwise),
  scans and sorting
- `reductions`: sum, mean, var, std, max, min, argmax, norm, softmax, log_softmax, ...
- `shape`: reshape/view, permute, transpose, t(), expand, split, gather / scatter / index ops,
  flip, roll, unfold, diagonal, ..., mm, bmm, dot, kron
- `inplace`: x.add_(y), x += y, x[idx] = v, zero_(), exp_(), clamp_min_(), addcmul_(), ...
- `sampling`: the random fills and draws (bernoulli_, random_, exponential_, multinomial)
- `conversion`: device, cpu(), type(), int(), half(), nelement(), stride(), new_zeros, format
- `numpy_interop`: np.asarray(t), ufuncs on Tensors, DLPack
- `indexing`: a PyTorch index as a NumPy index; `printing`: how a tensor prints
- `comparison`: eq, ne, lt, ..., equal, isposinf, << and >>; `memory`: data_ptr, storage,
  storage_offset, ravel, resize_
- `size`: `Size`, the shape as a tuple printed `torch.Size([2, 3])`
"""
