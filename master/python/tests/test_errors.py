"""Failures raise ``tandem.TandemError`` (a RuntimeError) with the message the command line
prints for the same input, and a simulation that fails part-way keeps its rows."""

import pytest

import tandem
from conftest import SYSTEMS, reference_fmu

VAN_DER_POL = reference_fmu("fmi3", "VanDerPol")


def message(call, *arguments, **keywords):
    """The message of the TandemError ``call(*arguments, **keywords)`` raises, and the error."""
    with pytest.raises(tandem.TandemError) as raised:
        call(*arguments, **keywords)
    return str(raised.value), raised.value


def test_the_error_is_a_runtime_error():
    assert issubclass(tandem.TandemError, RuntimeError)


def test_a_missing_file_is_named_as_the_command_line_names_it(cli, tmp_path):
    missing = tmp_path / "missing.fmu"
    text, error = message(tandem.simulate, missing)
    assert text == cli.error("simulate", missing)
    assert str(missing) in text and error.result is None
    assert message(tandem.read_model_description, missing)[0] == cli.error("info", missing)
    system = tmp_path / "missing.toml"
    assert message(tandem.run, system)[0] == cli.error("run", system)
    assert message(tandem.gradient, system)[0] == cli.error("gradient", system)


@pytest.mark.parametrize(
    "name,value,text",
    [("mu", "zero", "zero"), ("mu", [1, 2], "[1,2]"), ("muu", 1.5, "1.5"), ("time", 1, "1")],
)
def test_a_bad_start_value_is_refused_as_the_command_line_refuses_it(cli, name, value, text):
    ours, error = message(tandem.simulate, VAN_DER_POL, start_values={name: value})
    assert ours == cli.error("simulate", VAN_DER_POL, "--start-value", f"{name}={text}")
    assert error.result is None


def test_a_run_that_fails_at_its_first_row_has_no_rows(cli):
    text, error = message(tandem.simulate, VAN_DER_POL, start_values={"x0": float("inf")})
    assert text == cli.error("simulate", VAN_DER_POL, "--start-value", "x0=inf")
    assert error.result.dtype.names == ("time", "x0", "x1") and len(error.result) == 0


def test_bad_experiment_settings_are_refused_as_the_command_line_refuses_them(cli):
    assert message(tandem.simulate, VAN_DER_POL, stop_time=-1.0)[0] == cli.error(
        "simulate", VAN_DER_POL, "--stop-time", "-1"
    )
    assert message(tandem.simulate, VAN_DER_POL, step_size=0.01, output_interval=0.015)[0] == (
        cli.error("simulate", VAN_DER_POL, "--step-size", "0.01", "--output-interval", "0.015")
    )
    assert message(tandem.simulate, VAN_DER_POL, output=["x9"])[0] == cli.error(
        "simulate", VAN_DER_POL, "--output-variable", "x9"
    )
    system = SYSTEMS / "double-oscillator-jacobi.toml"
    assert message(tandem.run, system, step_size=0.0)[0] == cli.error(
        "run", system, "--step-size", "0"
    )


def test_arguments_that_name_nothing_are_value_errors():
    with pytest.raises(ValueError, match="fmi_type"):
        tandem.simulate(VAN_DER_POL, fmi_type="Simulation")
    with pytest.raises(ValueError, match="solver"):
        tandem.simulate(VAN_DER_POL, solver="cvode")
    with pytest.raises(TypeError, match="start value"):
        tandem.simulate(VAN_DER_POL, start_values={"mu": object()})
    with pytest.raises(TypeError, match="structured array"):
        tandem.simulate(VAN_DER_POL, input=[0.0, 1.0])


def test_a_bad_input_table_is_refused_with_its_row():
    import numpy as np

    signals = np.array([(0.0, 1.0), (1.0, 2.0), (0.5, 3.0)], dtype=[("time", "f8"), ("u", "f8")])
    text, _ = message(tandem.simulate, reference_fmu("fmi3", "Feedthrough"), input=signals)
    assert text == "input: row 3: time 0.5 is before the previous row's"


def test_a_simulation_that_fails_part_way_keeps_its_rows(cli, tmp_path, faulty_fmu):
    text, error = message(tandem.simulate, faulty_fmu, start_values={"fail_at": 0.5})
    output = tmp_path / "failed.csv"
    _, stderr = cli(
        "simulate", faulty_fmu, "--start-value", "fail_at=0.5", "--output-file", output,
        fails=True,
    )
    assert stderr.strip().splitlines()[-1] == f"error: {text}"
    assert "fmi3DoStep returned Error" in text
    from conftest import assert_same_rows, read_result

    rows = read_result(output)
    assert error.result.dtype.names == ("time", "y")
    assert len(error.result) == 6, "the rows at 0, 0.1, ..., 0.5"
    assert_same_rows(error.result, rows)


def test_a_run_that_fails_part_way_keeps_its_rows(cli, tmp_path, faulty_fmu):
    from conftest import assert_same_rows, faulty_system, read_result

    system = faulty_system(tmp_path, faulty_fmu, 1.0, 0.1, fail_at=0.5)
    text, error = message(tandem.run, system)
    output = tmp_path / "failed.csv"
    _, stderr = cli("run", system, "--output-file", output, fails=True)
    assert stderr.strip().splitlines()[-1] == f"error: {text}"
    assert "at t = 0.5" in text and "fmi3DoStep returned Error" in text
    assert error.result.dtype.names == ("time", "f.y")
    assert len(error.result) == 6, "the rows at 0, 0.1, ..., 0.5"
    assert_same_rows(error.result, read_result(output))
