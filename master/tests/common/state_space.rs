//! The Reference-FMUs' StateSpace (FMI 3.0, `x' = A x + B u`, `y = C x + D u` with array
//! parameters) as components of TOML systems whose values are known exactly.

/// Component `a`, an integrator of its inputs: A = 0, B = I, C = I, D = 0, x0 = 0,
/// u = [1, 2, 3], so that y[i] = B[i,i] u[i] t exactly (also under the FMU's explicit Euler
/// steps).
pub const RAMP: &str = "[[component]]\nname = \"a\"\nfmu = \"StateSpace.fmu\"\n\
    parameters = { A = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], B = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \
    C = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], D = [[0, 0, 0], [0, 0, 0], [0, 0, 0]] }\n\
    start = { u = [1.0, 2.0, 3.0] }\n\n";

/// Component `b`, a pass-through of its inputs: A = B = C = 0, D = I, so that y = u (u starts
/// at [1, 2, 3]).
pub const PASS: &str = "[[component]]\nname = \"b\"\nfmu = \"StateSpace.fmu\"\n\
    parameters = { A = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], B = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], \
    C = [[0, 0, 0], [0, 0, 0], [0, 0, 0]], D = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }\n\n";
