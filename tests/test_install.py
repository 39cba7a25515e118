"""The built wheel: base install = metrics with numpy/scipy only; schemas ship as package data.

The wheel is built from a copy of the source tree (no build isolation, no network) and
installed with ``--no-deps`` into a fresh virtual environment *without* system site
packages. numpy and scipy are linked into it from the running interpreter, so in that
environment ``import torch`` and ``import pandas`` fail (checked as controls) and the
metrics must still import and the ``boexplore metrics`` command must still run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(kw.pop("env", {}))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the tree (keeps build/ and egg-info out of the worktree)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    dist = tmp_path_factory.mktemp("dist")
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(dist), str(src)]
    )
    (found,) = dist.glob("boexplore-*.whl")
    return found


def _install_wheel(wheel: Path, target: Path) -> None:
    """Install the wheel alone (no dependencies) into the directory ``target``."""
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ]
    )


@pytest.fixture(scope="module")
def bare_venv(wheel, tmp_path_factory) -> Path:
    """A venv without system packages: the wheel (no deps) plus numpy and scipy only."""
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", "--clear", str(venv)])
    python = venv / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    site = Path(purelib.stdout.strip())
    _install_wheel(wheel, site)
    for module in (np, scipy):
        pkg = Path(module.__file__).parent
        for path in pkg.parent.glob(f"{pkg.name}*"):  # the package, its .libs and dist-info
            if path.name == pkg.name or path.name.endswith((".libs", ".dist-info")):
                (site / path.name).symlink_to(path)
    return python


def test_wheel_metadata_base_is_numpy_scipy(wheel):
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        lines = zf.read(meta).decode().splitlines()
        names = zf.namelist()
    requires = [ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Requires-Dist:")]
    base = sorted(r for r in requires if "extra ==" not in r)
    assert base == ["numpy>=1.26", "scipy>=1.11"]
    extras = {ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Provides-Extra:")}
    assert extras == {"bo", "pipeline", "realworld", "optuna", "ax", "test", "docs", "all"}
    assert any(r.startswith("optuna<6,>=4") and 'extra == "optuna"' in r for r in requires)
    assert any(r.startswith("torch<2.14,>=2.4") and 'extra == "bo"' in r for r in requires)
    for schema in ("config", "analysis", "parametric"):
        assert f"boexplore/schema/{schema}.schema.yaml" in names


def test_metrics_import_and_cli_without_torch(bare_venv, tmp_path):
    X = np.random.default_rng(3).random((40, 4))
    np.save(tmp_path / "pts.npy", X)
    np.savetxt(tmp_path / "pts.csv", X, delimiter=",", header="x_0,x_1,x_2,x_3", comments="")
    script = textwrap.dedent(
        f"""
        import importlib.util, json, sys
        missing = [m for m in ("torch", "pandas", "botorch", "matplotlib", "yaml")
                   if importlib.util.find_spec(m) is not None]
        import numpy as np
        import boexplore, boexplore.metrics as m
        X = np.load({str(tmp_path / "pts.npy")!r})
        t = m.ExplorationTracker(d=4)
        for x in X:
            t.update(x)
        assert abs(t.otsd - float(m.otsd(X)[-1])) < 1e-9
        print(json.dumps({{"present": missing, "file": boexplore.__file__,
                          "otsd": float(m.otsd(X)[-1]), "oe": float(m.observation_entropy(X)[-1]),
                          "loaded": sorted(k for k in ("torch", "pandas") if k in sys.modules)}}))
        """
    )
    out = json.loads(_run([str(bare_venv), "-c", script], cwd=tmp_path).stdout)
    assert out["present"] == []  # controls: the heavy packages really are absent
    assert out["loaded"] == []
    assert out["file"].startswith(str(bare_venv.parents[1]))
    import boexplore.metrics as here

    assert out["otsd"] == pytest.approx(float(here.otsd(X)[-1]), rel=1e-12)
    assert out["oe"] == pytest.approx(float(here.observation_entropy(X)[-1]), rel=1e-12)
    # The command line, from .npy and from .csv (stdlib reader), matches the in-process table.
    from boexplore.metrics.scoring import metrics_table

    want = metrics_table(X)
    for name in ("pts.npy", "pts.csv"):
        res = _run([str(bare_venv), "-m", "boexplore", "metrics", name], cwd=tmp_path)
        header, *rows = res.stdout.strip().splitlines()
        # oe_rel (and its uniform baseline) come from the analysis module, still without pandas
        assert header.split(",") == [*want, "oe_uniform", "oe_rel"]
        got = np.array([[float(v) if v else np.nan for v in r.split(",")] for r in rows])
        np.testing.assert_allclose(got[:, 1], want["otsd"], rtol=1e-12)
        np.testing.assert_allclose(got[:, 8], want["oe_kl"], rtol=1e-12, equal_nan=True)
    helped = _run([str(bare_venv), "-m", "boexplore", "--help"], cwd=tmp_path).stdout
    assert "metrics" in helped
    # parquet needs the pipeline extra: a clear error naming it, not a traceback
    (tmp_path / "pts.parquet").write_bytes(b"PAR1")
    bad = subprocess.run(
        [str(bare_venv), "-m", "boexplore", "metrics", "pts.parquet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "boexplore[pipeline]" in bad.stderr
    assert "Traceback" not in bad.stderr
    # a BO run needs the bo extra: the error names the extra to install
    run = subprocess.run(
        [str(bare_venv), "-m", "boexplore", "run", "--problem", "branin", "--method", "random"]
        + ["--seed", "0", "--budget", "3", "--out", "t.parquet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 2 and "pip install 'boexplore[" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_schemas_resolve_from_installed_wheel(wheel, tmp_path):
    """A non-editable install (outside the source tree) validates configs from package data."""
    target = tmp_path / "site"
    _install_wheel(wheel, target)
    script = textwrap.dedent(
        f"""
        import json, yaml
        import boexplore
        from boexplore.analysis.config import analysis_config
        from boexplore.pipeline.paper2_grid import resolve_config
        from boexplore.workflow_config import validate_config
        cfg = validate_config(yaml.safe_load(open({str(ROOT / "config" / "smoke.yaml")!r})))
        print(json.dumps({{"file": boexplore.__file__,
                          "parametric": sorted(resolve_config(None)),
                          "c1": analysis_config(None)["thresholds"]["c1_rho"],
                          "run": cfg["run_name"], "budget": cfg["budget"]}}))
        """
    )
    res = _run([sys.executable, "-c", script], cwd=tmp_path, env={"PYTHONPATH": str(target)})
    out = json.loads(res.stdout)
    assert out["file"].startswith(str(target))  # really the wheel, not the source tree
    assert "problems" in out["parametric"] and "seed_chunk" in out["parametric"]
    assert out["c1"] == 0.5 and out["run"] == "smoke" and out["budget"] >= 1
