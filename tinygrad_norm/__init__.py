"""tinygrad_norm: a small autograd framework on NumPy, written to be read.

    import tinygrad_norm as tg
    x = tg.randn(3, requires_grad=True)
    (x * x).sum().backward()      # x.grad == 2 * x

The public names, and nothing else, live here.
"""

from . import autograd, models, nn, optim, random, utils
from .autograd.engine import Function
from .autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .broadcast import ShapeError
from .creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    bool,
    double,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int32,
    int64,
    long,
    set_default_dtype,
)
from .functions import (
    abs,
    addmm,
    allclose,
    amax,
    amin,
    argmax,
    argmin,
    cat,
    chunk,
    clamp,
    clip,
    erf,
    exp,
    flatten,
    isclose,
    log,
    log_softmax,
    masked_fill,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    norm,
    permute,
    relu,
    reshape,
    sigmoid,
    softmax,
    split,
    sqrt,
    squeeze,
    stack,
    std,
    sum,
    tanh,
    transpose,
    tril,
    triu,
    unsqueeze,
    var,
    where,
)
from .gradcheck import GradcheckError, check_module, gradcheck, gradgradcheck
from .io import load, save
from .learn import BackwardStep, Explorer, backprop_steps, detect_anomaly, draw_graph, explore
from .nn.functional_loss import cdist
from .printing import set_printoptions
from .random import manual_seed
from .tensor import Tensor

__version__ = "0.1.0"
