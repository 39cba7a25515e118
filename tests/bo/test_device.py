"""``BOSettings.device``: ``cpu`` is the engine as before (same trace, same identity), ``cuda``
is recorded in the identity and refused before anything is written where there is no GPU.

The cuda runs themselves need a GPU (``test_cuda_run_*``, skipped elsewhere)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import torch

from boexplore import numerics
from boexplore.bo import run_bo
from boexplore.bo.checkpoint import read_checkpoint
from boexplore.bo.device import DeviceUnavailable, run_device
from boexplore.bo.identity import identity_sha256, run_identity
from boexplore.bo.loop import settings_identity
from boexplore.bo.settings import BOSettings

from .conftest import FAST, Quadratic

NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
TIMING = ["fit_seconds", "acq_seconds"]


@pytest.mark.parametrize("spec", ["logei", "ts", "kg(fantasies=4)"])
def test_device_cpu_gives_the_trace_and_identity_of_no_device(spec, tmp_path):
    def run(name: str, **kw):
        ck = tmp_path / f"{name}.ckpt"
        trace = run_bo(Quadratic(3), spec, seed=1, budget=7, n_init=4, checkpoint=ck, **FAST, **kw)
        return trace.drop(columns=TIMING), read_checkpoint(ck).meta

    unset, meta_unset = run("unset")
    cpu, meta_cpu = run("cpu", device="cpu")
    pd.testing.assert_frame_equal(unset, cpu, check_exact=True)
    assert "device" not in meta_unset["identity"]["settings"]
    assert meta_cpu["identity_sha256"] == meta_unset["identity_sha256"]


def test_a_checkpoint_without_device_resumes_under_device_cpu(tmp_path, caplog):
    ck = tmp_path / "run.ckpt"
    run_bo(Quadratic(2), "logei", seed=0, budget=6, n_init=4, checkpoint=ck, **FAST)
    whole = run_bo(Quadratic(2), "logei", seed=0, budget=8, n_init=4, **FAST)
    with caplog.at_level("INFO", logger="boexplore.bo"):
        resumed = run_bo(
            Quadratic(2), "logei", seed=0, budget=8, n_init=4, checkpoint=ck, device="cpu", **FAST
        )
    assert "resuming from" in caplog.text
    pd.testing.assert_frame_equal(whole.drop(columns=TIMING), resumed.drop(columns=TIMING))


def test_identity_records_the_device_only_when_not_cpu():
    def sha(**kw) -> str:
        settings = settings_identity(BOSettings.from_kwargs(**kw))
        return identity_sha256(run_identity("p" * 64, 3, "logei", 0, 4, settings))

    assert "device" not in settings_identity(BOSettings.from_kwargs(device="cpu"))
    assert settings_identity(BOSettings.from_kwargs(device="cuda"))["device"] == "cuda"
    assert sha(device="cpu") == sha()
    assert sha(device="cuda") != sha()


def test_settings_refuse_an_unknown_device():
    with pytest.raises(ValueError, match=r"device must be one of \['cpu', 'cuda'\], got 'gpu'"):
        BOSettings.from_kwargs(device="gpu")
    with pytest.raises(ValueError, match="device must be one of"):
        run_bo(Quadratic(2), "logei", seed=0, budget=5, n_init=4, device="cuda:1", **FAST)


@NO_CUDA
def test_cuda_without_a_gpu_fails_before_anything_is_written(tmp_path):
    ck = tmp_path / "run.ckpt"
    with pytest.raises(DeviceUnavailable, match=r"torch.cuda.is_available\(\) is False"):
        run_bo(Quadratic(2), "logei", seed=0, budget=6, n_init=4, checkpoint=ck, device="cuda")
    assert list(tmp_path.iterdir()) == []


@NO_CUDA
def test_workflow_job_on_cuda_without_a_gpu_writes_nothing(tmp_path):
    from boexplore.pipeline.runs_stage import run_from_spec

    out, ckpts = tmp_path / "run.parquet", tmp_path / "checkpoints"
    with pytest.raises(DeviceUnavailable, match="bo.device: cpu"):
        run_from_spec(tmp_path / "missing.json", "p", "m", "logei", [0], 6, 4,
                      {"device": "cuda"}, out, ckpts)  # fmt: skip
    assert not out.exists() and not ckpts.exists()


def test_run_device_cpu_changes_no_numerics(monkeypatch):
    calls: list[bool] = []
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda on, **kw: calls.append(on))
    assert run_device("cpu") == torch.device("cpu") and calls == []


@pytest.mark.parametrize(("profile", "deterministic"), [("portable", True), ("unpinned", False)])
def test_gpu_numerics_of_a_profile(profile, deterministic, monkeypatch):
    calls: list[bool] = []
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda on, **kw: calls.append(on))
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    monkeypatch.setenv(numerics.PROFILE_VAR, profile)
    done = numerics.apply_cuda_numerics()
    assert done["deterministic_algorithms"] is deterministic
    assert calls == ([True] if deterministic else [])
    expected = ":4096:8" if deterministic else None
    assert os.environ.get("CUBLAS_WORKSPACE_CONFIG") == expected


@pytest.fixture
def _restore_determinism():
    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


@CUDA
@pytest.mark.usefixtures("_restore_determinism")
@pytest.mark.parametrize("spec", ["logei", "ts", "kg(fantasies=4)", "mes(candidates=100)"])
def test_cuda_run_gives_a_cpu_trace_with_device_in_the_identity(spec, tmp_path):
    ck = tmp_path / "run.ckpt"
    trace = run_bo(Quadratic(3), spec, seed=1, budget=7, n_init=4, checkpoint=ck, device="cuda",
                   **FAST)  # fmt: skip
    assert (trace["fallback"] == "").all(), trace["fallback"].tolist()
    assert np.isfinite(trace[["x_0", "x_1", "x_2", "y"]].to_numpy()).all()
    assert read_checkpoint(ck).meta["identity"]["settings"]["device"] == "cuda"
    assert torch.are_deterministic_algorithms_enabled()
