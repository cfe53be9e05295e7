"""What the tests of the ``tandem`` package share: the fixtures' paths, the command line run
on the same input, its result file read back as the structured array ``tandem`` returns, and
matplotlib without a display with a check that its figures were drawn.

``master/tests/python_package.rs`` builds the package into the tests' Python environment and
runs these tests with ``TANDEM_BIN`` (the ``tandem`` binary), ``TANDEM_TEST_FMUS`` (the folder
of Tandem's FMI 3.0 test FMUs) and ``TANDEM_FAULTY_FMU`` (an FMU whose step fails from a
given time on) set.
"""

import csv
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

MASTER = Path(__file__).resolve().parents[2]
REFERENCE_FMUS = MASTER / "tests" / "fixtures" / "reference-fmus"
SYSTEMS = MASTER / "systems"
EXAMPLES = MASTER / "python" / "examples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def environment(name):
    """The path the variable ``name`` gives, which the Rust test driver sets."""
    value = os.environ.get(name)
    assert value, f"{name} is not set: run these tests through master/tests/python_package.rs"
    return Path(value)


def reference_fmu(version, model):
    """The Reference-FMU ``model`` of the FMI version folder ``version`` (fmi2, fmi3)."""
    return REFERENCE_FMUS / version / f"{model}.fmu"


def read_result(path):
    """A result file of the command line as a structured array of float64 fields (the file
    does not say the variables' types: ``assert_same_rows`` gives them)."""
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    header, data = rows[0], rows[1:]
    dtype = np.dtype({"names": header, "formats": ["f8"] * len(header)})
    return np.array([tuple(float(value) for value in row) for row in data], dtype=dtype)


def assert_same_rows(ours, theirs):
    """``ours``, a ``tandem`` result, holds the rows of ``theirs``, a result file read back,
    bit for bit: the same fields, and in each the file's values in the field's type (which
    must hold them exactly)."""
    assert ours.dtype.names == theirs.dtype.names
    assert len(ours) == len(theirs)
    typed = theirs.astype(ours.dtype)
    for name in theirs.dtype.names:
        assert np.array_equal(typed[name].astype("f8"), theirs[name], equal_nan=True), (
            f"the file's {name} does not fit {ours.dtype[name]}"
        )
    assert ours.tobytes() == typed.tobytes(), "the rows differ in some bit"


class Cli:
    """The ``tandem`` command line."""

    def __init__(self, binary):
        self.binary = binary

    def __call__(self, *arguments, fails=False):
        """Runs ``tandem arguments...``; returns standard output and error. The exit code
        must be 1 if ``fails``, else 0."""
        done = subprocess.run(
            [str(self.binary), *map(str, arguments)], capture_output=True, text=True
        )
        assert done.returncode == (1 if fails else 0), done.stderr
        return done.stdout, done.stderr

    def error(self, *arguments):
        """The message of a command that fails, without its ``error: ``."""
        _, stderr = self(*arguments, fails=True)
        line = stderr.strip().splitlines()[-1]
        assert line.startswith("error: "), stderr
        return line[len("error: "):]

    def result(self, command, target, *arguments, directory):
        """Runs ``tandem command target arguments...`` into a result file in ``directory``;
        returns the rows and the standard error."""
        output = Path(directory) / "cli.csv"
        _, stderr = self(command, target, *arguments, "--output-file", output)
        return read_result(output), stderr


@pytest.fixture(scope="session")
def cli():
    return Cli(environment("TANDEM_BIN"))


@pytest.fixture(scope="session")
def test_fmus():
    return environment("TANDEM_TEST_FMUS")


@pytest.fixture(scope="session")
def faulty_fmu():
    return environment("TANDEM_FAULTY_FMU")


def faulty_system(directory, fmu, stop, step, **parameters):
    """A system file in ``directory`` of the faulty FMU ``fmu`` alone as component ``f``, its
    output ``f.y`` (the time) recorded, run to ``stop`` in steps of ``step`` with
    ``parameters`` (``delay`` sleeps in every step, ``fail_at`` fails the steps from then)."""
    values = ", ".join(f"{name} = {value!r}" for name, value in parameters.items())
    path = Path(directory) / "faulty.toml"
    path.write_text(
        "connections = []\n\n"
        f"[experiment]\nstop = {stop!r}\nstep = {step!r}\n\n"
        f"[[component]]\nname = \"f\"\nfmu = '{fmu}'\nparameters = {{ {values} }}\n\n"
        "[output]\nvariables = [\"f.y\"]\n"
    )
    return path


@pytest.fixture
def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display), no figure open before the test
    and every figure closed after it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")


def save_figures(plt, directory):
    """Saves every open figure of ``plt`` as a PNG file in ``directory`` and returns the
    paths, in the figures' order; each figure must have drawn something (a line, a contour
    or another collection) on one of its axes."""
    paths = []
    for number in plt.get_fignums():
        figure = plt.figure(number)
        assert any(axes.lines or axes.collections for axes in figure.axes), (
            f"figure {number} has nothing drawn"
        )
        path = Path(directory) / f"figure-{number}.png"
        figure.savefig(path)
        assert path.read_bytes().startswith(PNG_SIGNATURE), path
        paths.append(path)
    return paths
