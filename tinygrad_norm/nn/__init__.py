"""nn: Modules, Parameters and initialisation (`from tinygrad_norm import nn`)."""

from . import init
from .module import Identity, Module, ModuleDict, ModuleList, Parameter, Sequential
