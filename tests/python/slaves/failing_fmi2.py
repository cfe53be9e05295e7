"""An FMI 2.0 co-simulation slave whose step fails from t = 0.5 on, to check that a master
keeps the results written before the failure and reports the failing call."""

from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class Failing(Fmi2Slave):
    author = "Tandem tests"
    description = "y = t until t = 0.5, then doStep fails"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.y = 0.0
        self.register_variable(Real("y", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        if current_time >= 0.5 - 1e-9:
            raise RuntimeError("the slave breaks at t = 0.5")
        self.y = current_time + step_size
        return True
