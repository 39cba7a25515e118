"""The profilers of a qKG step (cProfile, a CPU-time stack sampler) and its evaluation count.

They only measure: what a second counts for is :mod:`.rules`, so either side changes alone."""

from __future__ import annotations

import contextlib
import cProfile
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from boexplore.bench.step_profile.rules import (
    OTHER,
    PHASE_REST,
    Context,
    Key,
    Match,
    code_key,
    stack_context,
)


def forward_key() -> Key:
    """The pstats key of ``qKnowledgeGradient.forward`` itself (under BoTorch's decorators)."""
    from botorch.acquisition import qKnowledgeGradient

    stack: list[Any] = [qKnowledgeGradient.forward]
    while stack:
        fn = stack.pop()
        if getattr(fn, "__qualname__", "") == "qKnowledgeGradient.forward":
            return code_key(fn.__code__)
        stack += [getattr(fn, "__wrapped__", None)]
        stack += [c.cell_contents for c in (getattr(fn, "__closure__", None) or ())]
        stack = [s for s in stack if callable(s)]
    raise LookupError("qKnowledgeGradient.forward not found under its decorators")


@dataclass
class Evaluations:
    """qKG forward calls seen by :func:`record_evaluations`: trees per call, differentiated?"""

    trees: list[int] = field(default_factory=list)
    grad: list[bool] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return len(self.trees)

    def count(self, grad: bool) -> int:
        return sum(t for t, g in zip(self.trees, self.grad, strict=True) if g == grad)


@contextlib.contextmanager
def record_evaluations() -> Iterator[Evaluations]:
    """Record every ``qKnowledgeGradient.forward`` call (trees in the batch, gradient on?)."""
    import torch
    from botorch.acquisition import qKnowledgeGradient

    seen = Evaluations()
    original = qKnowledgeGradient.forward

    def forward(self: Any, X: Any) -> Any:
        seen.trees.append(int(math.prod(X.shape[:-2])) if X.dim() > 2 else 1)
        seen.grad.append(bool(torch.is_grad_enabled() and X.requires_grad))
        return original(self, X)

    qKnowledgeGradient.forward = forward  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        qKnowledgeGradient.forward = original  # type: ignore[method-assign]


def profile_call(fn: Callable[[], Any]) -> tuple[Any, dict[Key, tuple], float]:
    """Run ``fn`` under cProfile (process CPU clock); (its result, the stats, CPU seconds)."""
    import pstats

    prof = cProfile.Profile(time.process_time)
    start = time.process_time()
    prof.enable()
    try:
        result = fn()
    finally:
        prof.disable()
    cpu = time.process_time() - start
    return result, dict(pstats.Stats(prof).stats), cpu  # type: ignore[attr-defined]


#: CPU seconds between two samples of :func:`sample_call`.
SAMPLE_INTERVAL = 0.002


def sample_call(fn: Callable[[], Any], interval: float = SAMPLE_INTERVAL
                ) -> tuple[Any, dict[Context, float], float]:  # fmt: skip
    """Run ``fn`` under a CPU-time stack sampler; (its result, seconds by context, CPU seconds).

    Every ``interval`` CPU seconds (``ITIMER_PROF``) the main thread's Python stack is read and
    the CPU used since the previous sample goes to its context (:func:`stack_context`). A C
    call (BLAS, LAPACK, the autograd engine) counts for the Python frame that made it, since
    the handler runs when it returns; its time is not lost, it is weighed by the clock."""
    import signal

    if signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        raise RuntimeError("SIGPROF already has a handler; the sampler would replace it")
    seconds: dict[Context, float] = defaultdict(float)
    cache: dict[Any, Match] = {}
    start = time.process_time()
    last = [start, (OTHER, PHASE_REST)]

    def handler(signum: int, frame: Any) -> None:
        now = time.process_time()
        last[1] = stack_context(frame, cache)
        seconds[last[1]] += now - last[0]
        last[0] = now

    previous = signal.signal(signal.SIGPROF, handler)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        result = fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0.0)
        signal.signal(signal.SIGPROF, previous)
    end = time.process_time()
    seconds[last[1]] += end - last[0]  # the tail after the last sample
    return result, dict(seconds), end - start
