"""``tandem.codesign`` against ``tandem codesign`` on the shipped examples with Tandem's plant
FMUs: the cost, gain, eigenvalues and df/dd of the baseline design, the central differences
of ``check`` and the optimum and history of ``optimize`` are the command's to the last bit;
a problem that cannot be read is refused with the command's message."""

import csv

import pytest

import tandem
from conftest import MASTER

EXAMPLES = MASTER / "examples" / "codesign"


def shortened(tmp_path, name, steps):
    """The example ``name`` in ``tmp_path``, simulated for ``steps`` steps."""
    text = (EXAMPLES / f"{name}.toml").read_text()
    problem = tmp_path / f"{name}.toml"
    problem.write_text(text.replace("steps = 1000", f"steps = {steps}").replace(
        "steps = 2000", f"steps = {steps}"
    ))
    return problem


def numbers(text):
    """The numbers of ``[a, b, ...]``."""
    return [float(x) for x in text.strip().strip("[]").split(",")]


def table(lines, header):
    """The rows below the table whose header starts with ``header``, split at spaces."""
    start = next(k for k, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 1:]:
        if not line.strip() or not line[0].isalpha() or line.startswith(("closed loop", "wrote")):
            break
        rows.append(line.split())
    return rows


def test_the_baseline_and_the_check_are_the_command_lines(cli, tmp_path, test_fmus):
    problem = shortened(tmp_path, "cart-pole", 200)
    ours = tandem.codesign(problem, check=True, fmu_dir=test_fmus, step=1e-5)
    stdout, _ = cli("codesign", problem, "--check", "--fmu-dir", test_fmus, "--step", "1e-5")
    lines = stdout.splitlines()
    value = lambda prefix: next(line for line in lines if line.startswith(prefix))[len(prefix):]
    assert ours["f"] == float(value("f = "))
    assert ours["x_target"] == numbers(value("target x = "))
    assert ours["u_target"] == numbers(value("target u = "))
    # Printed to three digits.
    printed = float(value("Riccati relative residual "))
    assert ours["riccati_residual"] == pytest.approx(printed, rel=5e-3)
    gain_at = lines.index(next(line for line in lines if line.startswith("W (rows")))
    assert len(ours["W"]) == 1, "one input, the force"
    assert ours["W"] == [numbers(lines[gain_at + 1])]
    eigenvalues = value("closed-loop eigenvalues of J + G W: ").split(", ")
    assert [f"{l.real:.6f} {l.imag:+.6f}i" for l in ours["eigenvalues"]] == eigenvalues
    rows = table(lines, "parameter  value")
    assert list(ours["design"]) == [row[0] for row in rows] == ["m", "M", "L"]
    for name, value_, df_dd, closed_loop, seeds, steady_state in rows:
        assert ours["design"][name] == float(value_)
        assert ours["df_dd"][name] == float(df_dd)
        assert ours["closed_loop"][name] == float(closed_loop)
        assert ours["seeds"][name] == float(seeds)
        assert ours["steady_state"][name] == float(steady_state)
    assert f"ARE seeds: {ours['seed_method']}" in stdout
    for name, adjoint, differences, _ in table(lines, "parameter  adjoint"):
        assert ours["df_dd"][name] == float(adjoint)
        assert ours["differences"][name] == float(differences)
    assert ours["optimum"] is None


def test_the_optimum_and_its_history_are_the_command_lines(cli, tmp_path, test_fmus):
    problem = shortened(tmp_path, "mass-spring-damper", 300)
    ours = tandem.codesign(problem, optimize=True, fmu_dir=test_fmus)
    assert ours["differences"] is None
    cli("codesign", problem, "--optimize", "--fmu-dir", test_fmus)
    optimum = ours["optimum"]
    first, *written = (tmp_path / "mass-spring-damper_optimum.toml").read_text().splitlines()
    assert float(first.split(": f = ")[1].split()[0]) == optimum["f"]
    pairs = [line.split(" = ") for line in written]
    assert {name: float(value) for name, value in pairs} == optimum["design"]
    with open(tmp_path / "mass-spring-damper_history.csv", newline="") as file:
        header, *rows = list(csv.reader(file))
    assert header == ["evaluation", *optimum["history"]]
    for k, name in enumerate(header[1:], start=1):
        assert list(optimum["history"][name]) == [float(row[k]) for row in rows], name
    assert optimum["f"] < ours["f"] and optimum["kkt_residual"] >= 0
    assert optimum["status"] and isinstance(optimum["active"], list)


def test_a_problem_that_cannot_be_read_is_refused_with_the_command_lines_message(
    cli, tmp_path, test_fmus
):
    missing = tmp_path / "missing.toml"
    with pytest.raises(tandem.TandemError) as raised:
        tandem.codesign(missing)
    assert str(raised.value) == cli.error("codesign", missing)
    bad = shortened(tmp_path, "cart-pole", 200)
    bad.write_text(bad.read_text().replace('name = "L"', 'name = "length"'))
    with pytest.raises(tandem.TandemError) as raised:
        tandem.codesign(bad, fmu_dir=test_fmus)
    assert str(raised.value) == cli.error("codesign", bad, "--fmu-dir", test_fmus)
