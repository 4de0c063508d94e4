"""`torch.func`: function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call), on the same engine as `backward()`.

Reverse mode is `autograd.grad`; forward mode (`jvp`, `jacfwd`, `forward_ad`) is the
double-vjp identity, J t = d(Jᵀu · t)/du (transforms.py); `vmap` is a loop over the mapped
dimension (vmap.py).
"""

from .functional_call import functional_call
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "vjp",
    "vmap",
]
