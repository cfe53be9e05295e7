"""A 1000-run `tandem.sweep` on 2 threads against a Python loop of `fmpy.simulate_fmu` calls
(docs/benchmarks.md, "From Python: a 1000-run sweep against a loop of FMPy calls").

The Reference-FMUs' VanDerPol (FMI 3.0) in Co-Simulation to t = 10 in communication steps
of 10 ms (1000 steps a run), its parameter `mu` on a grid of 1000 values from 0.1 to 10.
`tandem.sweep` runs a one-component system file (written to a temporary folder) over the
grid on 2 threads (and on 1, to tell the threads' share); the loop calls `fmpy.simulate_fmu` once per value of the sweep's table,
as a user would (the FMU extracted on every call), and a second loop extracts it once and
passes the folder and the model description. Every run's final x0 must agree. Each figure
is the median of the repeats, the ratios those of the medians.

    python sweep_vs_fmpy.py VanDerPol.fmu [repeats]
"""

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import fmpy
import numpy as np
import tandem

STOP = 10.0
STEP = 1e-2
GRID = "vdp.mu=0.1:10:1000"
THREADS = 2


def system_file(folder, fmu):
    """A system file in `folder` of `fmu` alone as component `vdp`, recording x0."""
    path = Path(folder) / "van-der-pol.toml"
    path.write_text(
        "connections = []\n\n"
        f"[experiment]\nstop = {STOP!r}\nstep = {STEP!r}\n\n"
        f"[[component]]\nname = \"vdp\"\nfmu = '{Path(fmu).resolve()}'\n\n"
        "[output]\nvariables = [\"vdp.x0\"]\n"
    )
    return path


def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def fmpy_loop(fmu, values, **extracted):
    """The final x0 of `fmpy.simulate_fmu` for each value of mu."""
    return np.array([
        fmpy.simulate_fmu(
            fmu, fmi_type="CoSimulation", stop_time=STOP, output_interval=STEP,
            start_values={"mu": mu}, output=["x0"], **extracted,
        )["x0"][-1]
        for mu in values
    ])


def main(fmu, repeats):
    scratch = Path(tempfile.mkdtemp())
    try:
        system = system_file(scratch, fmu)
        unzipped = fmpy.extract(fmu, unzipdir=scratch / "unzipped")
        description = fmpy.read_model_description(fmu)
        worst = 0.0
        times = {"tandem": [], "tandem 1 thread": [], "fmpy": [], "fmpy extracted": []}
        for _ in range(repeats):
            t, table = timed(lambda: tandem.sweep(
                system, grid=GRID, metric="final:vdp.x0", threads=THREADS,
            ))
            times["tandem"].append(t)
            assert len(table["run"]) == 1000 and set(table["status"]) == {"ok"}
            t, single = timed(lambda: tandem.sweep(
                system, grid=GRID, metric="final:vdp.x0", threads=1,
            ))
            times["tandem 1 thread"].append(t)
            assert single["final:vdp.x0"].tobytes() == table["final:vdp.x0"].tobytes()
            values = [float(mu) for mu in table["vdp.mu"]]
            t, theirs = timed(lambda: fmpy_loop(fmu, values))
            times["fmpy"].append(t)
            t, extracted = timed(lambda: fmpy_loop(
                unzipped, values, model_description=description,
            ))
            times["fmpy extracted"].append(t)
            for finals in (theirs, extracted):
                worst = max(worst, np.abs(table["final:vdp.x0"] - finals).max())
        assert worst < 1e-9, worst
        median = {name: statistics.median(ts) for name, ts in times.items()}
        print(f"{len(values)} runs of {round(STOP / STEP)} steps, {repeats} repeats, "
              f"final x0 differ by at most {worst:.1e}")
        for name, seconds in median.items():
            print(f"  {name:16} {seconds:8.3f} s  ({1000 * seconds / len(values):.2f} ms a run)")
        for loop in ("fmpy", "fmpy extracted"):
            ratio = median["tandem"] / median[loop]
            print(f"  tandem/{loop}: {ratio:.4f} ({1 / ratio:.1f} times faster)")
    finally:
        shutil.rmtree(scratch)


main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3)
