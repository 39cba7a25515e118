"""Core problem machinery: input validation, determinism, instances, registry, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boexplore.cli import main
from boexplore.problems import (
    Problem,
    ProblemInfo,
    from_spec,
    get_problem,
    list_problems,
    load_instance,
    problem_info,
    registry,
    save_instance,
)
from boexplore.problems.show import slice_grid

# -- input validation ---------------------------------------------------------------


def test_bad_inputs_rejected_with_problem_name(own_name):
    problem = get_problem(own_name, dim=problem_info(own_name).min_dim)
    d = problem.dim
    bad = {
        "shape": np.full((3, d + 1), 0.5),
        "3-d": np.full((2, 3, d), 0.5),
        "nan": np.where(np.eye(2, d) > 0, np.nan, 0.5),
        "inf": np.where(np.eye(2, d) > 0, np.inf, 0.5),
        "below": np.full((2, d), -0.01),
        "above": np.full((2, d), 1.01),
    }
    for label, X in bad.items():
        with pytest.raises(ValueError, match=own_name):
            problem.evaluate(X)
        assert label  # keeps the label visible in a failing traceback


def test_valid_input_forms(own_name):
    problem = get_problem(own_name, dim=problem_info(own_name).min_dim)
    d = problem.dim
    x = np.full(d, 0.25)
    y1 = problem.evaluate(x)  # a single point as a 1-d vector
    assert y1.shape == (1,) and y1.dtype == np.float64
    assert problem.evaluate(np.empty((0, d))).shape == (0,)
    edge = np.vstack([np.zeros(d), np.ones(d), np.full(d, 1 + 1e-12)])  # tolerance at the faces
    assert np.all(np.isfinite(problem.evaluate(edge)))


def test_determinism_across_instances(own_name, unit_points):
    a = get_problem(own_name, instance_seed=3)
    b = get_problem(own_name, instance_seed=3)
    X = unit_points(a.dim, n=5, seed=11)
    np.testing.assert_array_equal(a.evaluate(X), b.evaluate(X))
    np.testing.assert_array_equal(a.evaluate(X), a.evaluate(X))


# -- instances ----------------------------------------------------------------------


@pytest.mark.parametrize("noise_std", [0.0, 0.3])
def test_save_load_round_trip(own_name, noise_std, tmp_path, unit_points):
    problem = get_problem(own_name, instance_seed=7, noise_std=noise_std)
    path = save_instance(problem, tmp_path / "sub" / f"{own_name}.json")
    assert path.is_file() and not (tmp_path / "sub" / f"{own_name}_data").exists()
    spec = json.loads(path.read_text())
    assert spec["name"] == own_name and spec["dim"] == problem.dim
    assert spec["negated"] is True and spec["noise_std"] == noise_std
    loaded = load_instance(path)
    assert type(loaded) is type(problem) and loaded.to_spec() == problem.to_spec()
    X = unit_points(problem.dim, n=5, seed=1)
    np.testing.assert_array_equal(loaded.evaluate(X), problem.evaluate(X))
    again = from_spec(json.loads(json.dumps(problem.to_spec())))
    np.testing.assert_array_equal(again.evaluate(X), problem.evaluate(X))
    assert [p.name for p in tmp_path.joinpath("sub").iterdir()] == [f"{own_name}.json"]


def test_from_spec_errors(tmp_path):
    with pytest.raises(KeyError, match="unknown problem"):
        from_spec({"name": "nope", "dim": 2})
    with pytest.raises(ValueError, match="spec"):
        from_spec({"dim": 2})
    with pytest.raises(ValueError, match="branin"):
        from_spec({"name": "branin", "dim": 5})
    with pytest.raises(FileNotFoundError):
        load_instance(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ValueError, match="broken.json"):
        load_instance(broken)


class _DataProblem(Problem):
    """A problem with generated data, to exercise the ``data_files`` hook."""

    name = "_test_data_problem"

    def __init__(self, dim, instance_seed=0, noise_std=0.0, data_files=None):
        super().__init__(
            dim, np.vstack([np.zeros(dim), np.ones(dim)]), instance_seed, None, noise_std
        )
        self.loaded_from = data_files
        if data_files is None:
            self.weights = np.random.default_rng(instance_seed).normal(size=dim)
        else:
            self.weights = np.load(data_files["weights"])

    def _evaluate_unit(self, X):
        return X @ self.weights

    def write_data(self, directory: Path) -> dict[str, str]:
        np.save(directory / "weights.npy", self.weights)
        return {"weights": "weights.npy"}


def test_data_files_hook(tmp_path, monkeypatch, unit_points):
    info = ProblemInfo(name=_DataProblem.name, dims="any", source="test", default_dim=3)
    monkeypatch.setitem(registry._REGISTRY, _DataProblem.name, (info, _DataProblem))
    problem = get_problem(_DataProblem.name, instance_seed=2)
    path = save_instance(problem, tmp_path / "inst.json")
    spec = json.loads(path.read_text())
    assert spec["data_files"] == {"weights": "inst_data/weights.npy"}
    # move the whole directory: paths are relative to the json
    moved = tmp_path.rename(tmp_path.parent / (tmp_path.name + "_moved"))
    loaded = load_instance(moved / "inst.json")
    assert loaded.loaded_from == {"weights": str((moved / "inst_data/weights.npy").resolve())}
    X = unit_points(3, seed=4)
    np.testing.assert_array_equal(loaded.evaluate(X), problem.evaluate(X))


def test_save_is_atomic_no_temp_left(tmp_path):
    problem = get_problem("branin")
    save_instance(problem, tmp_path / "a.json")
    save_instance(problem, tmp_path / "a.json")  # overwrite
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


# -- registry -----------------------------------------------------------------------


def test_registry_lists_own_problems(own_name):
    names = {info.name: info for info in list_problems()}
    assert own_name in names
    info = names[own_name]
    assert info.kind in ("synthetic", "embedded") and info.has_optimum
    assert info.default_dim is not None and info.min_dim <= info.default_dim


def test_list_is_sorted_and_unique():
    names = [info.name for info in list_problems()]
    assert names == sorted(set(names))
    with pytest.raises(ValueError, match="twice"):
        registry.register(problem_info("branin"), lambda **kw: None)


# -- CLI / show ---------------------------------------------------------------------


def test_cli_list(capsys):
    assert main(["problems", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("branin", "hartmann6_embedded", "michalewicz"):
        assert name in out
    assert "any >= 2" in out and "botorch" in out


def test_cli_show_writes_png(tmp_path, capsys):
    out = tmp_path / "plots" / "b.png"
    assert (
        main(
            [
                "problems",
                "show",
                "hartmann6_embedded",
                "--dim",
                "20",
                "-o",
                str(out),
                "--grid",
                "12",
            ]
        )
        == 0
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["problems", "show", "no_such", "-o", str(out)]) == 2
    assert "unknown problem" in capsys.readouterr().err
    assert main(["problems", "show", "branin", "--dims", "0", "0", "-o", str(out)]) == 2


def test_slice_passes_through_optimiser():
    problem = get_problem("branin_embedded", dim=12, instance_seed=1)
    u, v, values, anchor = slice_grid(problem, grid=5)
    assert values.shape == (5, 5)
    np.testing.assert_array_equal(anchor, problem.optimizer_unit)
    # the embedded slice varies the active coordinates, so it is not flat
    assert values.std() > 0
    _, _, centre_values, centre = slice_grid(get_problem("michalewicz", dim=7), grid=4)
    np.testing.assert_array_equal(centre, np.full(7, 0.5))


@pytest.mark.parametrize("dim", [2.0, "2", True])
def test_non_integer_dim_rejected(dim):
    with pytest.raises(ValueError, match="branin"):
        get_problem("branin", dim=dim)


def test_numpy_integer_dim_accepted():
    assert get_problem("ackley", dim=np.int64(4)).dim == 4


def test_unknown_option_rejected_with_problem_name():
    with pytest.raises(ValueError, match="branin.*colour"):
        get_problem("branin", colour="red")
