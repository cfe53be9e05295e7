"""An FMI 2.0 co-simulation slave whose output turns NaN from the time `t_nan` on, to check
that a master stops with an error naming the variable and the time and keeps the earlier
results."""

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real


class NanOutput(Fmi2Slave):
    author = "Tandem tests"
    description = "y = t until t_nan, then NaN"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.t_nan = 0.5
        self.y = 0.0
        self.register_variable(Real("t_nan", causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed))
        self.register_variable(Real("y", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        t = current_time + step_size
        self.y = t if t < self.t_nan - 1e-9 else float("nan")
        return True
