"""nn: Modules, Parameters and initialisation (`from tinygrad_norm import nn`)."""

from . import init, utils
from .activation import GELU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .attention import Attention, FeedForward
from .batchnorm import BatchNorm1d, BatchNorm2d, InstanceNorm1d, InstanceNorm2d
from .containers import Identity, ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .linear import Conv1D, Embedding, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .parameter import Parameter
