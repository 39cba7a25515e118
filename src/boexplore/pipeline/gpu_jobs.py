"""Which BO jobs of a config run on a GPU, and what they ask a SLURM cluster for.

A method runs on a GPU when its settings (``bo`` with ``bo.by_method.<label>`` on top; the
same merge the jobs get) say ``device: cuda``. Its ``bo_run`` jobs then request
``slurm.gpu_gres`` and, when set, ``slurm.gpu_partition``; every other job keeps the
profile's requests, and a config without cuda methods adds no resource at all (its jobs'
requests stay exactly what they were).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boexplore.workflow_config import method_bo_settings

#: ``slurm.gpu_gres`` when the config does not set it (the schema's default).
DEFAULT_GPU_GRES = "gpu:1"


def method_device(config: Mapping[str, Any], method: str) -> str:
    """``cpu`` or ``cuda``: where the runs of method label ``method`` fit and optimise."""
    return str(method_bo_settings(config, method).get("device") or "cpu")


def cuda_methods(config: Mapping[str, Any]) -> list[str]:
    """The method labels of ``config`` that run on a GPU, in config order."""
    return [m for m in config["methods"] if method_device(config, m) == "cuda"]


def _slurm(config: Mapping[str, Any]) -> Mapping[str, Any]:
    return config.get("slurm") or {}


def gres_request(config: Mapping[str, Any], method: str) -> str | None:
    """The ``gres`` of a ``bo_run`` job of ``method`` (None: no GPU requested)."""
    if method_device(config, method) != "cuda":
        return None
    return str(_slurm(config).get("gpu_gres") or DEFAULT_GPU_GRES)


def partition_request(config: Mapping[str, Any], method: str) -> str | None:
    """The ``slurm_partition`` of a ``bo_run`` job of ``method`` once ``slurm.gpu_partition``
    is set: that partition for GPU jobs, ``slurm.cpu_partition`` for the others (None: no
    partition request, the cluster's default)."""
    key = "gpu_partition" if method_device(config, method) == "cuda" else "cpu_partition"
    value = _slurm(config).get(key)
    return None if value in (None, "") else str(value)


Resource = Callable[[Any], Any]


def bo_run_resources(config: Mapping[str, Any]) -> dict[str, Resource]:
    """Extra resources of rule ``bo_run`` (Snakemake callables of the job's wildcards).

    Empty unless a method runs on cuda: ``gres`` for the GPU jobs (None, i.e. absent, for
    the others), and ``slurm_partition`` only when ``slurm.gpu_partition`` is set."""
    if not cuda_methods(config):
        return {}
    out: dict[str, Resource] = {"gres": lambda wc: gres_request(config, wc.method)}
    if _slurm(config).get("gpu_partition"):
        out["slurm_partition"] = lambda wc: partition_request(config, wc.method)
    return out


def local_gpu_warning(config: Mapping[str, Any]) -> str | None:
    """A warning for a run on this machine (local executor) whose cuda methods cannot run
    here: their jobs will each fail before writing anything. None when nothing is amiss."""
    methods = cuda_methods(config)
    if not methods:
        return None
    from boexplore.bo.device import cuda_unavailable_reason

    reason = cuda_unavailable_reason()
    if reason is None:
        return None
    return (
        f"methods {', '.join(methods)} run on cuda (bo.device) but {reason}: their bo_run jobs "
        "will fail on this machine; run them on a GPU node (--profile profiles/slurm) or set "
        "their device to cpu"
    )
