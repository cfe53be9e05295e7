"""Tandem from Python: simulate FMUs, run systems of FMUs and take gradients through them.

The calls follow FMPy where the job is the same: ``simulate`` takes ``simulate_fmu``'s
keywords and returns a structured array with a ``time`` field, ``read_model_description``
returns objects with FMPy's attribute names. Every failure raises ``TandemError`` with the
message ``tandem`` prints on the command line for the same input.
"""

from ._tandem import (
    DefaultExperiment,
    Interface,
    ModelDescription,
    ModelVariable,
    TandemError,
    gradient,
    read_model_description,
    run,
    simulate,
)

__all__ = [
    "DefaultExperiment",
    "Interface",
    "ModelDescription",
    "ModelVariable",
    "TandemError",
    "gradient",
    "read_model_description",
    "run",
    "simulate",
]
