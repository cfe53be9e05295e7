"""``tandem.sweep`` against ``tandem sweep`` on the shipped double oscillator of Tandem's FMUs:
the table it writes is the command's byte for byte but for the wall times, the columns it
returns hold the values of the command's CSV bit for bit, failed runs are rows with the
command's messages, the progress callback hears of every run, and wrong arguments are refused
with the command's message."""

import csv

import numpy as np
import pytest

import tandem
from conftest import SYSTEMS, faulty_system, read_result

SYSTEM = SYSTEMS / "double-oscillator-jacobi.toml"
GRIDS = ["mass1.k=5:15:3", "spring.k=log:10:1000:2"]
METRICS = ["max:mass2.position", "final:mass1.velocity"]


def read_table(path):
    """The header and the rows of a sweep's CSV, without the wall times (they differ from one
    sweep to the next)."""
    with open(path, newline="") as file:
        header, *rows = list(csv.reader(file))
    keep = [k for k, name in enumerate(header) if name != "wall_time"]
    return [header[k] for k in keep], [[row[k] for k in keep] for row in rows]


def assert_columns_hold(table, path):
    """The columns of ``table`` hold the values of the CSV ``path``, in its order."""
    with open(path, newline="") as file:
        header, *rows = list(csv.reader(file))
    assert list(table) == header
    for k, name in enumerate(header):
        written = [row[k] for row in rows]
        column = table[name]
        assert len(column) == len(rows), name
        if name in ("status", "message"):
            assert list(column) == written, name
        elif name == "run":
            assert column.dtype == np.int64 and list(column) == [int(w) for w in written]
        elif name != "wall_time":
            expected = np.array([float(w) if w else np.nan for w in written])
            assert column.dtype == np.float64
            assert column.tobytes() == expected.tobytes(), name


def test_a_grids_table_is_the_command_lines(cli, tmp_path, test_fmus):
    ours = tmp_path / "ours.csv"
    counts = []
    table = tandem.sweep(
        SYSTEM,
        grid=GRIDS,
        metric=METRICS,
        gradient=True,
        stop_time=0.01,
        fmu_dir=test_fmus,
        threads=2,
        output=ours,
        plot=tmp_path / "ours.svg",
        progress=lambda *done: counts.append(done),
    )
    theirs = tmp_path / "theirs.csv"
    cli(
        "sweep", SYSTEM, *("--grid", GRIDS[0], "--grid", GRIDS[1]),
        *("--metric", METRICS[0], "--metric", METRICS[1]), "--gradient",
        "--stop-time", "0.01", "--fmu-dir", test_fmus, "--threads", "2", "--output", theirs,
        "--plot", tmp_path / "theirs.svg",
    )
    assert read_table(ours) == read_table(theirs)
    # The plots (a file per parameter) are the command's, byte for byte.
    plots = sorted(path.name for path in tmp_path.glob("ours*.svg"))
    assert len(plots) == 2
    for name in plots:
        drawn = (tmp_path / name).read_bytes()
        assert drawn == (tmp_path / name.replace("ours", "theirs")).read_bytes(), name
    assert_columns_hold(table, theirs)
    assert list(table)[:3] == ["run", "mass1.k", "spring.k"]
    assert list(table)[-4:] == ["cost", "dJ/dmass1.k", "dJ/dspring.k", "dJ/dmass2.m"]
    assert list(table["spring.k"]) == [10.0, 1000.0] * 3
    assert set(table["status"]) == {"ok"} and np.all(table["wall_time"] > 0)
    # The callback heard of the runs in order, the last call of all six.
    assert counts[-1] == (6, 6, 0)
    assert [done for done, _, _ in counts] == sorted(done for done, _, _ in counts)


def test_samples_are_the_command_lines(cli, tmp_path, test_fmus):
    sample = ["spring.k=normal(100,5)", "mass2.m=uniform(0.5,2)"]
    table = tandem.sweep(
        SYSTEM, sample=sample, samples=5, latin_hypercube=True, seed=7,
        metric="rms:mass1.position", stop_time=0.01, fmu_dir=test_fmus,
    )
    theirs = tmp_path / "theirs.csv"
    cli(
        "sweep", SYSTEM, "--sample", sample[0], "--sample", sample[1], "--samples", "5",
        "--latin-hypercube", "--seed", "7", "--metric", "rms:mass1.position",
        "--stop-time", "0.01", "--fmu-dir", test_fmus, "--output", theirs,
    )
    assert_columns_hold(table, theirs)
    assert len(set(table["spring.k"])) == 5


def test_sets_from_a_file_coupled_implicitly_are_the_command_lines_and_results_are_kept(
    cli, tmp_path, test_fmus
):
    sets = tmp_path / "sets.csv"
    sets.write_text("mass1.k,spring.k\n5,80\n12.5,120\n")
    kept = tmp_path / "kept"
    table = tandem.sweep(
        SYSTEM, sets=sets, metric="mean:spring.f_a", stop_time=0.01, fmu_dir=test_fmus,
        keep_results=kept, implicit="differences",
    )
    theirs = tmp_path / "theirs.csv"
    cli("sweep", SYSTEM, "--sets", sets, "--metric", "mean:spring.f_a", "--stop-time", "0.01",
        "--fmu-dir", test_fmus, "--output", theirs, "--implicit", "differences")
    assert_columns_hold(table, theirs)
    assert sorted(path.name for path in kept.iterdir()) == ["run_0.csv", "run_1.csv"]
    rows, _ = tandem.run(SYSTEM, stop_time=0.01, fmu_dir=test_fmus)
    kept_rows = read_result(kept / "run_0.csv")
    assert kept_rows.dtype.names == rows.dtype.names and len(kept_rows) == len(rows)


def test_a_failed_run_is_a_row_with_the_command_lines_message(cli, tmp_path, faulty_fmu):
    system = faulty_system(tmp_path, faulty_fmu, 0.3, 0.1)
    table = tandem.sweep(system, grid="f.fail_at=0:1:3", metric="final:f.y", threads=1)
    theirs = tmp_path / "theirs.csv"
    cli("sweep", system, "--grid", "f.fail_at=0:1:3", "--metric", "final:f.y",
        "--threads", "1", "--output", theirs)
    assert_columns_hold(table, theirs)
    assert list(table["status"]) == ["failed", "ok", "ok"]
    assert "fmi3DoStep returned Error" in table["message"][0]
    assert np.isnan(table["final:f.y"][0])


def message(**keywords):
    with pytest.raises(tandem.TandemError) as raised:
        tandem.sweep(SYSTEM, **keywords)
    assert raised.value.result is None
    return str(raised.value)


def test_wrong_arguments_are_refused_with_the_command_lines_message(cli, tmp_path, test_fmus):
    assert message() == cli.error("sweep", SYSTEM)
    assert message(grid="mass1.k=1:2") == cli.error("sweep", SYSTEM, "--grid", "mass1.k=1:2")
    assert message(grid="mass9.k=1:2:2", fmu_dir=test_fmus) == cli.error(
        "sweep", SYSTEM, "--grid", "mass9.k=1:2:2", "--fmu-dir", test_fmus
    )
    assert message(grid="mass1.k=1:2:2", metric="max:mass9.x", fmu_dir=test_fmus) == (
        cli.error("sweep", SYSTEM, "--grid", "mass1.k=1:2:2", "--metric", "max:mass9.x",
                  "--fmu-dir", test_fmus)
    )
    text = tmp_path / "table.txt"
    assert message(grid="mass1.k=1:2:2", output=text) == cli.error(
        "sweep", SYSTEM, "--grid", "mass1.k=1:2:2", "--output", text
    )
    assert message(samples=0, sample="mass1.k=normal(1,1)") == cli.error(
        "sweep", SYSTEM, "--samples", "0", "--sample", "mass1.k=normal(1,1)"
    )
    with pytest.raises(TypeError, match="grid must be a string or a sequence of strings"):
        tandem.sweep(SYSTEM, grid=5)
