"""Type stubs of the ``tandem`` package (the extension module ``tandem._tandem``)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, "PathLike[str]"]
_StartValue = Union[bool, int, float, str, Sequence[Any], npt.ArrayLike]
_Texts = Union[str, Sequence[str]]
_Jacobian = Literal["auto", "directional-derivatives", "differences", "broyden"]

class TandemError(RuntimeError):
    """A simulation, run or gradient that failed.

    ``str(error)`` is the message ``tandem`` prints for the same input (after its
    ``error:``): the file, the item and the problem. ``result`` holds what the call computed
    before the failure, or None: the rows of a failed ``simulate`` or ``run`` (a structured
    array like their result), the table of a ``sweep`` whose table could not be written, the
    fit of an ``identify`` whose output or plot could not be written.

    Ctrl-C during a call stops the runs after the macro step in progress and raises
    ``KeyboardInterrupt`` when they have ended, with the same ``result`` attribute: the rows
    so far, a sweep's table (the runs not started marked ``not run``), an identification's
    best point so far. An exception raised by a ``progress`` callback stops the call the same
    way and is raised with ``result`` too. The stop request is the process's: it ends every
    run in progress, in any thread.
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

    The result is a NumPy structured array with a ``time`` field and one field per recorded
    variable, named as ``tandem simulate``'s CSV header names its columns (an array element
    as ``y[1]`` or ``A[2,3]``, as FMPy names them) and typed as FMPy's ``simulate_fmu`` types
    them: float64 for Real and Float64, float32 for Float32, int32 for Integer and an FMI 2.0
    Enumeration, int64 for an FMI 3.0 Enumeration, the sized integer types for FMI 3.0's, and
    bool for Boolean. Two differences from FMPy: the fields are in the result file's order
    (FMPy groups them by type), and an array is one field per element (FMPy gives a field of
    that shape, which ``pandas.DataFrame`` refuses). ``fmpy.util.plot_result`` and
    ``pandas.DataFrame`` take it. String variables are not recorded in it. 64-bit integers
    beyond 2**53 lose their lowest bits on the way, as in the master's co-simulation.

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
    Ctrl-C raises KeyboardInterrupt with the rows so far in ``result``. Raises ValueError
    for an ``fmi_type`` or ``solver`` that names nothing.
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
    implicit: Optional[_Jacobian] = None,
    adaptive: Optional[float] = None,
    output_interval: Optional[float] = None,
) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Runs a system of FMUs (a TOML system file, ``.ssp`` or ``.ssd``) as ``tandem run`` does.

    Returns the rows (a structured array: ``time``, then the recorded variables, typed as
    ``simulate`` types them, and the energy monitor's float64 columns, named as ``tandem
    run``'s CSV header names them) and a summary:
    ``system``, ``schedule``, ``extrapolation``, ``final_time``, ``macro_steps``,
    ``fmu_calls``, ``rows``, ``wall_time`` (s), ``terminated_by`` (None, or the component
    that ended the run and the time), ``integrations`` and ``activations`` (a line per Model
    Exchange or Scheduled Execution component), ``algebraic_loops``, ``implicit`` and
    ``adaptive_steps`` (None or the line ``tandem run`` prints of the loops solved, of the
    implicit coupling and of the adaptive macro steps) and
    ``energy`` (None without energy monitoring, else ``initial_energy``, ``final_energy``,
    ``corrected``, ``bonds``, ``warnings`` and the ``report`` as ``tandem run`` prints it).

    The arguments replace the system file's values, as the command line's options do
    (``implicit`` couples implicitly with that Jacobian, as ``--implicit``; ``adaptive``
    chooses the macro steps with that tolerance, as ``--adaptive``; ``output_interval`` gives
    the rows on that grid, interpolated linearly between the macro points, as
    ``--output-interval``). The
    GIL is released while the FMUs run. Raises TandemError when the system cannot be loaded
    or the run fails; a run that fails keeps its rows up to the failure in the error's
    ``result``, as the command's result file keeps them. Ctrl-C raises KeyboardInterrupt
    with the rows so far in ``result``.
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

def identify(
    system_file: _Path,
    parameters: Optional[_Texts] = None,
    data: Optional[_Path] = None,
    weights: Optional[Mapping[str, float]] = None,
    max_iterations: Optional[int] = None,
    gradient_tolerance: Optional[float] = None,
    stop_time: Optional[float] = None,
    fmu_dir: Optional[_Path] = None,
    threads: Union[int, Literal["auto"], None] = None,
    energy_correction: Optional[bool] = None,
    checkpoint_interval: Optional[int] = None,
    output: Optional[_Path] = None,
    plot: Optional[_Path] = None,
    progress: Optional[Callable[[int, float, float], Any]] = None,
) -> Dict[str, Any]:
    """Fits bounded parameters to measurements by L-BFGS, as ``tandem identify`` does.

    The keywords are the command's options: ``parameters`` are
    ``'component.parameter=lower:upper'`` texts (either bound may be left out; one string, or
    a sequence; default the ``[identify]`` section's), ``data`` the measurements (CSV: time,
    then columns named ``component.output``; default the section's, or the system file's
    ``[[experiments]]``), ``weights`` the weights of measured columns by name. The start
    values are the parameters' values in the system file.

    Returns a dict: ``start``, ``fitted``, ``lower``, ``upper`` (None where unbounded) and
    ``methods`` (``'adjoint'`` or ``'finite differences: <why>'``), each by parameter name;
    ``start_cost`` and ``cost`` (J at the start and fitted values), ``evaluations``,
    ``stopped`` (why the optimizer stopped) and ``iterations``, a dict of columns
    ``iteration``, ``cost``, ``gradient_norm`` (what the command prints per iteration).

    ``output`` (``.toml``, or ``.csv`` by extension) and ``plot`` (``.png`` or ``.svg``) are
    written only when given, as the command writes them. ``progress(iteration, cost,
    gradient_norm)`` is called on the calling thread for every iteration. The GIL is released
    while the FMUs run. Raises TandemError when the problem cannot be set up or the first
    evaluation fails; Ctrl-C raises KeyboardInterrupt with the best point so far in
    ``result`` (and writes it to ``output``).
    """

def sweep(
    system_file: _Path,
    grid: Optional[_Texts] = None,
    sample: Optional[_Texts] = None,
    samples: Optional[int] = None,
    latin_hypercube: bool = False,
    seed: int = 0,
    sets: Optional[_Path] = None,
    metric: Optional[_Texts] = None,
    cost: bool = False,
    gradient: bool = False,
    output: Optional[Union[_Path, Sequence[_Path]]] = None,
    plot: Optional[_Path] = None,
    keep_results: Optional[_Path] = None,
    threads: Optional[int] = None,
    stop_time: Optional[float] = None,
    step_size: Optional[float] = None,
    fmu_dir: Optional[_Path] = None,
    energy_correction: Optional[bool] = None,
    implicit: Optional[_Jacobian] = None,
    adaptive: Optional[float] = None,
    progress: Optional[Callable[[int, int, int], Any]] = None,
) -> Dict[str, np.ndarray]:
    """Runs a system once per parameter set, as ``tandem sweep`` does, and returns the table.

    The sets come one way: ``grid`` (``'component.parameter=low:high:count'`` or
    ``'...=log:low:high:count'``; several make a full factorial, the first varying slowest),
    ``sample`` with ``samples`` (``'component.parameter=normal(mu,sigma)'``, ``uniform(low,
    high)`` or ``lognormal(mu,sigma)``; ``latin_hypercube`` and ``seed`` as the command's
    options) or ``sets`` (a CSV file: a header of names, a row of values per run).
    ``metric`` texts are ``'kind:column'`` with kind final, min, max, mean or rms of a result
    column; ``cost`` adds the ``[gradient]`` cost of each run, ``gradient`` its gradient too.

    Returns the table as a dict of NumPy arrays, the columns of the command's CSV in its
    order (``pandas.DataFrame(table)`` takes it): ``run`` (int64), the parameters,
    ``status`` (``'ok'`` or ``'failed'``), ``message`` (a failed run's error), ``wall_time``
    (s) and the metrics (``cost``, ``dJ/d<parameter>``), NaN for a failed run. A run that
    fails is a row, not an exception.

    ``output`` (one path or several, ``.csv`` or ``.parquet``) and ``plot`` are written only
    when given, as the command writes them. ``threads`` is how many runs go at once (default
    one per core); ``stop_time``, ``step_size``, ``fmu_dir``, ``energy_correction``,
    ``implicit`` and ``adaptive`` change every run as they change ``run``'s. ``progress(done, total, failed)`` is called on the calling thread as runs
    finish (at most every 50 ms, and once at the end). The GIL is released while the FMUs run.
    Raises TandemError when the arguments, the system or a parameter are wrong, before any
    run; Ctrl-C raises KeyboardInterrupt with the table in ``result``.
    """

def codesign(
    problem: _Path,
    check: bool = False,
    fmu_dir: Optional[_Path] = None,
    optimize: bool = False,
    step: float = 1e-4,
) -> Dict[str, Any]:
    """Control co-design of one plant FMU, as ``tandem codesign`` does.

    ``problem`` is a co-design problem file (master/docs/codesign-file.md). Returns a dict
    of the baseline design: ``design`` (its values by name), ``f`` (the LQR cost),
    ``x_target``, ``u_target``, ``newton_iterations`` (of the steady state),
    ``riccati_residual``, ``W`` (the gain, a list of rows: inputs by states),
    ``eigenvalues`` (closed loop, complex), ``df_dd`` (by the coupled adjoint) with its terms
    ``closed_loop``, ``seeds`` and ``steady_state`` (by name) and ``seed_method``;
    ``differences`` (``check``: df/dd by central differences of relative ``step``, by name,
    else None); ``optimum`` (``optimize``: the same keys for the optimal design, with
    ``status``, ``active`` (the bounds and constraints active), ``kkt_residual`` and
    ``history``, a dict of columns ``f``, the design parameters and ``df/d<parameter>`` per
    evaluation; else None). Nothing is written. The GIL is released while the FMU runs.
    Raises TandemError with the command's message when the problem cannot be read or solved.
    Ctrl-C does not stop the computation early (the co-design library does not look at the
    stop request): KeyboardInterrupt is raised when it ends, with the dict in ``result``.
    """
