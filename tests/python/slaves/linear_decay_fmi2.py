"""Linear decay x' = -k x as an FMI 2.0 co-simulation slave, advanced with the exact step
x(t + h) = x(t) exp(-k h), so any master must reproduce x0 exp(-k t) to rounding."""

import math

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real


class LinearDecay(Fmi2Slave):
    author = "Tandem tests"
    description = "Exact exponential decay"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.k = 0.5
        self.x0 = 2.0
        self.x = self.x0
        self.register_variable(Real("k", causality=Fmi2Causality.parameter, variability=Fmi2Variability.tunable))
        self.register_variable(Real("x0", causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed))
        self.register_variable(Real("x", causality=Fmi2Causality.output))

    def exit_initialization_mode(self):
        self.x = self.x0

    def do_step(self, current_time, step_size):
        self.x *= math.exp(-self.k * step_size)
        return True
