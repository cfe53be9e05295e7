"""``tandem.gradient`` against ``tandem gradient`` on the shipped gradient system (the double
oscillator with the energy correction, Tandem's FMUs with the adjoint extension): the same
cost and derivatives to the last bit, by the same methods."""

import tandem
from conftest import SYSTEMS

SYSTEM = SYSTEMS / "energy-double-oscillator-gradient.toml"


def printed_gradient(stdout):
    """The cost and, by parameter, value, derivative and method of ``tandem gradient``'s
    table."""
    lines = stdout.splitlines()
    cost = float(next(line for line in lines if line.startswith("J = "))[4:])
    header = next(i for i, line in enumerate(lines) if line.startswith("parameter"))
    table = {}
    for line in lines[header + 1:]:
        if not line.strip() or line.startswith("finite differences because"):
            break
        name, value, derivative, *method = line.split()
        table[name] = (float(value), float(derivative), " ".join(method))
    return cost, table


def check(ours, stdout):
    cost, table = printed_gradient(stdout)
    assert ours["cost"] == cost
    assert list(ours["gradient"]) == list(table)
    for name, (value, derivative, method) in table.items():
        assert ours["values"][name] == value
        assert ours["gradient"][name] == derivative, name
        assert ours["methods"][name].split(":")[0] == method


def test_the_sections_gradient_is_the_command_lines(cli, test_fmus):
    ours = tandem.gradient(SYSTEM, fmu_dir=test_fmus, stop_time=0.1)
    stdout, _ = cli("gradient", SYSTEM, "--fmu-dir", test_fmus, "--stop-time", "0.1")
    check(ours, stdout)
    assert list(ours["gradient"]) == ["m1.kc", "m1.k", "m2.m", "m2.k"]
    assert set(ours["methods"].values()) == {"adjoint"}
    assert all(derivative != 0 for derivative in ours["gradient"].values())


def test_parameters_and_cost_given_replace_the_sections(cli, test_fmus):
    ours = tandem.gradient(
        SYSTEM,
        parameters=["m2.m", "m1.k"],
        cost="final:m2.position + 0.5*integral:m1.position",
        fmu_dir=test_fmus,
        stop_time=0.05,
        energy_correction=False,
        checkpoint_interval=7,
    )
    stdout, _ = cli(
        "gradient", SYSTEM, "--fmu-dir", test_fmus, "--stop-time", "0.05",
        "--parameters", "m2.m,m1.k", "--cost", "final:m2.position + 0.5*integral:m1.position",
        "--energy-correction", "off", "--checkpoint-interval", "7",
    )
    check(ours, stdout)
    assert list(ours["gradient"]) == ["m2.m", "m1.k"]


def test_an_unknown_parameter_is_refused_with_the_command_lines_message(cli, test_fmus):
    try:
        tandem.gradient(SYSTEM, parameters=["m3.k"], fmu_dir=test_fmus)
    except tandem.TandemError as error:
        message = str(error)
    else:
        raise AssertionError("an unknown parameter was accepted")
    assert message == cli.error("gradient", SYSTEM, "--fmu-dir", test_fmus, "--parameters", "m3.k")
    assert "m3" in message
