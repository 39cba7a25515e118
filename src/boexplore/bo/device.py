"""The torch device of a run's GP fit and acquisition (``BOSettings.device``).

``cpu`` (the default) is the engine as it always was; ``cuda`` puts the GP fit, the
acquisition function, its candidate sets and Thompson samples on the first GPU, in float64
like on the CPU, and the loop moves every result back to the CPU before it enters the trace
or a checkpoint. A cuda run turns on the GPU numerics of its numerics profile
(:func:`boexplore.numerics.apply_cuda_numerics`: deterministic algorithms, a fixed cuBLAS
workspace) before the first CUDA call; docs/determinism.md says what that does and does not
make bit-reproducible. The device is part of a run's identity whenever it is not ``cpu``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads where a device is made, not where a setting is checked
    import torch

#: Devices a run can use (``bo.device`` of the workflow config).
DEVICES: tuple[str, ...] = ("cpu", "cuda")


class DeviceUnavailable(RuntimeError):
    """A run asked for a device this machine does not have (raised before anything is written)."""


def check_device_name(name: str) -> str:
    """``name`` if it is one of :data:`DEVICES`; ``ValueError`` naming the valid ones otherwise."""
    if name not in DEVICES:
        raise ValueError(f"BO setting device must be one of {list(DEVICES)}, got {name!r}")
    return name


def cuda_unavailable_reason() -> str | None:
    """Why this process cannot use CUDA (None when it can)."""
    import torch

    if torch.cuda.is_available():
        return None
    build = f"with CUDA {torch.version.cuda}" if torch.version.cuda else "without CUDA"
    return f"torch.cuda.is_available() is False on this machine (torch {torch.__version__}, built {build})"


def run_device(name: str) -> torch.device:
    """The torch device of setting ``name``, ready for the run.

    ``cpu`` changes nothing. ``cuda`` raises :class:`DeviceUnavailable` when this machine has
    no usable GPU, and otherwise applies the profile's GPU numerics first.
    """
    import torch

    check_device_name(name)
    if name == "cpu":
        return torch.device("cpu")
    reason = cuda_unavailable_reason()
    if reason is not None:
        raise DeviceUnavailable(
            f"BO setting device is 'cuda' but {reason}; run the job on a GPU node (the SLURM "
            "profile requests one through slurm.gpu_gres) or set bo.device: cpu"
        )
    from boexplore.numerics import apply_cuda_numerics

    apply_cuda_numerics()
    return torch.device("cuda")
