"""Acquisition functions: construction (factory), Thompson sampling, proposal with guards."""

from boexplore.bo.acquisition.factory import batch_mode, build_acqf
from boexplore.bo.acquisition.proposal import propose

__all__ = ["batch_mode", "build_acqf", "propose"]
