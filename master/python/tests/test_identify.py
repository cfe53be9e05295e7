"""``tandem.identify`` against ``tandem identify`` on the shipped double oscillator of Tandem's
FMUs, its coupling spring started 30 % off the value that made the measurements: the same
iterations, fit and files to the last bit, the progress callback told of every iteration,
wrong arguments refused with the command's message."""

import pytest

import tandem
from conftest import SYSTEMS

SYSTEM = SYSTEMS / "double-oscillator-jacobi.toml"
STOP = "0.2"


@pytest.fixture
def problem(tmp_path, test_fmus):
    """The system with the spring at 70 instead of 100, and measurements of mass2's position
    made with 100."""
    rows, _ = tandem.run(SYSTEM, stop_time=float(STOP), fmu_dir=test_fmus)
    data = tmp_path / "measured.csv"
    lines = [f"{float(t)!r},{float(x)!r}" for t, x in zip(rows["time"], rows["mass2.position"])]
    data.write_text("time,mass2.position\n" + "\n".join(lines) + "\n")
    system = tmp_path / "system.toml"
    text = SYSTEM.read_text()
    assert "parameters = { k = 100.0, c = 0.0, l0 = 0.0 }" in text
    system.write_text(text.replace("k = 100.0, c = 0.0", "k = 70.0, c = 0.0"))
    return system, data


def printed_fit(stdout):
    """The iterations, the summary line's numbers and the parameter table of the command."""
    lines = stdout.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("iteration")))
    iterations = []
    for line in lines[start + 1:]:
        if line.startswith("J from "):
            summary = line
            break
        number, cost, norm = line.split()
        iterations.append((int(number), float(cost), float(norm)))
    words = summary.split()
    evaluations = int(words[5].lstrip("("))
    stopped = summary.split("evaluations); ")[1]
    header = lines.index(next(line for line in lines if line.startswith("parameter")))
    table = [line.split() for line in lines[header + 1:] if line.strip()]
    return iterations, (float(words[2]), float(words[4]), evaluations, stopped), table


def test_the_fit_is_the_command_lines(cli, tmp_path, test_fmus, problem):
    system, data = problem
    heard = []
    fit = tandem.identify(
        system,
        parameters="spring.k=10:1000",
        data=data,
        weights={"mass2.position": 2.5},
        stop_time=float(STOP),
        fmu_dir=test_fmus,
        output=tmp_path / "ours.toml",
        plot=tmp_path / "ours.svg",
        progress=lambda *iteration: heard.append(iteration),
    )
    stdout, _ = cli(
        "identify", system, "--parameters", "spring.k=10:1000", "--data", data,
        "--weights", "mass2.position=2.5", "--stop-time", STOP, "--fmu-dir", test_fmus,
        "--output", tmp_path / "theirs.toml", "--plot", tmp_path / "theirs.svg",
    )
    iterations, (start_cost, cost, evaluations, stopped), table = printed_fit(stdout)
    assert heard == iterations and len(iterations) > 2
    assert list(fit["iterations"]) == ["iteration", "cost", "gradient_norm"]
    assert [
        (int(n), c, g) for n, c, g in zip(*fit["iterations"].values())
    ] == iterations
    assert (fit["start_cost"], fit["cost"], fit["evaluations"], fit["stopped"]) == (
        start_cost, cost, evaluations, stopped
    )
    [[name, start, fitted, lower, upper, method]] = table
    assert name == "spring.k" and fit["start"] == {name: 70.0} and float(start) == 70.0
    assert fit["fitted"] == {name: float(fitted)}
    assert (fit["lower"], fit["upper"]) == ({name: 10.0}, {name: 1000.0})
    assert fit["methods"] == {name: method} == {name: "adjoint"}
    assert abs(fit["fitted"][name] - 100.0) < 1e-6 * 100.0
    assert (tmp_path / "ours.toml").read_bytes() == (tmp_path / "theirs.toml").read_bytes()
    assert (tmp_path / "ours.svg").read_bytes() == (tmp_path / "theirs.svg").read_bytes()


def test_nothing_is_written_unless_asked(tmp_path, test_fmus, problem, monkeypatch):
    system, data = problem
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.iterdir())
    fit = tandem.identify(
        system, parameters=["spring.k=10:"], data=data, stop_time=0.05, fmu_dir=test_fmus,
        max_iterations=2,
    )
    assert sorted(tmp_path.iterdir()) == before
    assert fit["upper"] == {"spring.k": None} and len(fit["iterations"]["cost"]) <= 3


def message(**keywords):
    with pytest.raises(tandem.TandemError) as raised:
        tandem.identify(**keywords)
    return str(raised.value)


def test_wrong_arguments_are_refused_with_the_command_lines_message(cli, test_fmus, problem):
    system, data = problem
    assert message(system_file=SYSTEM, parameters="spring.k") == cli.error(
        "identify", SYSTEM, "--parameters", "spring.k"
    )
    assert message(system_file=system, parameters="spring.k=1000:10", data=data) == cli.error(
        "identify", system, "--parameters", "spring.k=1000:10", "--data", data
    )
    assert message(
        system_file=system, parameters="spring.kk=1:2", data=data, fmu_dir=test_fmus
    ) == cli.error(
        "identify", system, "--parameters", "spring.kk=1:2", "--data", data,
        "--fmu-dir", test_fmus,
    )
