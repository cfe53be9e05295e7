"""``tandem.simulate`` against ``tandem simulate`` (the same rows, bit for bit) and against
FMPy's ``simulate_fmu`` (the same trajectories within the solvers' accuracy), on the
Reference-FMUs BouncingBall and VanDerPol of both FMI versions, in both interfaces."""

import fmpy
import fmpy.util
import numpy as np
import pytest

import tandem
from conftest import assert_same_rows, read_result, reference_fmu

CASES = [
    (version, model, interface)
    for version in ["fmi2", "fmi3"]
    for model in ["BouncingBall", "VanDerPol"]
    for interface in ["CoSimulation", "ModelExchange"]
]

CLI_INTERFACE = {"CoSimulation": "cs", "ModelExchange": "me"}


@pytest.mark.parametrize("version,model,interface", CASES)
def test_the_rows_are_the_command_lines_bit_for_bit(cli, tmp_path, version, model, interface):
    fmu = reference_fmu(version, model)
    ours = tandem.simulate(fmu, fmi_type=interface)
    theirs, _ = cli.result(
        "simulate", fmu, "--interface-type", CLI_INTERFACE[interface], directory=tmp_path
    )
    assert ours.dtype.names[0] == "time" and len(ours.dtype.names) > 1
    assert_same_rows(ours, theirs)


@pytest.mark.parametrize("version,model,interface", CASES)
def test_explicit_options_mean_what_the_command_lines_do(cli, tmp_path, version, model, interface):
    fmu = reference_fmu(version, model)
    ours = tandem.simulate(
        str(fmu),
        start_time=0.5,
        stop_time=1.5,
        step_size=0.005,
        output_interval=0.01,
        fmi_type=CLI_INTERFACE[interface],
        solver="esdirk",
        relative_tolerance=1e-7,
        record_events=False,
        output=["x*"] if model == "VanDerPol" else ["h", "v"],
    )
    theirs, _ = cli.result(
        "simulate",
        fmu,
        *("--start-time", "0.5", "--stop-time", "1.5"),
        *("--step-size", "0.005", "--output-interval", "0.01"),
        *("--interface-type", CLI_INTERFACE[interface]),
        *("--solver", "esdirk", "--relative-tolerance", "1e-7", "--no-record-events"),
        *(("--output-variable", "x*")
          if model == "VanDerPol" else ("--output-variable", "h", "--output-variable", "v")),
        directory=tmp_path,
    )
    assert_same_rows(ours, theirs)
    assert ours["time"][0] == 0.5 and ours["time"][-1] == 1.5 and len(ours) == 101


@pytest.mark.parametrize("version,model,interface", CASES)
def test_the_trajectories_agree_with_fmpy(version, model, interface):
    fmu = str(reference_fmu(version, model))
    grid = dict(stop_time=2.0, output_interval=0.01)
    ours = tandem.simulate(
        fmu, fmi_type=interface, step_size=0.01, relative_tolerance=1e-9, record_events=False, **grid
    )
    theirs = fmpy.simulate_fmu(
        fmu, fmi_type=interface, relative_tolerance=1e-9, record_events=False, **grid
    )
    assert sorted(ours.dtype.names) == sorted(theirs.dtype.names)
    np.testing.assert_array_equal(ours["time"], theirs["time"])
    bound = 1e-6 if interface == "CoSimulation" else 1e-3
    for name in ours.dtype.names[1:]:
        # FMPy records an FMI 3.0 alias in its variable's unit (h_ft in m), Tandem in the
        # alias's display unit, as the command line writes it.
        expected = theirs[name] / 0.3048 if name == "h_ft" else theirs[name]
        spread = np.ptp(expected) or 1.0
        difference = np.max(np.abs(ours[name] - expected)) / spread
        assert difference <= bound, f"{name} differs from FMPy's by {difference:.2e} of its range"


def test_the_array_is_one_fmpy_takes(tmp_path):
    fmu = reference_fmu("fmi3", "VanDerPol")
    result = tandem.simulate(fmu, stop_time=1.0)
    assert result.dtype == np.dtype([("time", "f8"), ("x0", "f8"), ("x1", "f8")])
    assert result.flags.writeable
    # FMPy's own writer of results takes it, and what it writes reads back unchanged.
    written = tmp_path / "fmpy.csv"
    fmpy.util.write_csv(written, result)
    assert_same_rows(read_result(written), result)


def test_input_signals_drive_the_fmu_as_an_input_file_does(cli, tmp_path):
    fmu = reference_fmu("fmi3", "Feedthrough")
    signals = np.array(
        [(0.0, 0.0, 1), (0.5, 2.0, 0), (1.0, -1.0, 1)],
        dtype=[("time", "f8"), ("Float64_continuous_input", "f8"), ("Int32_input", "i4")],
    )
    output = ["Float64_continuous_output", "Int32_output"]
    ours = tandem.simulate(fmu, stop_time=1.0, step_size=0.125, output=output, input=signals)
    csv = tmp_path / "input.csv"
    csv.write_text(
        "time,Float64_continuous_input,Int32_input\n0,0,1\n0.5,2,0\n1,-1,1\n"
    )
    theirs, _ = cli.result(
        "simulate", fmu, "--stop-time", "1", "--step-size", "0.125",
        *("--output-variable", output[0], "--output-variable", output[1]),
        "--input-file", csv, directory=tmp_path,
    )
    assert_same_rows(ours, theirs)
    # Between the rows at 0 and 0.5 the continuous input is interpolated (0.5 at t = 0.125),
    # the Int32 input held.
    assert 0.5 in ours["Float64_continuous_output"]
    assert set(ours["Int32_output"]) == {0.0, 1.0}
