"""Optimizers and learning-rate schedules, with PyTorch's names, options and update rules.

An optimizer holds the parameters to train, in groups that each carry their own options
(`lr`, `weight_decay`, ...), plus a per-parameter `state` (momentum buffers, moment estimates).
`step()` reads each parameter's `.grad` and changes its array in place with NumPy: the update
is not part of any graph. Parameters whose `.grad` is None are skipped.

>>> import tinygrad_norm as tg
>>> w = tg.tensor([1.0, -2.0], requires_grad=True)
>>> opt = tg.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()       # grad = 2w
>>> opt.step()                     # w <- w - 0.1 * 2w
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
>>> opt.zero_grad()                # grad = None, ready for the next backward

Files: optimizer.py (the base class), sgd.py, adam.py (Adam, AdamW, Adamax, NAdam, RAdam),
others.py (RMSprop, Adagrad, Adadelta), lbfgs.py (LBFGS, with lbfgs_search.py),
lr_scheduler/ (the learning-rate schedules).
"""

from . import lr_scheduler
from .adam import Adam, Adamax, AdamW, NAdam, RAdam
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .others import Adadelta, Adagrad, RMSprop
from .sgd import SGD
