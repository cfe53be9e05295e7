"""An integrator block y' = gain * u as an FMI 3.0 co-simulation slave, stepped with the
input held over each communication step (forward Euler on the input)."""

from pythonfmu3 import Fmi3Causality, Fmi3Slave, Fmi3Variability, Float64


class Integrator(Fmi3Slave):
    author = "Tandem tests"
    description = "y(t + h) = y(t) + gain * u(t) * h"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.time = 0.0
        self.u = 0.0
        self.y = 0.0
        self.gain = 1.0
        self.register_variable(Float64("time", causality=Fmi3Causality.independent, variability=Fmi3Variability.continuous))
        self.register_variable(Float64("u", causality=Fmi3Causality.input))
        self.register_variable(Float64("y", causality=Fmi3Causality.output))
        self.register_variable(Float64("gain", causality=Fmi3Causality.parameter, variability=Fmi3Variability.tunable))

    def do_step(self, current_time, step_size):
        self.y += self.gain * self.u * step_size
        self.time = current_time + step_size
        return True
