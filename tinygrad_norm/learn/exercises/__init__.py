"""Learn backprop by writing it: twenty backward passes to write, graded by the checker.

Each exercise (`EXERCISES`, in order: mul, add, tanh, ..., attention, gelu) gives a `Function`
whose forward is written; you write its backward and `check(name, YourClass)` grades it:
which input's gradient is wrong, at which element, and what kind of mistake it looks like.
From the command line: `python -m tinygrad_norm exercises list | start NAME | check NAME |
hint NAME | solution NAME`.

>>> import tinygrad_norm as tg
>>> [e.name for e in tg.exercises.EXERCISES][:4]
['mul', 'add', 'tanh', 'exp']
>>> tg.exercises.check("softmax", tg.exercises.get("softmax").solution).passed
True
"""

from . import progress
from .catalog import EXERCISES, get
from .check import Report, check
from .exercise import Exercise

__all__ = ["EXERCISES", "Exercise", "Report", "check", "get", "progress"]
