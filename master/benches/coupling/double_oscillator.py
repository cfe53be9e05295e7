"""Coupling on the double oscillator of the energy study (docs/benchmarks.md, "Coupling:
implicit against explicit on a stiff spring, adaptive against fixed steps").

The system is master/systems/energy-double-oscillator.toml (Jacobi, zero-order hold, 10 s),
its masses Co-Simulation FMUs taking one symplectic Euler step per macro step (or, with
`--me`, Model Exchange FMUs the master integrates). Every run is a whole `tandem run`; the
tables give the largest drift of the total energy from its start value, the largest position
error against the closed-form solution (relative to the largest displacement), the macro
steps, and the wall time of the whole process (median of `runs`, taken in turn).

    python double_oscillator.py stiff path/to/tandem path/to/fmu-folder [runs]
    python double_oscillator.py adaptive path/to/tandem path/to/fmu-folder [runs]
    python double_oscillator.py five-dof path/to/tandem path/to/fmu-folder [runs]
    python double_oscillator.py damped path/to/tandem path/to/fmu-folder [runs]
    python double_oscillator.py waveform path/to/tandem path/to/fmu-folder [runs]
    python double_oscillator.py five-dof-waveform path/to/tandem path/to/fmu-folder [runs]

`stiff`: the coupling spring kc = 1e4 and 1e5 N/m, explicit and implicit (`--implicit auto`)
coupling over macro steps from 10 us to 10 ms, with the Newton iterations per step.
`adaptive`: kc = 100 N/m (the study's case), fixed macro steps against error-controlled
ones (`--adaptive`) and ECCO over a range of tolerances, each with the energy correction off
and on (ECCO off only), the masses as Co-Simulation and as Model Exchange FMUs.
`five-dof`: the same comparison on master/systems/energy-oscillator-5dof.toml, mass 1 split
into four Co-Simulation masses with a bond each, whose motion is the double oscillator's.
`damped`: the same comparison on case 1, master/systems/energy-double-oscillator-damped.toml
(every damper at 0.01 N s/m), against classical Runge-Kutta steps of 0.1 ms of its equations.
`waveform`: the masses Model Exchange FMUs, implicit coupling with the inputs on the line and
on the Hermite cubic (`implicit = { waveform = ... }`): kc = 100 N/m (the study's case) over
macro steps from 1 ms to 50 ms and with adaptive steps (tolerances 1e-1 to 1e-3), kc = 1e4 and
1e5 N/m from 0.25 ms to 4 ms.
`five-dof-waveform`: the 5-DOF oscillator at kc = 100 N/m, its five masses Model Exchange
FMUs coupled implicitly on the line and on the Hermite cubic, fixed and adaptive steps, against
explicit coupling at 1 ms (Co-Simulation and Model Exchange masses).

The FMU folder holds coupled_mass.fmu, mass.fmu and summing_mass.fmu (FMI 3.0): `cargo xtask fmus` builds them
into target/fmus/fmi3.
"""

import csv
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

SYSTEMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "systems")
SYSTEM = os.path.join(SYSTEMS, "energy-double-oscillator.toml")
# Mass 1 split into four (m1..m4), mass 2 is m5: the same motion.
FIVE_DOF = os.path.join(SYSTEMS, "energy-oscillator-5dof.toml")

# Case 1: every damper at 0.01 N s/m.
DAMPED = os.path.join(SYSTEMS, "energy-double-oscillator-damped.toml")
# The damped oscillator's trajectories, by coupling stiffness (computed once).
REFERENCES = {}

# m1 = m2 = 1 kg, k1 = 10 N/m, k2 = 1000 N/m; x(0) = 0, v(0) = (100, -100) m/s.
M, K1, K2, V0 = 1.0, 10.0, 1000.0, (100.0, -100.0)


def closed_form(kc):
    """The positions x1(t), x2(t) of the undamped oscillator by its two modes."""
    a, b, d = (K1 + kc) / M, -kc / M, (K2 + kc) / M
    mean, half = (a + d) / 2, math.hypot((a - d) / 2, b)
    modes = []
    for omega2 in (mean - half, mean + half):
        # An eigenvector of [[a, b], [b, d]] for omega2, normalized.
        vx, vy = (b, omega2 - a) if abs(b) > 1e-300 else (1.0, 0.0)
        norm = math.hypot(vx, vy)
        vx, vy = vx / norm, vy / norm
        amplitude = (vx * V0[0] + vy * V0[1]) / math.sqrt(omega2)
        modes.append((math.sqrt(omega2), vx * amplitude, vy * amplitude))

    def positions(t):
        return tuple(
            sum(shape[i] * math.sin(omega * t) for omega, *shape in modes) for i in (0, 1)
        )

    return positions


def damped_reference(kc, c=0.01, stop=10.0, h=1e-4):
    """The positions x1(t), x2(t) of the damped oscillator (every damper `c`), by classical
    Runge-Kutta steps of `h` and the cubic through the positions and velocities at both ends
    of a step between them (relative error about 1e-10 at h = 1e-4)."""
    def rates(x1, x2, v1, v2):
        coupling = kc * (x1 - x2) + c * (v1 - v2)
        return (v1, v2, (-K1 * x1 - c * v1 - coupling) / M, (-K2 * x2 - c * v2 + coupling) / M)

    y = (0.0, 0.0, V0[0], V0[1])
    states = [y]
    for _ in range(int(round(stop / h))):
        k1 = rates(*y)
        k2 = rates(*(a + 0.5 * h * b for a, b in zip(y, k1)))
        k3 = rates(*(a + 0.5 * h * b for a, b in zip(y, k2)))
        k4 = rates(*(a + h * b for a, b in zip(y, k3)))
        y = tuple(a + h / 6 * (b + 2 * c2 + 2 * c3 + d)
                  for a, b, c2, c3, d in zip(y, k1, k2, k3, k4))
        states.append(y)

    def positions(t):
        k = min(int(t / h), len(states) - 2)
        s = t / h - k
        y0, y1 = states[k], states[k + 1]
        # The cubic Hermite basis on [0, 1].
        h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
        h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
        return tuple(h00 * y0[i] + h10 * h * y0[i + 2] + h01 * y1[i] + h11 * h * y1[i + 2]
                     for i in (0, 1))

    return positions


def run(tandem, fmus, kc, options, folder, model_exchange=False, schedule=None,
        system=SYSTEM):
    """One run of `system` with `options` (and the line `schedule` added to its schedule):
    wall time, energy drift, relative position error, macro steps, Newton iterations per
    step (None without implicit coupling)."""
    second = "m5.position" if system == FIVE_DOF else "m2.position"
    damped = system == DAMPED
    with open(system) as f:
        text = f.read().replace("kc = 100.0,", f"kc = {kc!r},", 1)
    if schedule:
        text = text.replace('extrapolation = "zoh"', f'extrapolation = "zoh"\n{schedule}', 1)
    if model_exchange:
        for name in ("m1", "m2", "m3", "m4", "m5") if system == FIVE_DOF else ("m1", "m2"):
            text = text.replace(f'name = "{name}"', f'name = "{name}"\ninterface = "me"', 1)
    system = os.path.join(folder, "double-oscillator.toml")
    with open(system, "w") as f:
        f.write(text)
    output = os.path.join(folder, "result.csv")
    command = [tandem, "run", system, "--fmu-dir", fmus, "--output-file", output,
               "--log-level", "off", *options]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    iterations = re.search(r"([0-9.]+) Newton iterations per step", done.stderr)
    iterations = float(iterations.group(1)) if iterations else None
    steps = re.search(r"in ([0-9]+) macro steps", done.stderr)
    steps = int(steps.group(1)) if steps else None
    exact = REFERENCES.setdefault(kc, damped_reference(kc)) if damped else closed_form(kc)
    drift, error, largest = 0.0, 0.0, 0.0
    with open(output) as f:
        rows = list(csv.DictReader(f))
    e0 = float(rows[0]["total_energy"])
    for row in rows:
        t = float(row["time"])
        x = (float(row["m1.position"]), float(row[second]))
        reference = exact(t)
        drift = max(drift, abs(float(row["total_energy"]) - e0) / e0)
        error = max(error, *(abs(a - b) for a, b in zip(x, reference)))
        largest = max(largest, *(abs(r) for r in reference))
    failed = done.returncode != 0 or float(rows[-1]["time"]) < 10.0 - 1e-9
    if failed:
        drift = error = math.inf
    return wall, drift, error / largest, steps, iterations


def repeated(runs, *arguments, **keywords):
    """`runs` runs of `run(*arguments)`: the first's results with the median wall time."""
    results = [run(*arguments, **keywords) for _ in range(runs)]
    return (statistics.median(r[0] for r in results), *results[0][1:])


def stiff(tandem, fmus, runs, folder):
    steps = [1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2]
    print("| kc (N/m) | coupling | H (s) | macro steps | energy drift | position error | "
          "Newton iterations per step | wall time (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kc in (1e4, 1e5):
        for implicit in (False, True):
            for step in steps:
                options = ["--step-size", repr(step)] + (["--implicit", "auto"] * implicit)
                wall, drift, error, count, iterations = repeated(
                    runs, tandem, fmus, kc, options, folder)
                label = "implicit" if implicit else "explicit"
                newton = f"{iterations:.2f}" if iterations is not None else ""
                print(f"| {kc:g} | {label} | {step:g} | {count} | {drift:.3g} | {error:.3g} "
                      f"| {newton} | {wall:.3f} |")


def waveform(tandem, fmus, runs, folder):
    stiff_steps = [2.5e-4, 5e-4, 1e-3, 2e-3, 4e-3]
    cases = [(100.0, [1e-3, 5e-3, 1e-2, 2e-2, 5e-2]), (1e4, stiff_steps), (1e5, stiff_steps)]
    print("| kc (N/m) | waveform | H (s) or tolerance | macro steps | energy drift | position error | "
          "Newton iterations per step | wall time (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kc, steps in cases:
        for curve in ("line", "hermite"):
            schedule = f'implicit = {{ waveform = "{curve}" }}'
            options = [(f"{step:g}", ["--step-size", repr(step)]) for step in steps]
            # Adaptive steps on the study's case, the error estimated on the waveform.
            if kc == 100.0:
                options += [(f"adaptive {t:g}", ["--adaptive", repr(t)])
                            for t in (1e-1, 1e-2, 1e-3)]
            for label, option in options:
                wall, drift, error, count, iterations = repeated(
                    runs, tandem, fmus, kc, option, folder, model_exchange=True,
                    schedule=schedule)
                newton = f"{iterations:.2f}" if iterations is not None else ""
                print(f"| {kc:g} | {curve} | {label} | {count} | {drift:.3g} | {error:.3g} "
                      f"| {newton} | {wall:.3f} |")


def five_dof_waveform(tandem, fmus, runs, folder):
    print("| masses | coupling | H (s) or tolerance | macro steps | energy drift | position error | "
          "Newton iterations per step | wall time (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    # The reference: explicit coupling at the study's step.
    cases = [(me, "explicit", None, "0.001", ["--step-size", "1e-3"]) for me in (False, True)]
    for curve in ("line", "hermite"):
        schedule = f'implicit = {{ waveform = "{curve}" }}'
        cases += [(True, curve, schedule, f"{h:g}", ["--step-size", repr(h)])
                  for h in (5e-3, 2e-2, 5e-2)]
        cases += [(True, curve, schedule, f"adaptive {t:g}", ["--adaptive", repr(t)])
                  for t in (1e-1, 1e-2)]
    for model_exchange, label, schedule, value, options in cases:
        wall, drift, error, count, iterations = repeated(
            runs, tandem, fmus, 100.0, options + ["--energy-correction", "off"], folder,
            model_exchange=model_exchange, schedule=schedule, system=FIVE_DOF)
        masses = "Model Exchange" if model_exchange else "Co-Simulation"
        newton = f"{iterations:.2f}" if iterations is not None else ""
        print(f"| {masses} | {label} | {value} | {count} | {drift:.3g} | {error:.3g} "
              f"| {newton} | {wall:.3f} |")


def adaptive(tandem, fmus, runs, folder, system=SYSTEM):
    fixed = [4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4]
    tolerances = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4]
    print("| masses | steps | energy correction | H (s) or tolerance | macro steps | "
          "energy drift | position error | wall time (s) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    # The 5-DOF oscillator's masses are Co-Simulation FMUs only.
    for model_exchange in (False,) if system == FIVE_DOF else (False, True):
        masses = "Model Exchange" if model_exchange else "Co-Simulation"
        cases = []
        for correction in ("off", "on"):
            switch = ["--energy-correction", correction]
            cases += [("fixed", correction, switch + ["--step-size", repr(h)], None, h)
                      for h in fixed]
            cases += [("error", correction, switch + ["--adaptive", repr(t)], None, t)
                      for t in tolerances]
        # ECCO with the correction is refused (it makes the error larger).
        cases += [("ECCO", "off", ["--energy-correction", "off"],
                   f'adaptive = {{ method = "ecco", tolerance = {t!r} }}', t)
                  for t in tolerances]
        for label, correction, options, schedule, value in cases:
            wall, drift, error, count, _ = repeated(
                runs, tandem, fmus, 100.0, options, folder, model_exchange=model_exchange,
                schedule=schedule, system=system)
            print(f"| {masses} | {label} | {correction} | {value:g} | {count} | {drift:.3g} "
                  f"| {error:.3g} | {wall:.3f} |")


def main():
    table, tandem, fmus = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    with tempfile.TemporaryDirectory() as folder:
        tables = {
            "stiff": stiff,
            "adaptive": adaptive,
            "five-dof": lambda *a: adaptive(*a, system=FIVE_DOF),
            "damped": lambda *a: adaptive(*a, system=DAMPED),
            "waveform": waveform,
            "five-dof-waveform": five_dof_waveform,
        }
        tables[table](tandem, fmus, runs, folder)


if __name__ == "__main__":
    main()
