"""The heat equation (models/heat-equation) under `tandem simulate --interface-type me` with
sparse and dense Jacobians, and under FMPy's CVode (dense) (docs/benchmarks.md, "Model
Exchange: sparse Jacobians on faer").

Expects FMI 3.0 FMUs `heat_<N>.fmu` in FOLDER (see docs/benchmarks.md for how they are built).
For each, the run is timed as a whole process, `runs` times, to t = 1 with the default
experiment's tolerance (1e-6): `--solver esdirk` and `--solver auto` on the FMU as built
(sparse: its ModelStructure declares the tridiagonal pattern) and, up to N = 1000, on a copy
whose ModelStructure declares no dependencies (dense: one directional derivative per state,
dense LU). FMPy (CVode, whose Jacobian is dense) runs the N given by --fmpy. Prints medians,
tandem's own time for the run (its summary line: loading the binary to terminating the
instance), that per accepted step, and the implicit solver's Jacobian counts.

    python heat_equation.py TANDEM FOLDER [--runs 5] [--sizes 10,100,1000,10000] [--fmpy 1000]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

DENSE_UP_TO = 1000


def without_dependencies(source, target):
    """Copies the FMU `source` to `target` without dependency attributes."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "modelDescription.xml":
                text = data.decode("utf-8")
                text = re.sub(r' dependencies(Kind)?="[^"]*"', "", text)
                data = text.encode("utf-8")
            dst.writestr(item, data)


def timed(command):
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return elapsed, done.stderr


def tandem_summary(stderr):
    steps = re.search(r"(\d+) steps \((\d+) rejected\)", stderr)
    run = re.search(r"([\d.]+) (ms|s) wall time", stderr)
    implicit = re.search(r"(\d+) Jacobians by (\d+) products, (\d+) LU factorizations", stderr)
    return {
        "run": float(run.group(1)) / (1e3 if run.group(2) == "ms" else 1),
        "steps": int(steps.group(1)),
        "rejected": int(steps.group(2)),
        "jacobians": int(implicit.group(1)) if implicit else 0,
        "products": int(implicit.group(2)) if implicit else 0,
        "factorizations": int(implicit.group(3)) if implicit else 0,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tandem")
    parser.add_argument("folder")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--fmpy", default="1000")
    arguments = parser.parse_args()
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores")
    scratch = tempfile.mkdtemp()
    out = os.path.join(scratch, "out.csv")
    print("N | Jacobian | solver | whole process (s) | run (s) | steps (rejected) | "
          "run ms per step | "
          "Jacobians | products per Jacobian | factorizations")
    for n in [int(s) for s in arguments.sizes.split(",")]:
        sparse = os.path.join(arguments.folder, f"heat_{n}.fmu")
        variants = [("sparse", sparse)]
        if n <= DENSE_UP_TO:
            dense = os.path.join(scratch, f"heat_{n}_dense.fmu")
            without_dependencies(sparse, dense)
            variants.append(("dense", dense))
        for label, fmu in variants:
            for solver in ["esdirk", "auto"]:
                command = [arguments.tandem, "simulate", fmu, "--interface-type", "me",
                           "--solver", solver, "--stop-time", "1", "--output-file", out]
                times, runs = [], []
                for _ in range(arguments.runs):
                    elapsed, stderr = timed(command)
                    s = tandem_summary(stderr)
                    times.append(elapsed)
                    runs.append(s["run"])
                wall = statistics.median(times)
                run = statistics.median(runs)
                per_jacobian = s["products"] / s["jacobians"] if s["jacobians"] else 0
                print(f"{n} | {label} | {solver} | {wall:.4f} | {run:.4f} | "
                      f"{s['steps']} ({s['rejected']}) | {1e3 * run / s['steps']:.3f} | "
                      f"{s['jacobians']} | {per_jacobian:g} | "
                      f"{s['factorizations']}", flush=True)
    fmpy = os.path.join(os.path.dirname(sys.executable), "fmpy")
    for n in [int(s) for s in arguments.fmpy.split(",") if s]:
        fmu = os.path.join(arguments.folder, f"heat_{n}.fmu")
        command = [fmpy, "simulate", fmu, "--interface-type", "ModelExchange", "--solver",
                   "CVode", "--stop-time", "1", "--relative-tolerance", "1e-6",
                   "--output-file", out]
        times = [timed(command)[0] for _ in range(arguments.runs)]
        print(f"{n} | FMPy 0.3.32 CVode (dense) | - | {statistics.median(times):.4f} | - | - | "
              "- | - | - | -", flush=True)


main()
