"""The fields of ``tandem``'s results have the types FMPy's ``simulate_fmu`` gives the same
variables (float64, int32, bool, and FMI 3.0's sized types), hold the command line's values
exactly, and go into pandas with those types; on the Reference-FMU Feedthrough, whose outputs
are of every type."""

import fmpy
import numpy as np
import pandas as pd
import pytest

import tandem
from conftest import assert_same_rows, reference_fmu

# What FMPy 0.3 makes of each type; written out so that a change on either side shows.
FMI3_TYPES = {
    "Float32_continuous_output": "f4",
    "Float64_continuous_output": "f8",
    "Int8_output": "i1",
    "UInt8_output": "u1",
    "Int16_output": "i2",
    "UInt16_output": "u2",
    "Int32_output": "i4",
    "UInt32_output": "u4",
    "Int64_output": "i8",
    "UInt64_output": "u8",
    "Boolean_output": "?",
    "Enumeration_output": "i8",
}
FMI2_TYPES = {
    "Float64_continuous_output": "f8",
    "Int32_output": "i4",
    "Boolean_output": "?",
    "Enumeration_output": "i4",
}


@pytest.mark.parametrize("version", ["fmi2", "fmi3"])
def test_the_fields_are_typed_as_fmpys(cli, tmp_path, version):
    fmu = reference_fmu(version, "Feedthrough")
    ours = tandem.simulate(fmu, stop_time=0.1)
    theirs = fmpy.simulate_fmu(str(fmu), stop_time=0.1)
    # String and Binary outputs are in neither.
    assert sorted(ours.dtype.names) == sorted(theirs.dtype.names)
    for name in ours.dtype.names:
        assert ours.dtype[name] == theirs.dtype[name], name
    expected = FMI3_TYPES if version == "fmi3" else FMI2_TYPES
    assert {name: ours.dtype[name].str[1:] for name in expected} == {
        name: np.dtype(code).str[1:] for name, code in expected.items()
    }
    file, _ = cli.result("simulate", fmu, "--stop-time", "0.1", directory=tmp_path)
    assert_same_rows(ours, file)


def test_integers_and_booleans_keep_their_values():
    fmu = reference_fmu("fmi3", "Feedthrough")
    names = ["Int8_input", "UInt64_input", "Boolean_input", "Enumeration_input"]
    signals = np.array(
        [(0.0, -128, 2**53, True, 2), (0.5, 127, 7, False, 1)],
        dtype=[("time", "f8"), *zip(names, ["i1", "u8", "?", "i8"])],
    )
    outputs = [name.replace("input", "output") for name in names]
    ours = tandem.simulate(fmu, stop_time=1.0, step_size=0.25, input=signals, output=outputs)
    # A Co-Simulation step takes the inputs at its start: the row at 0.5 still shows the
    # first row's.
    assert list(ours["Int8_output"]) == [-128, -128, -128, 127, 127]
    assert list(ours["UInt64_output"]) == [2**53, 2**53, 2**53, 7, 7]
    assert list(ours["Boolean_output"]) == [True, True, True, False, False]
    assert list(ours["Enumeration_output"]) == [2, 2, 2, 1, 1]
    frame = pd.DataFrame(ours)
    assert [str(frame[name].dtype) for name in outputs] == ["int8", "uint64", "bool", "int64"]


def test_a_runs_rows_are_typed_as_its_variables(cli, tmp_path):
    system = tmp_path / "feedthrough.toml"
    system.write_text(
        "connections = []\n\n"
        "[experiment]\nstop = 0.1\nstep = 0.05\n\n"
        "[[component]]\nname = \"f3\"\n"
        f"fmu = {str(reference_fmu('fmi3', 'Feedthrough'))!r}\n\n"
        "[[component]]\nname = \"f2\"\n"
        f"fmu = {str(reference_fmu('fmi2', 'Feedthrough'))!r}\n\n"
        "[output]\nvariables = [\"f3.UInt16_output\", \"f3.Boolean_output\", "
        "\"f3.Enumeration_output\", \"f2.Int32_output\", \"f2.Enumeration_output\", "
        "\"f2.Float64_continuous_output\"]\n"
    )
    rows, _ = tandem.run(system)
    assert [rows.dtype[name].str[1:] for name in rows.dtype.names] == [
        "f8", "u2", "b1", "i8", "i4", "i4", "f8"
    ]
    file, _ = cli.result("run", system, directory=tmp_path)
    assert_same_rows(rows, file)
