"""The validation compares dtypes but forgets devices, so tensors on two devices reach torch.

Overrides: _check_tensors
"""

import torch


def _check_tensors(names: tuple[str, ...], tensors: tuple[object, ...], dtypes: tuple[torch.dtype, ...] | None) -> None:
    """Each is a tensor of an allowed dtype with finite entries; all share one dtype and one device."""
    for name, tensor in zip(names, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if dtypes is None and not tensor.is_floating_point():
            raise TypeError(f"{name} must have a floating dtype, got {tensor.dtype}")
        if dtypes is not None and tensor.dtype not in dtypes:
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    first = tensors[0]
    assert isinstance(first, torch.Tensor)
    for name, tensor in zip(names, tensors, strict=True):
        assert isinstance(tensor, torch.Tensor)
        if tensor.dtype != first.dtype:
            raise TypeError(f"{name} has dtype {tensor.dtype} but {names[0]} has {first.dtype}")
    for name, tensor in zip(names, tensors, strict=True):
        assert isinstance(tensor, torch.Tensor)
        if not _all_finite(tensor):
            raise ValueError(f"{name} has non-finite entries (nan or inf)")
