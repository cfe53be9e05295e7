"""Tandem from Python: simulate FMUs, run systems of FMUs, take gradients through them,
identify their parameters, sweep them over parameter sets and co-design controlled plants.

The calls follow FMPy where the job is the same: ``simulate`` takes ``simulate_fmu``'s
keywords and returns a structured array with a ``time`` field, ``read_model_description``
returns objects with FMPy's attribute names. ``identify``, ``sweep`` and ``codesign`` take
the options of the ``tandem`` command of the same name as keywords. Every failure raises
``TandemError`` with the message ``tandem`` prints on the command line for the same input;
Ctrl-C stops a call after the macro step in progress and raises ``KeyboardInterrupt``, both
with what the call had computed in their ``result``.
"""

from ._tandem import (
    DefaultExperiment,
    Interface,
    ModelDescription,
    ModelVariable,
    TandemError,
    codesign,
    gradient,
    identify,
    read_model_description,
    run,
    simulate,
    sweep,
)

__all__ = [
    "DefaultExperiment",
    "Interface",
    "ModelDescription",
    "ModelVariable",
    "TandemError",
    "codesign",
    "gradient",
    "identify",
    "read_model_description",
    "run",
    "simulate",
    "sweep",
]
