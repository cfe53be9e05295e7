"""A bouncing ball as an FMI 3.0 Model Exchange FMU with one event indicator (the height):
the master must locate each impact and run the event iteration that reverses the velocity."""

import sys

from pythonfmu3 import (
    Fmi3Causality,
    Fmi3Initial,
    Fmi3SlaveBase,
    Fmi3UpdateDiscreteStatesResult,
    Fmi3Variability,
    Float64,
    ModelExchange,
)


class BouncingBall(Fmi3SlaveBase, ModelExchange):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author = "Tandem tests"
        self.description = "h' = v, v' = -g, v -> -e v at h = 0"
        self.time = 0.0
        self.h = 1.0
        self.der_h = 0.0
        self.v = 0.0
        self.der_v = 0.0
        self.g = 9.81
        self.e = 0.5
        self.register_variable(Float64("time", causality=Fmi3Causality.independent, variability=Fmi3Variability.continuous))
        self.register_variable(
            Float64("h", causality=Fmi3Causality.output, variability=Fmi3Variability.continuous, initial=Fmi3Initial.exact, start=1.0),
            has_event_indicator=True,
        )
        self.register_variable(Float64("der_h", causality=Fmi3Causality.local, variability=Fmi3Variability.continuous, derivative=1))
        self.register_variable(Float64("v", causality=Fmi3Causality.output, variability=Fmi3Variability.continuous, initial=Fmi3Initial.exact, start=0.0))
        self.register_variable(Float64("der_v", causality=Fmi3Causality.local, variability=Fmi3Variability.continuous, derivative=3))
        self.register_variable(Float64("g", causality=Fmi3Causality.parameter, variability=Fmi3Variability.fixed))
        self.register_variable(Float64("e", causality=Fmi3Causality.parameter, variability=Fmi3Variability.tunable))

    def get_continuous_state_derivatives(self):
        self.der_h = self.v
        self.der_v = -self.g
        return [self.der_h, self.der_v]

    def get_event_indicators(self):
        return [self.h]

    def update_discrete_states(self):
        result = Fmi3UpdateDiscreteStatesResult()
        if self.h <= 0.0 and self.v < 0.0:
            # Just above the ground, so the indicator does not cross zero again on the way up.
            self.h = sys.float_info.min
            self.v = -self.e * self.v
            result.valuesOfContinuousStatesChanged = True
        return result
