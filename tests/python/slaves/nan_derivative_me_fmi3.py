"""Linear decay x' = -x as an FMI 3.0 Model Exchange FMU whose derivative turns NaN from the
time `t_nan` on, to check that a master's solver stops with an error naming the derivative
and the time instead of shrinking its step forever."""

from pythonfmu3 import Fmi3Causality, Fmi3Initial, Fmi3SlaveBase, Fmi3Variability, Float64, ModelExchange


class NanDerivative(Fmi3SlaveBase, ModelExchange):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author = "Tandem tests"
        self.description = "x' = -x until t_nan, then NaN"
        self.time = 0.0
        self.x = 1.0
        self.der_x = 0.0
        self.t_nan = 0.5
        self.register_variable(Float64("time", causality=Fmi3Causality.independent, variability=Fmi3Variability.continuous))
        self.register_variable(Float64("x", causality=Fmi3Causality.output, variability=Fmi3Variability.continuous, initial=Fmi3Initial.exact, start=1.0))
        self.register_variable(Float64("der_x", causality=Fmi3Causality.local, variability=Fmi3Variability.continuous, derivative=1))
        self.register_variable(Float64("t_nan", causality=Fmi3Causality.parameter, variability=Fmi3Variability.fixed))

    def get_continuous_state_derivatives(self):
        self.der_x = -self.x if self.time < self.t_nan else float("nan")
        return [self.der_x]
