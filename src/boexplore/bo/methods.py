"""Method specs: parsing, validation and the registry of base methods.

One documented syntax names every BO method a config can use::

    base[(key=value, ...)][+qN][+tr][+raasp]

``base`` is one of the lowercase names in ``METHODS``; parameters are typed by
their default (int, float, bool, str); variants are joined with ``+`` in any
order: ``+qN`` (batch size N >= 1), ``+tr`` (TuRBO-style trust region),
``+raasp`` (RAASP candidates for the AF optimiser / TS candidate set).
Examples: ``ucb(beta=0.1)``, ``ucb(beta=16)+q4``, ``logei+tr``, ``ts+raasp``,
``kg(fantasies=32)+q2+tr``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Cost classes of the base methods: ``free`` (no GP), ``standard`` (one GP fit and an
#: analytic / MC acquisition), ``expensive`` (nested MC, EP or optimum sampling dominates; the
#: workflow runs these one seed per job and the cost model scales their memory).
COST_CLASSES: tuple[str, ...] = ("free", "standard", "expensive")


@dataclass(frozen=True)
class MethodInfo:
    """Registry entry: a base method, its parameters with defaults, a description and its
    cost class (one of ``COST_CLASSES``)."""

    name: str
    defaults: dict[str, Any]
    description: str
    cost_class: str = "standard"

    def __post_init__(self) -> None:
        if self.cost_class not in COST_CLASSES:
            raise ValueError(f"{self.name}: cost class {self.cost_class!r} not in {COST_CLASSES}")

    @property
    def model_based(self) -> bool:
        """Whether the method fits a GP (the ``free`` methods random / sobol do not)."""
        return self.cost_class != "free"


METHODS: dict[str, MethodInfo] = {
    m.name: m
    for m in (
        MethodInfo("random", {}, "uniform random search", "free"),
        MethodInfo("sobol", {}, "scrambled Sobol sequence (continues the initial design)", "free"),
        MethodInfo(
            "ucb",
            {"beta": 2.0},
            "upper confidence bound mu + sqrt(beta)*sigma (BoTorch's UCB/qUCB use sqrt(beta))",
        ),
        MethodInfo("logei", {}, "log expected improvement (qLogEI for q > 1)"),
        MethodInfo("pi", {}, "probability of improvement (qPI for q > 1)"),
        MethodInfo(
            "logpi",
            {},
            "log probability of improvement (q > 1: qPI, same argmax since log is monotone)",
        ),
        MethodInfo(
            "kg",
            {"fantasies": 64},
            "one-shot knowledge gradient qKG (optimised with batch_limit=1, init_batch_limit=8)",
            "expensive",
        ),
        MethodInfo(
            "mes",
            {"candidates": 1000, "mv_samples": 10, "y_samples": 128},
            "max-value entropy search qMaxValueEntropy over a Sobol candidate set",
            "expensive",
        ),
        MethodInfo(
            "gibbon",
            {"candidates": 1000, "mv_samples": 10},
            "GIBBON = qLowerBoundMaxValueEntropy over a Sobol candidate set",
            "expensive",
        ),
        MethodInfo(
            "jes",
            {"optima": 16, "estimation": "LB"},
            "joint entropy search with optima from get_optimal_samples",
            "expensive",
        ),
        MethodInfo(
            "pes",
            {"optima": 8, "ep_iterations": 250},
            "predictive entropy search with optima from get_optimal_samples",
            "expensive",
        ),
        MethodInfo(
            "ts",
            {"candidates": 0, "polish": False, "perturb": True},
            "Thompson sampling with pathwise (Matheron) samples, maximised over N Sobol points + "
            "perturbations of the best points (candidates=0 -> N = min(5000, max(2000, 200 d))); "
            "polish=true refines the best candidates by L-BFGS on the path (more boundary points); "
            "perturb=false keeps the Sobol points only",
        ),
        MethodInfo(
            "greedy",
            {},
            "deterministic selection: maximise the posterior mean (q > 1: qSimpleRegret, sequential)",
        ),
    )
}


def methods_of_class(cost_class: str) -> tuple[str, ...]:
    """Base methods of one cost class, in registry order."""
    if cost_class not in COST_CLASSES:
        raise ValueError(f"unknown cost class {cost_class!r}; known: {COST_CLASSES}")
    return tuple(name for name, info in METHODS.items() if info.cost_class == cost_class)


_SPEC_RE = re.compile(r"^(?P<base>[a-z]+)(?:\((?P<params>[^()]*)\))?$")


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method spec: base name, full parameter dict, and variants."""

    base: str
    params: dict[str, Any] = field(default_factory=dict)
    q: int = 1
    trust_region: bool = False
    raasp: bool = False

    @property
    def model_based(self) -> bool:
        """Whether the method fits a GP (random/sobol do not)."""
        return METHODS[self.base].model_based

    def non_default_params(self) -> dict[str, Any]:
        """Parameters that differ from the registry defaults."""
        defaults = METHODS[self.base].defaults
        return {k: v for k, v in sorted(self.params.items()) if defaults.get(k) != v}

    def canonical(self) -> str:
        """Unique spec string: non-default params sorted, variants in fixed order."""
        out = self.base
        params = self.non_default_params()
        if params:
            out += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items()) + ")"
        if self.q > 1:
            out += f"+q{self.q}"
        if self.trust_region:
            out += "+tr"
        if self.raasp:
            out += "+raasp"
        return out

    def label(self) -> str:
        """Path-safe label (letters, digits, ``-``, ``_``, ``.``), e.g. ``ucb-beta16_q4_tr``."""
        out = self.base
        for k, v in self.non_default_params().items():
            out += f"-{k}{_fmt(v)}"
        if self.q > 1:
            out += f"_q{self.q}"
        if self.trust_region:
            out += "_tr"
        if self.raasp:
            out += "_raasp"
        return re.sub(r"[^A-Za-z0-9_.\-]", "", out)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e16 else str(int(value))
    return str(value)


def _coerce(base: str, key: str, raw: str, default: Any) -> Any:
    raw = raw.strip()
    try:
        if isinstance(default, bool):
            low = raw.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            value = float(raw)
            if value != value:  # NaN
                raise ValueError
            return value
    except ValueError:
        raise ValueError(
            f"method {base!r}: parameter {key}={raw!r} is not a valid {type(default).__name__}"
        ) from None
    return raw


def _validate(base: str, params: dict[str, Any]) -> None:
    for key, value in params.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if key == "beta" and value < 0:
                raise ValueError(f"method {base!r}: beta must be >= 0, got {value}")
            if key != "beta" and key != "candidates" and value < 1:
                raise ValueError(f"method {base!r}: {key} must be >= 1, got {value}")
            if key == "candidates" and value < 0:
                raise ValueError(f"method {base!r}: candidates must be >= 0, got {value}")
    if base == "jes" and params["estimation"] not in ("LB", "MC"):
        raise ValueError(
            f"method 'jes': estimation must be 'LB' or 'MC', got {params['estimation']!r}"
        )


def parse_method(spec: str) -> MethodSpec:
    """Parse a method spec string; raises ``ValueError`` naming valid choices on bad input."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"method spec must be a non-empty string, got {spec!r}")
    parts = [p.strip() for p in spec.strip().split("+")]
    match = _SPEC_RE.match(parts[0].replace(" ", ""))
    if match is None:
        raise ValueError(
            f"cannot parse method spec {spec!r}; expected base[(k=v,...)][+qN][+tr][+raasp]"
        )
    base = match["base"]
    if base not in METHODS:
        raise ValueError(f"unknown method {base!r}; valid methods: {', '.join(METHODS)}")
    defaults = METHODS[base].defaults
    params = dict(defaults)
    if match["params"]:
        for item in match["params"].split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise ValueError(f"method {base!r}: parameter {item!r} must be key=value")
            key, raw = (s.strip() for s in item.split("=", 1))
            if key not in defaults:
                valid = ", ".join(defaults) or "(none)"
                raise ValueError(
                    f"method {base!r} has no parameter {key!r}; valid parameters: {valid}"
                )
            params[key] = _coerce(base, key, raw, defaults[key])
    _validate(base, params)
    q, tr, raasp = 1, False, False
    seen: set[str] = set()
    for part in parts[1:]:
        kind = "q" if re.fullmatch(r"q\d+", part) else part
        if kind in seen:
            raise ValueError(f"method spec {spec!r}: variant {part!r} given twice")
        seen.add(kind)
        if kind == "q":
            q = int(part[1:])
            if q < 1:
                raise ValueError(f"method spec {spec!r}: batch size must be >= 1")
        elif part == "tr":
            tr = True
        elif part == "raasp":
            raasp = True
        else:
            raise ValueError(
                f"method spec {spec!r}: unknown variant {part!r}; valid variants: qN, tr, raasp"
            )
    return MethodSpec(base=base, params=params, q=q, trust_region=tr, raasp=raasp)


def describe_methods() -> str:
    """Human-readable list of methods, parameters and defaults (``boexplore methods``)."""
    lines = ["Method spec syntax: base[(key=value,...)][+qN][+tr][+raasp]", ""]
    for info in METHODS.values():
        params = ", ".join(f"{k}={_fmt(v)}" for k, v in info.defaults.items()) or "-"
        lines.append(f"{info.name:8s} params: {params}")
        lines.append(f"{'':8s} {info.description}")
    lines += [
        "",
        "Variants: +qN batch of N points; +tr TuRBO-style trust region; "
        "+raasp RAASP candidates (perturb best points, each coordinate w.p. min(20/d, 0.5)).",
    ]
    return "\n".join(lines)
