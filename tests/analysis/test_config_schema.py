"""The analysis schema mirrors the code defaults, and every shipped config validates."""

from pathlib import Path

import jsonschema
import pytest
import yaml

from boexplore.analysis.config import DEFAULTS, analysis_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((ROOT / "config/schema/analysis.schema.yaml").read_text())


def _schema_defaults(schema):
    out = {}
    for key, sub in schema["properties"].items():
        if sub.get("type") == "object" and "properties" in sub:
            out[key] = _schema_defaults(sub)
        else:
            out[key] = sub["default"]
    return out


def test_schema_defaults_equal_code_defaults():
    assert _schema_defaults(SCHEMA) == DEFAULTS


@pytest.mark.parametrize("name", ["config.yaml", "smoke.yaml", "paper.yaml", "replicate.yaml"])
def test_shipped_configs_validate(name):
    section = yaml.safe_load((ROOT / "config" / name).read_text())["analysis"]
    jsonschema.validate(section, SCHEMA)
    cfg = analysis_config(section)
    for group in [g for level in cfg["paper_order"] for g in level]:
        assert group in cfg["groups"]
    for g in (*cfg["explorers"], *cfg["exploiters"], *cfg["c5_ucb_groups"], *cfg["c4_ts_groups"]):
        assert g in cfg["groups"]
    assert len(cfg["c5_ucb_groups"]) == 1  # P1-C5 compares EI with ONE UCB


def test_schema_rejects_unknown_key():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thresholds": {"c9": 1}}, SCHEMA)


def test_workflow_rule_names_every_analysis_table():
    from boexplore.analysis.pipeline import TABLE_FILES

    smk = (ROOT / "workflow/rules/analysis.smk").read_text()
    for name, fname in TABLE_FILES.items():
        assert f'"{name}": "{fname}"' in smk
    for cap in ROOT.joinpath("workflow/report").glob("paper1_*.rst"):
        assert f"../report/{cap.name}" in smk
