"""Numerics profiles: environment pinning, CPU checks, the one re-execution, the identity."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    """In the boexplore program (allow_reexec: the console script's mode) only."""
    code = (
        "import numpy, sys; from boexplore.numerics import ensure_profile, active_identity;"
        "from boexplore.numerics import allow_reexec; allow_reexec();"
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


# --- issue 39: the pin lives in the console script; a library call is never re-executed ------
RUN = ["run", "--problem", "branin", "--dim", "2", "--method", "random", "--seed", "0",
       "--budget", "5", "--n-init", "2", "--quiet"]  # fmt: skip


class Reexec(Exception):
    """Raised instead of os.execve: the process would have been re-executed."""


def _no_exec(*args, **kwargs):
    raise Reexec(args[1])


def test_library_main_never_reexecutes_and_runs_unpinned_with_a_warning(monkeypatch, tmp_path):
    """``boexplore.cli.main([...])`` after numpy / torch were loaded (as here, in pytest)."""
    import pandas as pd

    from boexplore.cli import main

    for var in profile_env("portable"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(PROFILE_VAR, "unpinned")
    monkeypatch.setattr(numerics, "cpu_flags", lambda: {"avx2", "fma"})
    monkeypatch.setattr(numerics.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(numerics.os, "execve", _no_exec)
    monkeypatch.setattr(numerics, "_reexec_allowed", False)
    out = tmp_path / "t.parquet"
    with pytest.warns(RuntimeWarning, match="'portable' not applied"):
        assert main([*RUN, "--out", str(out), "--numerics", "portable"]) == 0
    ident = pd.read_parquet(out).attrs["boexplore"]["numerics"]
    assert ident["profile"] == "unpinned" and "OPENBLAS_CORETYPE" not in os.environ
    # control: in the program's mode the same call would re-execute the process
    numerics.allow_reexec()
    with pytest.raises(Reexec):
        main([*RUN, "--out", str(tmp_path / "u.parquet"), "--numerics", "portable"])


@pytest.mark.skipif(
    missing_cpu_flags(get_profile("portable")) != [], reason="needs an x86-64 CPU with AVX2"
)
def test_console_script_pins_before_numpy_loads_and_so_never_reexecutes(tmp_path):
    out = tmp_path / "t.parquet"
    argv = ["boexplore", *RUN, "--out", str(out), "--numerics", "portable"]
    body = (
        f"import os, sys; sys.argv = {argv!r}; from boexplore.cli import console_main;"
        "code = console_main(); import pandas as pd;"
        f"i = pd.read_parquet({str(out)!r}).attrs['boexplore']['numerics'];"
        f"print(code, os.environ.get({numerics.REEXEC_VAR!r}), i['profile'], i['blas'])"
    )
    done = _child(body, {"OPENBLAS_CORETYPE": "SkylakeX"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:3] == ["0", "None", "portable"], done.stdout
    assert "openblas:Haswell" in done.stdout
    # control: numpy loaded before the console script starts -> its one re-execution
    done = _child("import numpy;" + body, {"OPENBLAS_CORETYPE": "SkylakeX"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:3] == ["0", "portable", "portable"], done.stdout


def test_numerics_request_reads_what_the_handlers_pin(monkeypatch):
    from boexplore.cli import build_parser, numerics_request

    repo = Path(__file__).resolve().parents[1]
    monkeypatch.setenv(PROFILE_VAR, "unpinned")
    assert numerics_request([*RUN, "--out", "x.parquet"]) == ("unpinned", {})
    argv = [*RUN, "--out", "x.parquet", "--numerics=portable"]
    assert numerics_request(argv) == ("portable", {})
    assert build_parser().parse_args(argv).numerics == "portable"
    assert numerics_request(["parametric", "run", "--numerics", "portable"]) == ("portable", {})
    assert numerics_request(["parametric", "policies"]) is None
    config = str(repo / "config" / "replicate.yaml")
    assert numerics_request(["verify", "--configfile", config]) == ("release-2026-12-03", {})
    argv = ["verify", "--configfile", config, "--profile", "portable", "--env", "A=1", "B=2",
            "--sample", "3"]  # fmt: skip
    assert numerics_request(argv) == ("portable", {"A": "1", "B": "2"})
    assert numerics_request(["verify", "--integrity", "--configfile", config]) is None
    assert numerics_request(["metrics", "--help"]) is None and numerics_request([]) is None
