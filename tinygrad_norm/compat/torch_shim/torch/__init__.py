"""`import torch` in a process that torch.multiprocessing spawned: tinygrad_norm in its place.

`compat/multiprocessing.py` puts the folder above this one first on the children's sys.path;
this package then installs tinygrad_norm as torch and hands its modules over.
"""

import sys

import tinygrad_norm

del sys.modules["torch"]  # this shim: tinygrad_norm takes the name
tinygrad_norm.install_as_torch()
sys.modules["torch"] = tinygrad_norm
