"""Issue 23 cases 3-4: bad configs and arguments stop up front, naming the key / flag / file."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
import yaml
from wfhelpers import REPO, run_snakemake

from boexplore.cli import main
from boexplore.workflow_config import ConfigError, load_config, validate_config

pytestmark = pytest.mark.faults


@pytest.fixture(scope="module")
def smoke() -> dict:
    return yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())


def _rejects(cfg: dict, *fragments: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate_config(cfg)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)


# -- case 3: cross-key references and duplicate labels ------------------------------------


def test_paper_order_group_missing_from_groups(smoke) -> None:
    cfg = copy.deepcopy(smoke)
    cfg.setdefault("analysis", {})["groups"] = {"random": ["random"], "ei": ["logei"]}
    cfg["analysis"]["paper_order"] = [["random"], ["ei"], ["greedy"]]
    _rejects(cfg, "analysis.paper_order.2", "'greedy'")


@pytest.mark.parametrize("key", ["explorers", "exploiters", "c4_ts_groups", "c5_ucb_groups"])
def test_claim_groups_must_exist(smoke, key) -> None:
    cfg = copy.deepcopy(smoke)
    cfg.setdefault("analysis", {})[key] = ["no_such_group"]
    _rejects(cfg, f"analysis.{key}", "no_such_group")


def test_method_in_two_paper_groups(smoke) -> None:
    cfg = copy.deepcopy(smoke)
    cfg.setdefault("analysis", {})["groups"] = {
        **validate_config(smoke)["analysis"]["groups"],
        "ei": ["logei", "random"],
    }
    _rejects(cfg, "analysis.groups.ei", "'random'")


@pytest.mark.parametrize(
    ("section", "fragment"),
    [
        ({"e1": {"problems": ["nn1d", "nope"]}}, "parametric.e1.problems.1"),
        ({"claims": {"policy": "gp_ucb"}, "e1": {"methods": ["rr_ts"]}}, "parametric.claims.policy"),
        ({"claims": {"ablations": ["nn_wram"]}}, "parametric.claims.ablations.0"),
        ({"e1": {"policy_overrides": {"nn_greedy": {}}, "methods": ["rr_ts"]}},
         "parametric.e1.policy_overrides.nn_greedy"),
    ],
)  # fmt: skip
def test_paper2_cross_references(smoke, section, fragment) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["parametric"] = {**section, "enabled": True}
    _rejects(cfg, fragment)


def test_duplicate_problem_label_in_yaml(tmp_path) -> None:
    text = (REPO / "config" / "smoke.yaml").read_text()
    dup = text.replace("problems:\n", "problems:\n  branin:\n    name: ackley\n    dim: 2\n", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(dup)
    with pytest.raises(ConfigError, match=r"duplicate key 'branin'") as err:
        load_config(path)
    assert str(path) in str(err.value)


def test_estimate_refuses_duplicate_labels(tmp_path, capsys) -> None:
    text = (REPO / "config" / "smoke.yaml").read_text()
    path = tmp_path / "dup.yaml"
    path.write_text(text.replace("methods:\n", "methods:\n  random: sobol\n", 1))
    assert main(["estimate", "--configfile", str(path)]) == 2
    assert "duplicate key 'random'" in capsys.readouterr().err


def test_snakemake_dry_run_stops_on_cross_key_and_duplicate_errors(tmp_path) -> None:
    base = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    base["analysis"] = {"groups": {"random": ["random"]}, "paper_order": [["random"], ["ei"]]}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(base))
    res = run_snakemake(["-n", "--configfile", str(bad)], cwd=tmp_path, timeout=300)
    assert res.returncode != 0 and "analysis.paper_order.1" in res.stderr + res.stdout
    dup = tmp_path / "dup.yaml"
    text = (REPO / "config" / "smoke.yaml").read_text()
    dup.write_text(text.replace("methods:\n", "methods:\n  random: sobol\n", 1))
    res = run_snakemake(["-n", "--configfile", str(dup)], cwd=tmp_path, timeout=300)
    assert res.returncode != 0 and "duplicate key 'random'" in res.stderr + res.stdout


# -- case 4: CLI arguments ------------------------------------------------------------------

RUN = ["run", "--problem", "branin", "--dim", "2", "--method", "random", "--budget", "6",
       "--numerics", "unpinned"]  # fmt: skip


def test_negative_seed_is_refused_before_any_work(tmp_path, capsys) -> None:
    out = tmp_path / "t.parquet"
    assert main([*RUN, "--seed", "-1", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "-1" in err
    assert list(tmp_path.iterdir()) == [], "no checkpoint, no trace"


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--budget", "0"), ("--n-init", "0"), ("--threads", "0"), ("--dim", "0")],
)
def test_other_numeric_arguments_are_named(tmp_path, capsys, flag, value) -> None:
    args = [*RUN, "--seed", "0", "--out", str(tmp_path / "t.parquet"), "--quiet"]
    if flag == "--dim":
        args[args.index("--dim") + 1] = value
    else:
        args += [flag, value]
    assert main(args) == 2
    assert flag in capsys.readouterr().err


def test_out_under_a_regular_file(tmp_path, capsys) -> None:
    (tmp_path / "file").write_text("x")
    assert main([*RUN, "--seed", "0", "--out", str(tmp_path / "file" / "t.parquet")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file" in err and "Traceback" not in err


def test_unwritable_out_names_the_path_not_a_temp_file(capsys) -> None:
    target = "/proc/boexplore-unwritable/t.parquet"  # not writable, even for root
    assert main([*RUN, "--seed", "0", "--out", target, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and target in err and ".tmp" not in err


def test_bad_settings_json_names_the_flag(tmp_path, capsys) -> None:
    args = [*RUN, "--seed", "0", "--out", str(tmp_path / "t.parquet"), "--settings", "{oops"]
    assert main(args) == 2
    assert "--settings" in capsys.readouterr().err


# -- case 4: metrics input ---------------------------------------------------------------


def test_metrics_refuses_objective_column_as_coordinate(tmp_path, capsys) -> None:
    path = tmp_path / "pts.csv"
    pd.DataFrame({"a": [0.1, 0.5, 0.9], "y": [1.0, 2.0, 0.5]}).to_csv(path, index=False)
    assert main(["metrics", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--columns" in err and "y" in err and str(path) in err
    assert main(["metrics", str(path), "--columns", "a", "-o", str(tmp_path / "m.csv")]) == 0


@pytest.mark.parametrize(
    ("name", "content"),
    [("empty.csv", b""), ("binary.csv", bytes(range(256)) * 4), ("blank.csv", b"\n\n")],
)
def test_metrics_unreadable_csv_names_the_file(tmp_path, capsys, name, content) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["metrics", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err, err
