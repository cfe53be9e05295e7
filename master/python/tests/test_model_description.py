"""``tandem.read_model_description``: FMPy's attribute names and values, array shapes, and
the interfaces an FMU implements."""

import fmpy

import tandem
from conftest import reference_fmu


def test_the_van_der_pol_oscillator_is_described_as_fmpy_describes_it():
    for version in ["fmi2", "fmi3"]:
        fmu = reference_fmu(version, "VanDerPol")
        ours = tandem.read_model_description(fmu)
        theirs = fmpy.read_model_description(str(fmu))
        assert ours.fmiVersion == theirs.fmiVersion == version[-1] + ".0"
        assert ours.modelName == theirs.modelName and "der Pol" in ours.modelName
        assert ours.instantiationToken == ours.guid == theirs.guid
        assert ours.numberOfContinuousStates == 2
        assert ours.defaultExperiment.stopTime == float(theirs.defaultExperiment.stopTime)
        assert ours.coSimulation.modelIdentifier == theirs.coSimulation.modelIdentifier
        assert ours.modelExchange.modelIdentifier == theirs.modelExchange.modelIdentifier
        assert ours.scheduledExecution is None
        assert len(ours.modelVariables) == len(theirs.modelVariables)
        for mine, fmpys in zip(ours.modelVariables, theirs.modelVariables):
            assert mine.name == fmpys.name
            assert mine.valueReference == fmpys.valueReference
            assert mine.type == fmpys.type
            assert mine.causality == fmpys.causality
            assert mine.variability == fmpys.variability
            assert mine.unit == (fmpys.unit or (fmpys.declaredType and fmpys.declaredType.unit))
            if fmpys.start is not None:
                assert mine.start == float(fmpys.start)
        mu = next(v for v in ours.modelVariables if v.name == "mu")
        assert (mu.causality, mu.variability, mu.start, mu.shape) == (
            "parameter", "fixed", 1.0, None
        )


def test_arrays_have_the_shape_of_their_structural_parameters():
    description = tandem.read_model_description(reference_fmu("fmi3", "StateSpace"))
    variables = {variable.name: variable for variable in description.modelVariables}
    assert variables["n"].causality == "structuralParameter"
    assert variables["n"].start == 3
    assert variables["A"].shape == (3, 3)
    assert variables["A"].start == [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    assert variables["x0"].shape == (3,)
    assert variables["y"].shape == (3,)
    assert variables["y"].start is None
    assert variables["time"].shape is None
    assert description.numberOfContinuousStates == 3


def test_a_fmi3_alias_is_listed_with_its_variable():
    description = tandem.read_model_description(reference_fmu("fmi3", "BouncingBall"))
    h = next(v for v in description.modelVariables if v.name == "h")
    assert h.aliases == ["h_ft"]
    assert h.unit == "m"
