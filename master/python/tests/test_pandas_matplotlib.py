"""What ``tandem`` returns goes straight into pandas and matplotlib: a sweep's table is a
``pandas.DataFrame`` with the columns and values of the CSV the sweep writes, a simulation's
rows a frame indexed by time, and both plot with matplotlib (a line per variable over time, as
FMPy's ``plot_result`` draws a result; FMPy 0.3 draws with plotly, which the tests do not
install)."""

import numpy as np
import pandas as pd

import tandem
from conftest import SYSTEMS, reference_fmu, save_figures

SYSTEM = SYSTEMS / "double-oscillator-jacobi.toml"


def test_a_sweeps_table_is_a_data_frame_of_its_csv(tmp_path, test_fmus):
    written = tmp_path / "sweep.csv"
    table = tandem.sweep(
        SYSTEM, grid=["mass1.k=5:15:3", "spring.k=log:10:1000:3"],
        metric=["max:mass2.position", "final:mass1.velocity"], stop_time=0.01,
        fmu_dir=test_fmus, threads=2, output=written,
    )
    frame = pd.DataFrame(table)
    assert list(frame.columns) == list(table) and len(frame) == 9
    assert frame["run"].dtype == np.int64 and frame["mass1.k"].dtype == np.float64
    assert list(frame["run"]) == list(range(9)) and (frame["status"] == "ok").all()
    # The frame holds what the sweep wrote, to the bit (read with the frame's types, as the
    # CSV writes 5.0 as 5 and a message left empty is no missing value, and with pandas'
    # exact float parser).
    read = pd.read_csv(
        written, dtype=frame.dtypes.to_dict(), keep_default_na=False,
        float_precision="round_trip",
    )
    assert (frame["message"] == "").all()
    pd.testing.assert_frame_equal(frame, read, check_exact=True)
    # A pivot of the grid: mass1.k down, spring.k across.
    pivot = frame.pivot(index="mass1.k", columns="spring.k", values="max:mass2.position")
    assert list(pivot.index) == [5.0, 10.0, 15.0] and pivot.shape == (3, 3)
    np.testing.assert_allclose(pivot.columns, [10.0, 100.0, 1000.0], rtol=1e-15)


def test_a_simulation_is_a_data_frame_and_plots_a_line_per_variable(pyplot, tmp_path):
    result = tandem.simulate(reference_fmu("fmi3", "VanDerPol"), stop_time=5.0)
    frame = pd.DataFrame(result).set_index("time")
    assert list(frame.columns) == ["x0", "x1"] and len(frame) == len(result)
    assert frame.index[0] == 0.0 and frame["x0"].iloc[0] == 2.0
    np.testing.assert_array_equal(frame["x1"].to_numpy(), result["x1"])
    # plot_result's layout: one panel per variable over a shared time axis.
    names = [name for name in result.dtype.names if name != "time"]
    figure, panels = pyplot.subplots(len(names), 1, sharex=True)
    for panel, name in zip(panels, names):
        panel.plot(result["time"], result[name])
        panel.set_ylabel(name)
    frame.plot(title="pandas' own plot")
    assert len(save_figures(pyplot, tmp_path)) == 2
    assert [len(panel.lines) for panel in figure.axes] == [1, 1]
    np.testing.assert_array_equal(panels[0].lines[0].get_ydata(), result["x0"])
