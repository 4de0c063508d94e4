"""nn.utils: gradient clipping, parameters as one vector, weight normalization, and
`rnn.pad_sequence` (`from tinygrad_norm.nn.utils import clip_grad_norm_`)."""

from . import rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "remove_weight_norm",
    "rnn",
    "vector_to_parameters",
    "weight_norm",
]
