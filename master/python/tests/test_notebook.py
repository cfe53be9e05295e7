"""The example notebook ``master/python/examples/tour.ipynb``: a valid nbformat 4 file with its
outputs cleared, whose code cells, executed in order in one namespace (as a kernel would run
them, with matplotlib's Agg backend), pass the ``assert``s they hold and draw their figures."""

import json
import tempfile

from conftest import EXAMPLES, save_figures

NOTEBOOK = EXAMPLES / "tour.ipynb"


def cells(path):
    """The cells of the notebook ``path``, after checking the nbformat 4 layout they need."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and isinstance(notebook["metadata"], dict)
    for cell in notebook["cells"]:
        assert cell["cell_type"] in ("markdown", "code"), cell["cell_type"]
        assert isinstance(cell["source"], (str, list)) and isinstance(cell["metadata"], dict)
    return notebook["cells"]


def source(cell):
    """A cell's text (nbformat stores it as one string or as a list of lines)."""
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def test_the_notebook_is_nbformat_4_with_its_outputs_cleared_and_documents_its_fmu_folder():
    notebook = cells(NOTEBOOK)
    code = [cell for cell in notebook if cell["cell_type"] == "code"]
    assert len(code) >= 4
    assert all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code)
    assert notebook[0]["cell_type"] == "markdown"
    assert "TANDEM_FMUS" in source(notebook[0]) and "cargo xtask fmus" in source(notebook[0])
    # Plain Python: IPython's magics and shell escapes would not run outside a kernel.
    for cell in code:
        assert not any(line.lstrip().startswith(("%", "!")) for line in source(cell).splitlines())


def test_the_notebooks_code_runs_passes_its_checks_and_draws(
    pyplot, tmp_path, test_fmus, monkeypatch
):
    monkeypatch.setenv("TANDEM_FMUS", str(test_fmus))
    # The notebook's own scratch folder (tempfile.mkdtemp) inside the test's, removed with it.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # Where Jupyter starts the notebook: its own folder.
    monkeypatch.chdir(NOTEBOOK.parent)
    namespace = {"__name__": "__main__"}
    for number, cell in enumerate(cells(NOTEBOOK)):
        if cell["cell_type"] == "code":
            exec(compile(source(cell), f"{NOTEBOOK.name}, cell {number}", "exec"), namespace)
    # What the parts left behind: the simulation, the gradient, the fit and the sweep's table.
    assert namespace["result"].dtype.names == ("time", "x0", "x1")
    assert set(namespace["gradient"]["methods"].values()) == {"adjoint"}
    assert namespace["fit"]["methods"] == {"spring.k": "adjoint"}
    assert namespace["runs"].shape[0] == 81
    # Three figures: the Van der Pol oscillator, the fit's costs and the sweep's contours.
    figures = save_figures(pyplot, tmp_path)
    assert len(figures) == 3
