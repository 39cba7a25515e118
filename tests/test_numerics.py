"""Numerics profiles: environment pinning, CPU checks, the one re-execution, the identity."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from boexplore import numerics
from boexplore.numerics import (
    PROFILE_VAR,
    PROFILES,
    env_matches,
    get_profile,
    missing_cpu_flags,
    pin_environment,
    profile_env,
)


def test_unknown_profile_names_the_known_ones():
    with pytest.raises(ValueError, match="portable"):
        get_profile("fastest")


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_profile_env_names_itself_and_pins_one_thread(name):
    env = profile_env(name)
    assert env[PROFILE_VAR] == name
    if name != "unpinned":
        assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"


def test_pin_environment_sets_every_variable_and_env_matches_then(monkeypatch):
    monkeypatch.setattr(numerics, "cpu_flags", lambda: {"avx2", "fma"})
    monkeypatch.setattr(numerics.platform, "machine", lambda: "x86_64")
    environ = {"OPENBLAS_CORETYPE": "SkylakeX"}
    assert not env_matches("portable", environ)
    assert pin_environment("portable", environ) == []
    assert env_matches("portable", environ)
    assert environ["OPENBLAS_CORETYPE"] == "Haswell"
    # An override on top is part of what must match.
    assert not env_matches("portable", environ, overrides={"OPENBLAS_CORETYPE": "Zen"})


def test_a_cpu_without_the_flags_is_left_alone(monkeypatch):
    monkeypatch.setattr(numerics, "cpu_flags", lambda: {"avx2", "fma"})
    monkeypatch.setattr(numerics.platform, "machine", lambda: "x86_64")
    environ: dict[str, str] = {}
    missing = pin_environment("release-2026-12-03", environ)
    assert "avx512f" in missing and environ == {}
    assert missing_cpu_flags(get_profile("unpinned")) == []


def test_other_architectures_miss_every_flag(monkeypatch):
    monkeypatch.setattr(numerics.platform, "machine", lambda: "aarch64")
    assert missing_cpu_flags(get_profile("portable")) == ["avx2", "fma"]


def _child(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in profile_env("portable")}
    return subprocess.run(
        [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True
    )


@pytest.mark.skipif(
    missing_cpu_flags(get_profile("portable")) != [], reason="needs an x86-64 CPU with AVX2"
)
def test_ensure_profile_reexecutes_once_after_numpy_was_loaded():
    code = (
        "import numpy, sys; from boexplore.numerics import ensure_profile, active_identity;"
        "print(ensure_profile('portable')); print(active_identity()['blas'])"
    )
    done = _child(code, {"OPENBLAS_CORETYPE": "SkylakeX"})
    assert done.returncode == 0, done.stderr
    assert "portable" in done.stdout and "openblas:Haswell" in done.stdout
    # The control: the same code with the re-execution guard already set refuses to loop.
    done = _child(code, {"OPENBLAS_CORETYPE": "SkylakeX", numerics.REEXEC_VAR: "portable"})
    assert done.returncode != 0 and "not in effect after re-executing" in done.stderr


def test_stamp_trace_records_the_identity():
    import pandas as pd

    trace = numerics.stamp_trace(pd.DataFrame({"y": [1.0]}))
    ident = trace.attrs["boexplore"]
    assert {"numerics", "boexplore", "git_commit"} <= set(ident)
    assert ident["numerics"]["python"]
