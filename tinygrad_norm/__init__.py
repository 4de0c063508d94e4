"""tinygrad_norm: a small autograd framework on NumPy, written to be read.

    import tinygrad_norm as tg
    x = tg.randn(3, requires_grad=True)
    (x * x).sum().backward()      # x.grad == 2 * x

The public names, and nothing else, live here.
"""

from . import amp, autograd, backends, cuda, distributed, models, nn, optim, random, utils
from .amp import autocast
from .autograd.engine import Function
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .broadcast import ShapeError
from .creation import (
    arange,
    as_tensor,
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
from .devices import device
from .dtypes import (
    bfloat16,
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
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
from .habits import (
    all,
    any,
    are_deterministic_algorithms_enabled,
    bincount,
    compile,
    get_default_device,
    get_float32_matmul_precision,
    get_num_threads,
    histc,
    histogram,
    is_floating_point,
    is_tensor,
    numel,
    set_default_device,
    set_float32_matmul_precision,
    set_num_threads,
    use_deterministic_algorithms,
)
from .io import load, save
from .learn import BackwardStep, Explorer, backprop_steps, detect_anomaly, draw_graph, explore
from .nn.functional_loss import cdist
from .printing import set_printoptions
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .sampling import (
    bernoulli,
    multinomial,
    normal,
    poisson,
    rand_like,
    randint_like,
    randn_like,
    randperm,
)
from .tensor import Tensor
from .tensor_methods.size import Size
from .torch_alias import install_as_torch, uninstall_as_torch

__version__ = "0.1.0"
