"""`tandem.simulate` against `fmpy.simulate_fmu` in one Python process (docs/benchmarks.md,
"From Python: tandem.simulate against FMPy").

The Reference-FMUs' VanDerPol (FMI 3.0) in Co-Simulation with a communication step and output
interval of 1 ms: 10^5 steps to t = 100 and 10 steps to t = 0.01. The two take turns; each
figure is the median of the runs, the ratio the median of the pairs' ratios.

    python simulate_vs_fmpy.py VanDerPol.fmu [runs]
"""

import statistics
import sys
import time

import fmpy
import tandem


def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def compare(fmu, stop_time, runs):
    options = dict(stop_time=stop_time, output_interval=1e-3)
    pairs = []
    for _ in range(runs):
        t_tandem, ours = timed(
            lambda: tandem.simulate(fmu, fmi_type="CoSimulation", step_size=1e-3, **options)
        )
        t_fmpy, theirs = timed(
            lambda: fmpy.simulate_fmu(fmu, fmi_type="CoSimulation", **options)
        )
        assert len(ours) == len(theirs), (len(ours), len(theirs))
        assert abs(ours["x0"][-1] - theirs["x0"][-1]) < 1e-9, (ours[-1], theirs[-1])
        pairs.append((t_tandem, t_fmpy))
    tandem_s = statistics.median(p[0] for p in pairs)
    fmpy_s = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    rows = len(ours)
    print(f"t = {stop_time}: {rows} rows, tandem {tandem_s:.4f} s, fmpy {fmpy_s:.4f} s, "
          f"tandem/fmpy {ratio:.4f} ({1 / ratio:.1f} times faster), {runs} pairs")


fmu = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
compare(fmu, 0.01, runs)
compare(fmu, 100.0, runs)
