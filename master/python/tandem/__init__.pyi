"""Type stubs of the ``tandem`` package (the extension module ``tandem._tandem``)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, "PathLike[str]"]
_StartValue = Union[bool, int, float, str, Sequence[Any], npt.ArrayLike]

class TandemError(RuntimeError):
    """A simulation, run or gradient that failed.

    ``str(error)`` is the message ``tandem`` prints for the same input (after its
    ``error:``): the file, the item and the problem. ``result`` holds the rows a failed
    ``simulate`` computed before the failure (a structured array like its result), or None.
    """

    result: Optional[np.ndarray]

class DefaultExperiment:
    """The DefaultExperiment element of a model description."""

    startTime: Optional[float]
    stopTime: Optional[float]
    tolerance: Optional[float]
    stepSize: Optional[float]

class Interface:
    """An interface an FMU implements (Co-Simulation, Model Exchange, Scheduled Execution)."""

    modelIdentifier: str
    canGetAndSetFMUstate: bool
    canSerializeFMUstate: bool
    providesDirectionalDerivative: bool
    providesAdjointDerivatives: bool

class ModelVariable:
    """One model variable, with FMPy's attribute names."""

    name: str
    valueReference: int
    type: str
    """FMI 2.0's type names for FMI 2.0 FMUs (``Real``, ``Integer``, ...), else FMI 3.0's
    (``Float64``, ``Int32``, ...)."""
    description: Optional[str]
    causality: str
    variability: str
    initial: Optional[str]
    start: Any
    """A number, Boolean, string or bytes; for an array a flat list in row-major order."""
    unit: Optional[str]
    displayUnit: Optional[str]
    declaredType: Optional[str]
    min: Optional[float]
    max: Optional[float]
    nominal: Optional[float]
    shape: Optional[Tuple[int, ...]]
    """An array's sizes (structural parameters at their start values); None for a scalar."""
    aliases: List[str]

class ModelDescription:
    """What an FMU's modelDescription.xml declares, with FMPy's attribute names."""

    fmiVersion: str
    modelName: str
    description: Optional[str]
    instantiationToken: str
    guid: str
    generationTool: Optional[str]
    numberOfContinuousStates: int
    numberOfEventIndicators: int
    defaultExperiment: Optional[DefaultExperiment]
    coSimulation: Optional[Interface]
    modelExchange: Optional[Interface]
    scheduledExecution: Optional[Interface]
    modelVariables: List[ModelVariable]

def simulate(
    filename: _Path,
    start_time: Optional[float] = None,
    stop_time: Optional[float] = None,
    step_size: Optional[float] = None,
    output_interval: Optional[float] = None,
    fmi_type: Optional[
        Literal["CoSimulation", "ModelExchange", "ScheduledExecution", "cs", "me", "se"]
    ] = None,
    solver: Optional[Literal["auto", "dopri5", "esdirk"]] = None,
    relative_tolerance: Optional[float] = None,
    start_values: Optional[Mapping[str, _StartValue]] = None,
    output: Optional[Sequence[str]] = None,
    input: Optional[np.ndarray] = None,
    record_events: bool = True,
) -> np.ndarray:
    """Simulates one FMU as ``tandem simulate`` does and returns the recorded rows.

    The result is a NumPy structured array with a ``time`` field and one float64 field per
    recorded variable, named as ``tandem simulate``'s CSV header names its columns (an array
    element as ``y[1]`` or ``A[2,3]``, as FMPy names them); ``fmpy.util.plot_result`` and
    ``pandas.DataFrame`` take it. String variables are not recorded in it.

    The defaults are the command line's: the interface is Co-Simulation when the FMU has it,
    else Model Exchange, else Scheduled Execution (``fmi_type``, FMPy's spelling or ``cs``,
    ``me``, ``se``); start and stop time, step size and tolerance come from the FMU's
    DefaultExperiment (else 0, start + 1, 1/500 of the run, 1e-6); the output interval is
    the step size; ``solver`` is the Model Exchange solver (``auto``: Dormand-Prince,
    switching to ESDIRK while the model is stiff); ``output`` names the variables to record
    (names, aliases, elements such as ``'y[2]'``, glob patterns, ``'all'``; default the
    outputs, as FMPy); ``start_values`` maps names to values (a list, or a list of rows, for
    an array); ``input`` is a structured array with a ``time`` field and one field per input
    variable, as FMPy's; ``record_events`` adds the rows just before and after each Model
    Exchange event. The GIL is released while the FMU runs.

    Raises TandemError when the FMU cannot be read, an argument does not fit it, or the run
    fails; a run that fails keeps its rows up to the failure in the error's ``result``.
    Raises ValueError for an ``fmi_type`` or ``solver`` that names nothing.
    """

def read_model_description(filename: _Path) -> ModelDescription:
    """Reads the model description of the FMU ``filename``, as ``tandem info`` does.

    Raises TandemError when the file is no FMU or its model description cannot be read.
    """

def run(
    system_file: _Path,
    stop_time: Optional[float] = None,
    step_size: Optional[float] = None,
    fmu_dir: Optional[_Path] = None,
    threads: Union[int, Literal["auto"], None] = None,
    energy_correction: Optional[bool] = None,
) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Runs a system of FMUs (a TOML system file, ``.ssp`` or ``.ssd``) as ``tandem run`` does.

    Returns the rows (a structured array: ``time``, then the recorded variables and the
    energy monitor's columns, named as ``tandem run``'s CSV header names them) and a summary:
    ``system``, ``schedule``, ``extrapolation``, ``final_time``, ``macro_steps``,
    ``fmu_calls``, ``rows``, ``wall_time`` (s), ``terminated_by`` (None, or the component
    that ended the run and the time), ``integrations`` and ``activations`` (a line per Model
    Exchange or Scheduled Execution component), ``algebraic_loops`` (None or a line) and
    ``energy`` (None without energy monitoring, else ``initial_energy``, ``final_energy``,
    ``corrected``, ``bonds``, ``warnings`` and the ``report`` as ``tandem run`` prints it).

    The arguments replace the system file's values, as the command line's options do. The
    GIL is released while the FMUs run. Raises TandemError when the system cannot be loaded
    or the run fails.
    """

def gradient(
    system_file: _Path,
    parameters: Optional[Sequence[str]] = None,
    cost: Optional[str] = None,
    data: Optional[_Path] = None,
    weights: Optional[Mapping[str, float]] = None,
    stop_time: Optional[float] = None,
    fmu_dir: Optional[_Path] = None,
    threads: Union[int, Literal["auto"], None] = None,
    energy_correction: Optional[bool] = None,
    checkpoint_interval: Optional[int] = None,
) -> Dict[str, Any]:
    """The gradient of a cost through the co-simulation of a system, as ``tandem gradient``.

    ``parameters`` are ``component.parameter`` names (default: the ``[gradient]`` section's),
    ``cost`` is ``'least-squares'`` (against ``data``), ``'final:a.y'``, ``'integral:a.y'``
    or a weighted sum such as ``'final:a.y + 0.5*integral:b.z'`` (default: the section's).
    Returns a dict: ``cost`` (J at the parameters' values), ``gradient`` (dJ/dp by name),
    ``methods`` (by name: ``'adjoint'`` or ``'finite differences: <why not the adjoint>'``)
    and ``values`` (the parameters' values). A system file with ``[[experiments]]`` is
    refused (the command line sums them). The GIL is released while the FMUs run. Raises
    TandemError when the problem cannot be set up or a run fails.
    """
