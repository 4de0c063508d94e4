"""nn: Modules, Parameters and initialisation (`from tinygrad_norm import nn`)."""

from . import init, utils
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .attention import Attention, FeedForward
from .dropout import Dropout
from .linear import Conv1D, Embedding, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Identity, Module, ModuleDict, ModuleList, Parameter, Sequential
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    LayerNorm,
    RMSNorm,
)
