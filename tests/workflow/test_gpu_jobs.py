"""Methods on a GPU in the workflow (issue 41 item 2): ``bo.device`` is validated, GPU jobs
request ``slurm.gpu_gres`` through the SLURM profile (dry run), CPU-only configs request
nothing new, and ``boexplore estimate`` prints a GPU column that says what is not measured."""

from __future__ import annotations

import copy
import json
import re
from types import SimpleNamespace

import pytest
import torch
import yaml
from wfhelpers import REPO, run_snakemake

from boexplore.cli import main
from boexplore.pipeline import cost, gpu_cost
from boexplore.pipeline.gpu_jobs import (
    bo_run_resources,
    cuda_methods,
    gres_request,
    local_gpu_warning,
    method_device,
    partition_request,
)
from boexplore.workflow_config import (
    ConfigError,
    load_config,
    method_bo_settings,
    run_table,
    validate_config,
)

SMOKE = REPO / "config" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke_raw() -> dict:
    return yaml.safe_load(SMOKE.read_text())


def _with(raw: dict, **sections) -> dict:
    cfg = copy.deepcopy(raw)
    for key, value in sections.items():
        cfg[key] = {**(cfg.get(key) or {}), **value}
    return cfg


def _gpu_config(raw: dict, **slurm) -> dict:
    """smoke with kg and mes on cuda (per method), everything else on the CPU."""
    by_method = {"kg": {"device": "cuda"}, "mes": {"device": "cuda"}}
    cfg = _with(raw, bo={"by_method": by_method})
    if slurm:
        cfg["slurm"] = slurm
    return cfg


@pytest.mark.parametrize(
    ("bo", "slurm", "message"),
    [
        ({"device": "gpu"}, None, r"bo\.device: 'gpu' is not one of \['cpu', 'cuda'\]"),
        ({"by_method": {"kg": {"device": "cuda:0"}}}, None, r"bo\.by_method\.kg\.device"),
        ({"extra": {"device": "cuda"}}, None, r"bo\.extra\.device: set the device with bo\.device"),
        ({}, {"gpu_gres": "2 gpus"}, r"slurm\.gpu_gres"),
        ({}, {"gpu_partiton": "gpu"}, r"slurm\.gpu_partiton: unknown key"),
    ],
)
def test_config_validation_rejects_bad_devices(smoke_raw, bo, slurm, message) -> None:
    cfg = _with(smoke_raw, bo=bo)
    if slurm is not None:
        cfg["slurm"] = slurm
    with pytest.raises(ConfigError, match=message):
        validate_config(cfg)


def test_device_is_global_with_per_method_overrides(smoke_raw) -> None:
    cfg = validate_config(
        _with(smoke_raw, bo={"device": "cuda", "by_method": {"ts": {"device": "cpu"}}})
    )
    assert method_device(cfg, "kg") == "cuda" and method_device(cfg, "ts") == "cpu"
    assert method_bo_settings(cfg, "kg")["device"] == "cuda"
    assert "ts" not in cuda_methods(cfg) and len(cuda_methods(cfg)) == len(cfg["methods"]) - 1


@pytest.mark.parametrize("name", ["smoke", "config", "paper"])
def test_cpu_configs_add_no_resource_and_no_device_setting(name) -> None:
    cfg = load_config(REPO / "config" / f"{name}.yaml")
    assert cuda_methods(cfg) == [] and bo_run_resources(cfg) == {}
    assert all("device" not in method_bo_settings(cfg, m) for m in cfg["methods"])


def test_gres_and_partition_requests(smoke_raw) -> None:
    cfg = validate_config(_gpu_config(smoke_raw))
    assert gres_request(cfg, "kg") == "gpu:1" and gres_request(cfg, "logei") is None
    assert set(bo_run_resources(cfg)) == {"gres"}  # no gpu_partition: the profile's applies
    cfg = validate_config(_gpu_config(smoke_raw, gpu_gres="gpu:a100:1", gpu_partition="gpu",
                                      cpu_partition="cpu"))  # fmt: skip
    assert gres_request(cfg, "mes") == "gpu:a100:1"
    assert partition_request(cfg, "mes") == "gpu" and partition_request(cfg, "ts") == "cpu"
    res = bo_run_resources(cfg)
    assert res["gres"](SimpleNamespace(method="kg")) == "gpu:a100:1"
    assert res["gres"](SimpleNamespace(method="ts")) is None


def test_the_slurm_plugin_turns_the_request_into_sbatch_gres() -> None:
    from snakemake_executor_plugin_slurm.utils import set_gres_string

    class Res(dict):
        __getattr__ = dict.get

    job = SimpleNamespace(resources=Res(gres="gpu:a100:1"))
    assert set_gres_string(job).strip() == "--gres=gpu:a100:1"


def _bo_jobs(stdout: str) -> dict[tuple[str, str, str], dict[str, str]]:
    """(problem, method, chunk) -> resources of every bo_run job a dry run prints."""
    jobs, rule, wildcards = {}, None, {}
    for line in stdout.splitlines():
        if m := re.match(r"^(?:local)?rule (\w+):", line):
            rule, wildcards = m[1], {}
        elif line.strip().startswith("wildcards:"):
            wildcards = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
        elif line.strip().startswith("resources:") and rule == "bo_run":
            res = dict(kv.split("=", 1) for kv in line.split(":", 1)[1].strip().split(", "))
            jobs[(wildcards["problem"], wildcards["method"], wildcards["chunk"])] = res
    return jobs


@pytest.mark.parametrize("partitions", [False, True])
def test_gpu_jobs_dry_run_through_the_slurm_profile_with_gres(smoke_raw, tmp_path, partitions):
    slurm = {"gpu_gres": "gpu:a100:1"}
    if partitions:
        slurm |= {"gpu_partition": "gpu", "cpu_partition": "cpu"}
    cfg_file = tmp_path / "gpu.yaml"
    cfg_file.write_text(yaml.safe_dump({**_gpu_config(smoke_raw, **slurm), "run_name": "gpu_dry"}))
    rows = [r for r in run_table(load_config(cfg_file)) if r["method"] in ("kg", "mes", "logei")]
    targets = [f"results/gpu_dry/runs/{r['problem']}/{r['method']}/{r['chunk']}.parquet"
               for r in rows]  # fmt: skip
    proc = run_snakemake(
        [*targets, "-n", "--profile", str(REPO / "profiles" / "slurm"), "--configfile",
         str(cfg_file)], cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = _bo_jobs(proc.stdout + proc.stderr)
    assert set(jobs) == {(r["problem"], r["method"], r["chunk"]) for r in rows}
    for (_, method, _), res in jobs.items():
        on_gpu = method in ("kg", "mes")
        assert res.get("gres") == ("gpu:a100:1" if on_gpu else None)
        expected = ("gpu" if on_gpu else "cpu") if partitions else ""  # profile's: ""
        assert res["slurm_partition"] == expected
        assert res["cpus_per_task"] == "1" and int(res["runtime"]) > 0


def test_estimate_prints_a_gpu_column_not_measured(smoke_raw, tmp_path, capsys) -> None:
    cfg_file = tmp_path / "gpu.yaml"
    cfg_file.write_text(yaml.safe_dump(_gpu_config(smoke_raw)))
    assert main(["estimate", "--configfile", str(cfg_file)]) == 0
    out = capsys.readouterr().out
    assert "GPU column" in out
    kg = next(line for line in out.splitlines() if line.startswith("kg "))
    assert kg.split()[-2:] == ["not", "measured"] and float(kg.split()[3]) >= 0
    assert "gpu.speedup.<base>) for kg, mes" in out
    assert main(["estimate", "--configfile", str(SMOKE)]) == 0
    assert "GPU column" not in capsys.readouterr().out  # CPU-only configs print as before


def test_gpu_hours_come_only_from_a_calibration_entry(smoke_raw) -> None:
    cfg = validate_config(_gpu_config(smoke_raw))
    cal = cost.config_calibration(cfg)
    assert "gpu" not in cal  # the shipped calibration has measured no GPU
    jobs = cost.workflow_job_costs(cfg, cal)
    rows = {r.method: r for r in gpu_cost.gpu_rows(jobs, cfg, cal)}
    assert rows["kg"].gpu_h is None and rows["kg"].jobs == sum(
        r["method"] == "kg" for r in run_table(cfg)
    )
    measured = json.loads(json.dumps(cal)) | {"gpu": {"speedup": {"kg": 4.0}}}
    rows = {r.method: r for r in gpu_cost.gpu_rows(jobs, cfg, measured)}
    assert rows["kg"].gpu_h == pytest.approx(rows["kg"].cpu_h / 4.0)
    assert rows["mes"].gpu_h is None
    lines = gpu_cost.format_gpu_column(list(rows.values())).splitlines()
    assert next(x for x in lines if x.startswith("kg ")).split()[-1] == f"{rows['kg'].gpu_h:.1f}"
    total = next(x for x in lines if x.startswith("total"))
    assert total.endswith("not measured")  # mes is not measured, so neither is the total


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_local_run_is_warned_that_its_cuda_jobs_cannot_run(smoke_raw) -> None:
    cfg = validate_config(_gpu_config(smoke_raw))
    assert "kg, mes run on cuda" in (local_gpu_warning(cfg) or "")
    assert local_gpu_warning(validate_config(smoke_raw)) is None
