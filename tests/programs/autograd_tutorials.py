"""The patterns of PyTorch's autograd tutorials ("Extending PyTorch", "Double backward with
custom functions", per-sample gradients and Hessians with torch.func), written as a learner
would, in plain PyTorch. tests/autograd/test_torch_tutorials.py runs it under real PyTorch and
under `python -m tinygrad_norm run`, and compares what it saves: booleans (as 0/1) and float64
gradients. The data come from NumPy's generator, so both runs see the same numbers.
"""

import numpy as np
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F
from oracle_cli import parse_args
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

args = parse_args()
rng = np.random.default_rng(0)
results = {}


def data(*shape, requires_grad=True):
    return torch.tensor(
        rng.standard_normal(shape), dtype=torch.float64, requires_grad=requires_grad
    )


def keep(name, value):
    if isinstance(value, bool):
        value = int(value)
    results[name] = np.asarray(value.detach().numpy() if torch.is_tensor(value) else value)


# --- a custom linear layer (old style: forward(ctx, ...)) -------------------------------------
class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


x, w, b = data(4, 3), data(2, 3), data(2)
keep("linear_gradcheck", gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4))
LinearFunction.apply(x, w, b).pow(2).sum().backward()
keep("linear_grad_x", x.grad)
keep("linear_grad_w", w.grad)
keep("linear_grad_b", b.grad)
keep("linear_no_bias", gradcheck(LinearFunction.apply, (x, w)))


# --- a cube with double backward (new style: setup_context) -------------------------------------
class Cube(Function):
    """y = x ** 3"""

    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = data(5)
(first,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
keep("cube_first", first)
keep("cube_second", second)
keep("cube_gradcheck", gradcheck(Cube.apply, (x,)))
keep("cube_gradgradcheck", gradgradcheck(Cube.apply, (x,)))
y = Cube.apply(x)
keep("cube_node_name", y.grad_fn.name() == "CubeBackward")
keep(
    "cube_next_is_leaf", y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
)


class CubeOnce(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = data(3)
v = data(3)  # a grad_output that requires grad, as in gradgradcheck
(first,) = torch.autograd.grad(CubeOnce.apply(x), x, v, create_graph=True)
keep("once_first", first)
try:
    first.sum().backward()
    keep("once_refused", False)
except RuntimeError as error:
    keep("once_refused", "trying to differentiate twice" in str(error))
keep("once_gradgradcheck", gradgradcheck(CubeOnce.apply, (data(2),), raise_exception=False))


# --- an exponential that works in place (mark_dirty) --------------------------------------------
class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = data(4)
y = MyExp.apply(x.clone())
(y * torch.arange(4, dtype=torch.float64)).sum().backward()
keep("exp_inplace_grad", x.grad)
keep("exp_gradcheck", gradcheck(lambda t: MyExp.apply(t.clone()), (data(3),)))
try:
    MyExp.apply(data(2))
    keep("exp_leaf_refused", False)
except RuntimeError:
    keep("exp_leaf_refused", True)


# --- a sort whose indices are not differentiable ------------------------------------------------
class Sort(Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad_input = torch.zeros_like(grad_values)
        grad_input.index_add_(0, indices, grad_values)
        return grad_input


x = data(5)
values, indices = Sort.apply(x)
keep("sort_indices", indices)
keep("sort_indices_requires_grad", indices.requires_grad)
(values * torch.arange(5, dtype=torch.float64)).sum().backward()
keep("sort_grad", x.grad)
keep("sort_gradcheck", gradcheck(lambda t: Sort.apply(t)[0], (data(4),)))


# --- several outputs; materialize_grads ---------------------------------------------------------
class SinCos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.set_materialize_grads(False)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        grad = torch.zeros_like(x)
        if grad_sin is not None:
            grad = grad + grad_sin * x.cos()
        if grad_cos is not None:
            grad = grad - grad_cos * x.sin()
        return grad


x = data(3)
s, c = SinCos.apply(x)
c.sum().backward()  # grad_sin is None here
keep("sincos_only_cos", x.grad)
keep("sincos_gradcheck", gradcheck(SinCos.apply, (data(3),)))


# --- planted mistakes: gradcheck must catch them ------------------------------------------------
class WrongSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # should be 2 * x


class WrongLinear(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        return grad_output.mm(weight), grad_output.t().mm(input), grad_output.sum(0) * 2


for name, fn, inputs in [
    ("square", WrongSquare.apply, (data(3),)),
    ("linear", WrongLinear.apply, (data(4, 3), data(2, 3), data(2))),
]:
    keep(f"wrong_{name}_quiet", gradcheck(fn, inputs, raise_exception=False))
    try:
        gradcheck(fn, inputs)
        keep(f"wrong_{name}_raised", False)
    except GradcheckError as error:
        keep(f"wrong_{name}_raised", isinstance(error, RuntimeError))
        keep(f"wrong_{name}_headline", str(error).startswith("Jacobian mismatch for output 0"))

# --- per-sample gradients: vmap(grad(...)) with functional_call -----------------------------------
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
model = model.double()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
inputs, targets = data(6, 3, requires_grad=False), torch.tensor(rng.integers(0, 2, 6))


def compute_loss(params, buffers, sample, target):
    prediction = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return F.cross_entropy(prediction, target.unsqueeze(0))


per_sample = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, inputs, targets)
for name, g in per_sample.items():
    keep(f"per_sample_{name}", g)


# --- Hessians, Jacobians, forward mode ------------------------------------------------------------
def f(x):
    return (x.sin() * x.exp()).sum() + (x[0] * x[1]) ** 2


x = data(3, requires_grad=False)
keep("hessian_fwd_rev", jacfwd(jacrev(f))(x))
keep("hessian", hessian(f)(x))
keep("hessian_functional", torch.autograd.functional.hessian(f, x))
keep("jacrev_tanh", jacrev(torch.tanh)(x))
keep("jacfwd_tanh", jacfwd(torch.tanh)(x))
out, tangent = jvp(torch.sin, (x,), (torch.ones(3, dtype=torch.float64),))
keep("jvp_sin", tangent)
out, vjp_fn = vjp(lambda a, b: a * b.cos(), x, x + 1)
for i, g in enumerate(vjp_fn(torch.ones(3, dtype=torch.float64))):
    keep(f"vjp_{i}", g)
with fwAD.dual_level():
    dual = fwAD.make_dual(x, torch.arange(3, dtype=torch.float64))
    keep("dual_tangent", fwAD.unpack_dual((dual**2).sin()).tangent)
keep(
    "vmap_nested",
    vmap(vmap(torch.dot))(data(2, 3, 4, requires_grad=False), data(2, 3, 4, requires_grad=False)),
)
keep(
    "vmap_out_dims",
    vmap(torch.mul, in_dims=(0, None), out_dims=1)(data(2, 3, requires_grad=False), x),
)

# --- anomaly mode, saved tensor hooks ----------------------------------------------------------------
for name, scale in [("nan", 0.0), ("inf", 1.0)]:  # d sqrt(x)/dx at 0: inf; times 0: nan
    try:
        with torch.autograd.detect_anomaly(), np.errstate(all="ignore"):
            z = torch.zeros(2, dtype=torch.float64, requires_grad=True)
            (z.sqrt() * scale).sum().backward()
        keep(f"anomaly_{name}_caught", False)
    except RuntimeError:
        keep(f"anomaly_{name}_caught", True)
packed, unpacked = [], []


def pack(t):
    packed.append(tuple(t.shape))
    return t


def unpack(t):
    unpacked.append(tuple(t.shape))
    return t


x = data(4)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = Cube.apply(x)
y.sum().backward()
keep("hooks_packed", len(packed))
keep("hooks_unpacked", len(unpacked))
keep("hooks_grad", x.grad)

# --- assert_close ----------------------------------------------------------------------------------
torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
try:
    torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
    keep("assert_close_raised", False)
except AssertionError as error:
    keep("assert_close_raised", "Mismatched elements: 1 / 2" in str(error))

np.savez(args.out, **results)
print(f"{len(results)} results")
