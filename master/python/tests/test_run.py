"""``tandem.run`` against ``tandem run`` on a shipped system of Tandem's FMUs (the double
oscillator with the energy correction): the same rows bit for bit, the summary's numbers
those of the command's summary lines."""

import pytest

import tandem
from conftest import SYSTEMS, assert_same_rows

SYSTEM = SYSTEMS / "energy-double-oscillator-gradient.toml"


@pytest.mark.parametrize("correction", [None, False])
def test_the_rows_and_the_summary_are_the_command_lines(cli, tmp_path, test_fmus, correction):
    rows, summary = tandem.run(
        SYSTEM, fmu_dir=test_fmus, stop_time=0.1, threads=1, energy_correction=correction
    )
    switch = [] if correction is None else ["--energy-correction", "off"]
    theirs, stderr = cli.result(
        "run", SYSTEM, "--fmu-dir", test_fmus, "--stop-time", "0.1", "--threads", "1",
        *switch, directory=tmp_path,
    )
    assert rows.dtype.names[:3] == ("time", "m1.position", "m2.position")
    assert_same_rows(rows, theirs)
    assert summary["system"] == "energy-double-oscillator-gradient"
    assert (summary["macro_steps"], summary["rows"], summary["final_time"]) == (100, 101, 0.1)
    assert (
        f"{summary['system']}: {summary['schedule']} with {summary['extrapolation']} to t = 0.1 "
        f"in 100 macro steps, {summary['fmu_calls']} FMU calls, 101 rows written"
    ) in stderr
    assert summary["terminated_by"] is None
    assert summary["integrations"] == [] and summary["algebraic_loops"] is None
    energy = summary["energy"]
    assert energy["report"] in stderr
    assert energy["corrected"] is (correction is None)
    assert energy["initial_energy"] > 0 and energy["final_energy"] > 0
    [bond] = energy["bonds"]
    assert bond["name"] == "m1.f x m2.velocity"
    assert bond["mu"] == 0.5 and bond["mu_problem"] is None
    printed = stderr.split("residual energy dE = ")[1].split(" J")[0]
    assert abs(bond["residual_energy"] - float(printed)) <= 1e-6 * abs(float(printed))


def test_a_system_without_energy_monitoring_reports_none(test_fmus):
    rows, summary = tandem.run(
        SYSTEMS / "double-oscillator-gauss-seidel.toml", fmu_dir=test_fmus, stop_time=0.01
    )
    assert summary["energy"] is None
    assert summary["schedule"] == "Gauss-Seidel" and len(rows) == 11


def test_an_implicit_coupling_is_the_command_lines(cli, tmp_path, test_fmus):
    system = SYSTEMS / "double-oscillator-jacobi.toml"
    rows, summary = tandem.run(system, fmu_dir=test_fmus, stop_time=0.01, implicit="differences")
    theirs, stderr = cli.result(
        "run", system, "--fmu-dir", test_fmus, "--stop-time", "0.01",
        "--implicit", "differences", directory=tmp_path,
    )
    assert_same_rows(rows, theirs)
    assert summary["implicit"] and summary["implicit"] in stderr
    explicit, plain = tandem.run(system, fmu_dir=test_fmus, stop_time=0.01)
    assert plain["implicit"] is None and explicit.tobytes() != rows.tobytes()
    with pytest.raises(ValueError, match="expected auto, directional-derivatives"):
        tandem.run(system, implicit="newton")


def test_adaptive_macro_steps_are_the_command_lines(cli, tmp_path, test_fmus):
    system = SYSTEMS / "double-oscillator-jacobi.toml"
    rows, summary = tandem.run(system, fmu_dir=test_fmus, stop_time=0.05, adaptive=1e-3)
    theirs, stderr = cli.result(
        "run", system, "--fmu-dir", test_fmus, "--stop-time", "0.05",
        "--adaptive", "1e-3", directory=tmp_path,
    )
    assert_same_rows(rows, theirs)
    assert summary["adaptive_steps"] and summary["adaptive_steps"] in stderr
    assert summary["adaptive_steps"].startswith(
        f"adaptive macro steps: {summary['macro_steps']} accepted"
    )
    assert len(rows) == summary["macro_steps"] + 1


def test_rows_at_an_output_interval_are_the_command_lines(cli, tmp_path, test_fmus):
    system = SYSTEMS / "double-oscillator-jacobi.toml"
    rows, summary = tandem.run(
        system, fmu_dir=test_fmus, stop_time=0.05, adaptive=1e-3, output_interval=0.01
    )
    theirs, _ = cli.result(
        "run", system, "--fmu-dir", test_fmus, "--stop-time", "0.05",
        "--adaptive", "1e-3", "--output-interval", "0.01", directory=tmp_path,
    )
    assert_same_rows(rows, theirs)
    assert list(rows["time"]) == [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    assert summary["rows"] == 6 and summary["macro_steps"] > 6
