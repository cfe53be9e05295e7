"""FMI 3.0 arrays (the Reference-FMU StateSpace): start values given as lists (or NumPy
arrays), nested by row for a matrix, or by element; the recorded elements are columns named
``y[1]``, ``y[2]``, ... as the command line and FMPy name them."""

import numpy as np

import tandem
from conftest import assert_same_rows, reference_fmu

STATE_SPACE = reference_fmu("fmi3", "StateSpace")

# x' = A x + B u, y = C x + D u from x(0) = 0 with a harmonic oscillator in the first two
# states and a first-order lag in the third: y = (sin t, cos t - 1, 1 - exp(-t)).
SYSTEM = {
    "A": [[0, 1, 0], [-1, 0, 0], [0, 0, -1]],
    "B": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "C": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "D": [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
    "u": [1.0, 0, 1],
}


def test_matrices_given_as_lists_of_rows_resize_and_drive_the_model(cli, tmp_path):
    ours = tandem.simulate(STATE_SPACE, stop_time=2.0, start_values=SYSTEM)
    assert ours.dtype.names == ("time", "y[1]", "y[2]", "y[3]")
    arguments = []
    for name, value in SYSTEM.items():
        text = str(value).replace(" ", "")
        arguments += ["--start-value", f"{name}={text}"]
    theirs, _ = cli.result(
        "simulate", STATE_SPACE, "--stop-time", "2", *arguments, directory=tmp_path
    )
    assert_same_rows(ours, theirs)


def test_the_elements_follow_the_closed_form_in_model_exchange():
    ours = tandem.simulate(
        STATE_SPACE,
        stop_time=2.0,
        fmi_type="ModelExchange",
        relative_tolerance=1e-10,
        start_values=SYSTEM,
    )
    t = ours["time"]
    np.testing.assert_allclose(ours["y[1]"], np.sin(t), atol=1e-8)
    np.testing.assert_allclose(ours["y[2]"], np.cos(t) - 1, atol=1e-8)
    np.testing.assert_allclose(ours["y[3]"], 1 - np.exp(-t), atol=1e-8)


def test_numpy_arrays_are_start_values_as_lists_are():
    as_arrays = {name: np.array(value) for name, value in SYSTEM.items()}
    with_lists = tandem.simulate(STATE_SPACE, stop_time=1.0, start_values=SYSTEM)
    with_arrays = tandem.simulate(STATE_SPACE, stop_time=1.0, start_values=as_arrays)
    assert with_lists.tobytes() == with_arrays.tobytes()


def test_single_elements_are_set_and_recorded_by_name():
    # The FMU's defaults: A = B = C = D = I, u = (1, 2, 3), so y = u exp(t).
    ours = tandem.simulate(
        STATE_SPACE, stop_time=1.0, start_values={"u[2]": 5}, output=["x[2]", "y"]
    )
    assert ours.dtype.names == ("time", "x[2]", "y[1]", "y[2]", "y[3]")
    assert (ours["y[1]"][0], ours["y[2]"][0], ours["y[3]"][0]) == (1.0, 5.0, 3.0)
    assert ours["x[2]"][0] == 0.0 and ours["x[2]"][-1] > 0
