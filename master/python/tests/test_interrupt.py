"""Ctrl-C during a call stops it cleanly: the runs end after the macro step in progress and
the call raises KeyboardInterrupt with what it had (the rows so far, a sweep's table with the
runs not started marked "not run"); the next call runs to its end. The signal comes from a
thread of the test while the main thread is inside the call, as Ctrl-C comes from a terminal or a
notebook's interrupt button. Each step of the faulty FMU sleeps, so the calls would take
seconds."""

import os
import signal
import threading
import time

import pytest

import tandem
from conftest import SYSTEMS, faulty_system

STEP_SLEEP = 0.05  # seconds per step
SIGNAL_AFTER = 0.3  # seconds


def interrupted(call, ready=lambda: True):
    """The KeyboardInterrupt ``call()`` raises when SIGINT comes ``SIGNAL_AFTER`` after it
    began (or later, once ``ready()``), and how long the call took."""
    finished = threading.Event()

    def send():
        if finished.wait(SIGNAL_AFTER):
            return
        while not ready():
            if finished.wait(0.01):
                return
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=send)
    began = time.perf_counter()
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt) as raised:
            call()
    finally:
        finished.set()
        sender.join()
    return raised.value, time.perf_counter() - began


def assert_rows_so_far(rows, steps, step):
    """``rows`` are the first rows of a run of ``steps`` steps of ``step``: some, not all."""
    assert rows is not None and rows.dtype.names[0] == "time"
    assert 1 <= len(rows) < steps // 2, f"{len(rows)} rows of {steps + 1}"
    assert list(rows["time"]) == pytest.approx([k * step for k in range(len(rows))])


def test_a_simulation_stops_with_its_rows_so_far(faulty_fmu):
    options = dict(stop_time=5.0, step_size=0.1, start_values={"delay": STEP_SLEEP})
    error, took = interrupted(lambda: tandem.simulate(faulty_fmu, **options))
    assert took < 1.0, f"the simulation went on for {took:.2f} s"
    assert_rows_so_far(error.result, 50, 0.1)
    # The stop request is withdrawn: the next simulation runs to its end.
    assert len(tandem.simulate(faulty_fmu, stop_time=0.3, step_size=0.1)) == 4


def test_a_run_stops_with_its_rows_so_far(tmp_path, faulty_fmu):
    system = faulty_system(tmp_path, faulty_fmu, 5.0, 0.1, delay=STEP_SLEEP)
    error, took = interrupted(lambda: tandem.run(system))
    assert took < 1.0, f"the run went on for {took:.2f} s"
    assert_rows_so_far(error.result, 50, 0.1)
    assert error.result.dtype.names == ("time", "f.y")
    rows, summary = tandem.run(system, stop_time=0.2)
    assert len(rows) == 3 and summary["final_time"] == 0.2


def test_a_sweep_stops_with_its_table(tmp_path, faulty_fmu):
    system = faulty_system(tmp_path, faulty_fmu, 0.5, 0.1, delay=STEP_SLEEP)
    counts = []
    error, took = interrupted(
        lambda: tandem.sweep(
            system,
            grid="f.fail_at=10:20:20",
            metric="final:f.y",
            threads=1,
            progress=lambda *done: counts.append(done),
        ),
        # Once a run has finished: the table then has a row of each kind.
        ready=lambda: len(counts) >= 1,
    )
    assert took < 1.0, f"the sweep went on for {took:.2f} s"
    table = error.result
    assert len(table["run"]) == 20
    status = list(table["status"])
    messages = list(table["message"])
    finished = status.count("ok")
    # Runs of 0.25 s each, one at a time: those finished before the signal, one interrupted
    # (unless the signal fell between two runs), the others never started.
    assert 1 <= finished <= 3 and status[:finished] == ["ok"] * finished
    assert "interrupted by SIGINT" in messages[finished]
    assert all(m.startswith("not run: interrupted by SIGINT") for m in messages[finished + 1:])
    assert len([m for m in messages if m.startswith("not run")]) >= 20 - finished - 1
    assert list(table["final:f.y"][:finished]) == pytest.approx([0.5] * finished)
    # The callback hears of the runs until Ctrl-C, not after.
    assert all(done <= finished and failed == 0 for done, _, failed in counts)


def test_an_exception_of_the_progress_callback_stops_the_sweep_as_ctrl_c_does(
    tmp_path, faulty_fmu
):
    system = faulty_system(tmp_path, faulty_fmu, 0.2, 0.1, delay=STEP_SLEEP)

    def progress(done, total, failed):
        raise ValueError(f"enough after {done} of {total}")

    with pytest.raises(ValueError, match=r"enough after \d+ of 30") as raised:
        tandem.sweep(system, grid="f.fail_at=10:20:30", threads=1, progress=progress)
    status = list(raised.value.result["status"])
    assert status.count("ok") <= 2 and len(status) == 30


def test_an_identification_stops_with_its_best_point(tmp_path, test_fmus):
    system = SYSTEMS / "double-oscillator-jacobi.toml"
    # Four seconds of the double oscillator: each evaluation takes a good fraction of a
    # second, the whole fit several.
    rows, _ = tandem.run(system, stop_time=4.0, fmu_dir=test_fmus)
    data = tmp_path / "measured.csv"
    lines = [f"{float(t)!r},{float(x)!r}" for t, x in zip(rows["time"], rows["mass2.position"])]
    data.write_text("time,mass2.position\n" + "\n".join(lines) + "\n")
    started = tmp_path / "system.toml"
    started.write_text(system.read_text().replace("k = 100.0, c = 0.0", "k = 70.0, c = 0.0"))
    heard = []
    output = tmp_path / "fitted.toml"

    def fit():
        tandem.identify(
            started, parameters="spring.k=10:1000", data=data, fmu_dir=test_fmus,
            stop_time=4.0, output=output, progress=lambda *i: heard.append(i),
        )

    # Once the first iteration is reported: the fit then has a point to return.
    error, _ = interrupted(fit, ready=lambda: len(heard) >= 1)
    result = error.result
    assert result["stopped"] == "interrupted by SIGINT"
    assert result["cost"] <= result["start_cost"]
    assert 1 <= len(result["iterations"]["cost"]) < 7
    # The best point so far is written, as the command writes it.
    [line] = [line for line in output.read_text().splitlines() if line.startswith('"spring.k"')]
    assert float(line.split(" = ")[1].split()[0]) == result["fitted"]["spring.k"]
