"""FMPy's side of the arrays benchmark (docs/benchmarks.md, "Arrays: StateSpace against FMPy").

Simulates the Reference-FMUs' StateSpace (FMI 3.0) for 10 s with a CSV-sized result every
10 ms: A upper bidiagonal (-1 on the diagonal, 0.5 above), B = C = I, D = 0, u = [1, 2, 3].

    python state_space_fmpy.py StateSpace.fmu ModelExchange|CoSimulation
"""

import sys

from fmpy import simulate_fmu

N = 3  # FMPy sets no structural parameter (m, n, r): the FMU's default sizes


def matrix(entry):
    return [entry(i, j) for i in range(N) for j in range(N)]


result = simulate_fmu(
    sys.argv[1],
    fmi_type=sys.argv[2],
    stop_time=10.0,
    output_interval=0.01,
    start_values={
        "A": matrix(lambda i, j: -1.0 if i == j else (0.5 if j == i + 1 else 0.0)),
        "B": matrix(lambda i, j: 1.0 if i == j else 0.0),
        "C": matrix(lambda i, j: 1.0 if i == j else 0.0),
        "D": matrix(lambda i, j: 0.0),
        "u": [1.0, 2.0, 3.0],
    },
    output=["y"],
)
print(len(result), result[-1])
