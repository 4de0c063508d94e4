"""`torch.onnx`: importable (language-model examples import it at the top), but exporting a
model to ONNX needs PyTorch's graph capture, which tinygrad_norm does not have."""

from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *more, **options):
    raise NotImplementedError(
        "torch.onnx.export: exporting to ONNX needs PyTorch's graph capture, which tinygrad_norm "
        "does not have; save the weights with torch.save(model.state_dict(), path) and export "
        "from real PyTorch"
    )


def is_in_onnx_export() -> bool:
    return False
