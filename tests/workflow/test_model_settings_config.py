"""Model settings (kernel, fixed lengthscale / noise / outputscale) in the config: per method,
typed by the schema, refused by name for a method that fits no model, before any job runs."""

from __future__ import annotations

import copy

import pytest
from wfhelpers import smoke_config

from boexplore.workflow_config import ConfigError, method_bo_settings, validate_config


@pytest.fixture(scope="module")
def smoke() -> dict:
    return smoke_config()


def _rejects(cfg: dict, *fragments: str) -> str:
    with pytest.raises(ConfigError) as err:
        validate_config(cfg)
    message = str(err.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_model_settings_reach_one_method_s_runs(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["by_method"] = {
        "logei": {"gp_kernel": "matern12", "gp_lengthscale": 0.1, "gp_noise": 1.0e-6},
        "ts": {"gp_outputscale": "fitted"},
        "pi": {"gp_outputscale": 2.0},
    }
    out = validate_config(cfg)
    logei = method_bo_settings(out, "logei")
    assert (logei["gp_kernel"], logei["gp_lengthscale"], logei["gp_noise"]) == (
        "matern12",
        0.1,
        1e-6,
    )
    assert method_bo_settings(out, "ts")["gp_outputscale"] == "fitted"
    assert not {"gp_kernel", "gp_noise"} & set(method_bo_settings(out, "ucb_low"))


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ({"gp_kernel": "matern72"}, "gp_kernel"),
        ({"gp_lengthscale": 0}, "gp_lengthscale"),
        ({"gp_lengthscale": "fixed"}, "gp_lengthscale"),
        ({"gp_noise": "1e-6"}, "gp_noise"),  # YAML 1.1 reads 1e-6 as a string
        ({"gp_outputscale": -1.0}, "gp_outputscale"),
    ],
)
def test_schema_types_each_model_setting(smoke: dict, entry: dict, key: str) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["by_method"] = {"logei": entry}
    _rejects(cfg, f"bo.by_method.logei.{key}")


@pytest.mark.parametrize("key", ["gp_kernel", "gp_lengthscale", "gp_noise", "gp_prior"])
def test_a_model_free_method_refuses_a_model_setting_by_name(smoke: dict, key: str) -> None:
    value = {"gp_kernel": "rbf", "gp_lengthscale": 0.2, "gp_noise": 0.1, "gp_prior": "gamma"}[key]
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["by_method"] = {"random": {key: value}}
    _rejects(cfg, f"bo.by_method.random.{key}", "methods.random (random) fits no model")
    cfg["bo"]["by_method"] = {"sobol": {key: value}}
    _rejects(cfg, f"bo.by_method.sobol.{key}", "fits no model")
    # control: the same entry on a model-based method is accepted
    cfg["bo"]["by_method"] = {"ucb_low": {key: value}}
    validate_config(cfg)


def test_a_global_model_setting_is_refused_while_a_model_free_method_runs(smoke: dict) -> None:
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["gp_kernel"] = "matern32"
    _rejects(cfg, "bo.gp_kernel", "methods.random, methods.sobol fit no model")
    cfg = copy.deepcopy(smoke)
    cfg["bo"]["extra"] = {"gp_noise": 0.1}
    _rejects(cfg, "bo.extra.gp_noise")
    # control: without model-free methods the global setting is every method's
    cfg["methods"] = {k: v for k, v in cfg["methods"].items() if k not in ("random", "sobol")}
    cfg["exclude"] = [r for r in cfg.get("exclude", []) if r["method"] not in ("random", "sobol")]
    cfg["bo"]["extra"] = {}
    cfg["bo"]["gp_kernel"] = "matern32"
    assert method_bo_settings(validate_config(cfg), "logei")["gp_kernel"] == "matern32"


def test_cost_model_scales_the_fit_by_the_measured_model_setting_factors() -> None:
    from boexplore.bo.methods import parse_method
    from boexplore.cost.calibration import config_calibration
    from boexplore.cost.cpu import MODEL_FIT_FACTORS, bo_iteration_seconds

    cal = config_calibration({})
    spec = parse_method("logei")
    base_fit, base_acq = bo_iteration_seconds(spec, 30, 4, {}, cal)
    for bo, factor in [
        ({"gp_kernel": "matern12"}, 1.0),
        ({"gp_lengthscale": 0.1}, MODEL_FIT_FACTORS["gp_lengthscale"]),
        ({"gp_noise": 1e-6}, MODEL_FIT_FACTORS["gp_noise"]),
        ({"gp_outputscale": "fitted"}, MODEL_FIT_FACTORS["gp_outputscale"]),
        ({"extra": {"gp_lengthscale": 0.1}}, MODEL_FIT_FACTORS["gp_lengthscale"]),
    ]:
        fit, acq = bo_iteration_seconds(spec, 30, 4, bo, cal)
        assert fit == pytest.approx(base_fit * factor) and acq == base_acq, bo
    # under the gamma prior the outputscale is already fitted: no factor on gamma's own fit
    gamma = {"gp_prior": "gamma"}
    assert bo_iteration_seconds(spec, 30, 4, {**gamma, "gp_outputscale": "fitted"}, cal) == (
        bo_iteration_seconds(spec, 30, 4, gamma, cal)
    )
