"""Linear decay x' = -k x as an FMI 3.0 Model Exchange FMU: the master integrates it."""

from pythonfmu3 import Fmi3Causality, Fmi3Initial, Fmi3SlaveBase, Fmi3Variability, Float64, ModelExchange


class Decay(Fmi3SlaveBase, ModelExchange):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author = "Tandem tests"
        self.description = "x' = -k x"
        self.time = 0.0
        self.x = 1.0
        self.der_x = 0.0
        self.k = 1.0
        self.register_variable(Float64("time", causality=Fmi3Causality.independent, variability=Fmi3Variability.continuous))
        self.register_variable(Float64("x", causality=Fmi3Causality.output, variability=Fmi3Variability.continuous, initial=Fmi3Initial.exact, start=1.0))
        self.register_variable(Float64("der_x", causality=Fmi3Causality.local, variability=Fmi3Variability.continuous, derivative=1))
        self.register_variable(Float64("k", causality=Fmi3Causality.parameter, variability=Fmi3Variability.fixed))

    def get_continuous_state_derivatives(self):
        self.der_x = -self.k * self.x
        return [self.der_x]
