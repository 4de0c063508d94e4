"""The primitive operations: each a small `Function` with its forward and backward together.

Primitives (a forward on arrays and a backward written with Tensor operations):

- `elementwise`: Add, Sub, Neg, Mul, Div, Pow, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, Abs, Erf,
  Where, MaskedFill, Cast, Maximum, Minimum, Fmod, Remainder
- `special`: Expm1, Log1p, Log2, Log10, Erfc, Erfinv (on floats: `FloatUnary`); `gamma`:
  Lgamma, Polygamma (digamma is polygamma(0, x))
- `trig`: Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh
- `rounding` (gradient 0): Floor, Ceil, Trunc, Round, Sign, SignOf, RoundedDiv
- `reduce`: Sum, Max
- `scan`: Cumsum (and cumprod, logcumsumexp, cummax, cummin composed beside it)
- `movement`: Reshape, Permute, Roll, Expand, GetItem, ScatterAdd, IndexPut, Cat, Clone, and the
  views Diagonal, Unfold and AsStrided
- `linalg`: MatMul, Det; `einsum`: Einsum; `svd`: SingularValues and SingularValuesGrad
- `binary_cross_entropy`: BinaryCrossEntropy (PyTorch's clamped log, finite at 0 and 1)
- `conv`: Unfold (im2col) and Fold (col2im), each the other's backward; `pool`: MaxPool, and
  average pooling and resampling built on the windows of `conv`

Composed from the primitives (no backward of their own; autograd derives it):

- `composite`: mean, var, where, clamp, matmul with broadcasting, ...
- `shape`: reshape/view, permute, transpose, expand, squeeze, repeat, cat, stack, split
- `pointwise_composed`: exp2, frac, hypot, lerp, logaddexp, nan_to_num, logical and bitwise ops;
  `numeric_composed`: fmax, fmin, diff, quantile, unique_consecutive; `comparison`: eq, ne,
  lt, ..., equal, isposinf, shifts (outside the graph)
- `reduce_composed`: prod, logsumexp, std_mean, var_mean, all, any, median, mode, kthvalue
- `sort`: sort, argsort, topk, unique, searchsorted; `indexing` and `scatter`: gather, take,
  index_select, index_add, masked ops, scatter*; `rearrange`: flip, roll, rot90, unfold,
  diagonal, ...; `products`: mm, bmm, mv, dot, outer, kron, tensordot, addmm, baddbmm

`fused/` holds the fast kernels (linear, conv, layer_norm, softmax, gelu, silu, cross_entropy,
bce_with_logits, mse_loss, embedding, batch_norm, attention, LSTM, clamp with number bounds,
`x ** p` for small p, Euclidean cdist by a GEMM, elu/selu/celu, hardswish, leaky_relu,
hardtanh, smooth_l1/huber), each with its derivation and a composed reference, and `xp.py`
is the one named place where a backward formula runs on bare arrays for speed.
`erf_numpy` and `erfinv_numpy` compute erf, erfc and erfinv on arrays (no SciPy).
`fused/unary` is the one-node form of expm1, log1p, log10, exp2, atan, atanh, sinh and cosh
(the Tensor methods' nodes; `special` and `trig` hold their references); `fused/modulo`,
`fused/logaddexp`, `fused/lerp` and `fused/softplus` the nodes of fmod, remainder, floor
division, logaddexp, lerp (tensor weight), softplus and logsigmoid (references: `elementwise`,
`rounding`, `pointwise_composed`, nn).
"""
