"""The primitive operations: each a small `Function` with its forward and backward together.

- `elementwise`: Add, Sub, Neg, Mul, Div, Pow, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, Abs, Erf,
  Where, Cast
- `reduce`: Sum, Max
- `movement`: Reshape, Permute, Expand, GetItem, ScatterAdd, Cat, Clone
- `linalg`: MatMul
- `conv`: Unfold (im2col) and Fold (col2im), each the other's backward; convolution is
  Unfold then MatMul (`pool` builds pooling and resampling on them)

Everything else (mean, var, softmax, split, ...) is composed from these in `composite`.
"""
