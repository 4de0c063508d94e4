"""The primitive operations: each a small `Function` with its forward and backward together.

- `elementwise`: Add, Sub, Neg, Mul, Div, Pow, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, Abs, Erf,
  Where, Cast
- `reduce`: Sum, Max
- `movement`: Reshape, Permute, Expand, GetItem, ScatterAdd, Cat, Clone
- `linalg`: MatMul
- `conv`: Unfold (im2col) and Fold (col2im), each the other's backward; convolution is
  Unfold then MatMul (fused into one node in `fused/conv.py`; `pool` builds pooling and
  resampling on them)
- `elementwise_more`: Maximum, Minimum, Expm1, Log1p, Log2, Log10, Erfc, Erfinv, Fmod, Remainder
- `trig`: Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh
- `rounding` (gradient 0): Floor, Ceil, Trunc, Round, Sign, SignOf, RoundedDiv
- `scan`: Cumsum (and cumprod, logcumsumexp, cummax, cummin composed beside it)
- `einsum`: Einsum; `svd`: SingularValues and SingularValuesGrad (the spectral matrix norms)

Everything else (mean, var, softmax, split, ...) is composed from these in `composite` and
`shape`; issue 12's math in `math_composite`, `reduce_more` and `sort`; its indexing,
rearranging and product ops in `indexing` and `scatter` (with GetItem, ScatterAdd, IndexPut),
`rearrange` and `products`.
"""
