//! Connections of FMI 3.0 arrays in TOML systems, on the Reference-FMUs' StateSpace
//! (x' = A x + B u, y = C x + D u) and Feedthrough: a whole array to an array of its shape,
//! an element to a scalar and a scalar to an element, under Jacobi, against the values the
//! dynamics give; the connections refused; and arrays in SSP systems, directly and through
//! the connectors of a subsystem.

mod common;

use std::path::PathBuf;

use common::state_space::{PASS, RAMP};
use common::{read_csv, reference_fmu, tandem};

/// The macro step of every system here.
const H: f64 = 0.1;

/// The Feedthrough FMU, whose scalar outputs equal its inputs.
const FEEDTHROUGH: &str = "[[component]]\nname = \"f\"\nfmu = \"Feedthrough.fmu\"\n\n";

/// A system of `components` joined by `connections`, in a fresh folder with the FMUs.
struct System {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl System {
    fn new(connections: &[&str], components: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for name in ["StateSpace", "Feedthrough"] {
            std::fs::copy(reference_fmu(name), dir.path().join(format!("{name}.fmu"))).unwrap();
        }
        let connections: Vec<String> = connections.iter().map(|c| format!("{c:?}")).collect();
        let text = format!(
            "connections = [{}]\n\n[experiment]\nstop = 1.0\nstep = {H}\n\n\
             [schedule]\nkind = \"jacobi\"\n\n{}",
            connections.join(", "),
            components.concat()
        );
        let path = dir.path().join("system.toml");
        std::fs::write(&path, text).unwrap();
        System { dir, path }
    }

    /// Runs the system; the result's header and rows.
    fn run(&self) -> (Vec<String>, Vec<Vec<f64>>) {
        let result = self.dir.path().join("result.csv");
        tandem(&[
            "run",
            self.path.to_str().unwrap(),
            "--output-file",
            result.to_str().unwrap(),
        ])
        .assert_success();
        read_csv(&result)
    }

    /// Runs the system, expecting it refused with `message`.
    fn refused_with(&self, message: &str) {
        tandem(&["run", self.path.to_str().unwrap()]).assert_fails_with(message);
    }
}

/// The column `name` of `header`.
fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// Asserts that column `name` equals `expected(t)` at every row.
fn assert_column(header: &[String], rows: &[Vec<f64>], name: &str, expected: impl Fn(f64) -> f64) {
    let index = column(header, name);
    assert!(rows.len() > 10, "{} rows", rows.len());
    for row in rows {
        let (t, value) = (row[0], row[index]);
        let want = expected(t);
        assert!(
            (value - want).abs() < 1e-9,
            "{name} at t = {t}: {value}, expected {want}"
        );
    }
}

/// `t - lag`, or 0 before `lag`: the ramp's value `lag` earlier.
fn delayed(t: f64, lag: f64) -> f64 {
    (t - lag).max(0.0)
}

#[test]
fn an_array_feeds_an_array_of_its_shape_element_by_element() {
    let system = System::new(&["a.y -> b.u"], &[RAMP, PASS]);
    let (header, rows) = system.run();
    for i in 1..=3 {
        let k = i as f64;
        assert_column(&header, &rows, &format!("a.y[{i}]"), |t| k * t);
        // Under Jacobi b steps with a's output of the start of the macro step, and shows it
        // at the end: one macro step late.
        assert_column(&header, &rows, &format!("b.y[{i}]"), |t| k * delayed(t, H));
    }
}

#[test]
fn an_element_feeds_a_scalar_and_a_scalar_an_element() {
    let system = System::new(
        &[
            "a.y[2] -> f.Float64_continuous_input",
            "f.Float64_continuous_output -> b.u[1]",
        ],
        &[RAMP, FEEDTHROUGH, PASS],
    );
    let (header, rows) = system.run();
    assert_column(&header, &rows, "f.Float64_continuous_output", |t| {
        2.0 * delayed(t, H)
    });
    assert_column(&header, &rows, "b.y[1]", |t| 2.0 * delayed(t, 2.0 * H));
    // The elements no connection feeds keep their start values.
    assert_column(&header, &rows, "b.y[2]", |_| 2.0);
    assert_column(&header, &rows, "b.y[3]", |_| 3.0);
}

#[test]
fn arrays_of_different_shapes_are_refused_naming_both_ends() {
    let short = PASS.replace("parameters = {", "parameters = { m = 2,");
    let short = short.replace(
        "B = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]",
        "B = [[0, 0], [0, 0], [0, 0]]",
    );
    let short = short.replace(
        "D = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
        "D = [[1, 0], [0, 1], [0, 0]]",
    );
    System::new(&["a.y -> b.u"], &[RAMP, &short])
        .refused_with("connection \"a.y -> b.u\": shapes [3] of a.y and [2] of b.u differ");
}

#[test]
fn an_element_out_of_range_is_refused() {
    System::new(
        &["a.y[4] -> f.Float64_continuous_input"],
        &[RAMP, FEEDTHROUGH],
    )
    .refused_with(
        "connection \"a.y[4] -> f.Float64_continuous_input\": a.y[4]: the indices do not fit \
         the shape [3] of a.y",
    );
}

#[test]
fn a_whole_array_and_a_scalar_are_refused() {
    System::new(&["a.y -> f.Float64_continuous_input"], &[RAMP, FEEDTHROUGH]).refused_with(
        "connection \"a.y -> f.Float64_continuous_input\": shapes differ: a.y is an array of \
         shape [3] and f.Float64_continuous_input a single value",
    );
}

/// A StateSpace component `name` with its default matrices, as a TOML table.
fn state_space(name: &str) -> String {
    format!("[[component]]\nname = \"{name}\"\nfmu = \"StateSpace.fmu\"\n\n")
}

/// Two StateSpace FMUs with their default matrices (A = B = C = D = I, x0 = 0, u = [1, 2, 3])
/// as an SSD, `a.y` feeding `b.u`: `nested` puts `b` in a subsystem `inner` reached through its
/// array connector `u`, else the connection joins the two components directly.
fn state_space_ssd(nested: bool) -> String {
    let component = |name: &str, connector: &str, kind: &str| {
        format!(
            "<ssd:Component name=\"{name}\" source=\"StateSpace.fmu\"><ssd:Connectors>\
             <ssd:Connector name=\"{connector}\" kind=\"{kind}\"/></ssd:Connectors></ssd:Component>"
        )
    };
    let a = component("a", "y", "output");
    let b = component("b", "u", "input");
    let (elements, connection) = if nested {
        (
            format!(
                "{a}<ssd:System name=\"inner\"><ssd:Connectors>\
                 <ssd:Connector name=\"u\" kind=\"input\"/></ssd:Connectors>\
                 <ssd:Elements>{b}</ssd:Elements><ssd:Connections>\
                 <ssd:Connection startConnector=\"u\" endElement=\"b\" endConnector=\"u\"/>\
                 </ssd:Connections></ssd:System>"
            ),
            "endElement=\"inner\"",
        )
    } else {
        (format!("{a}{b}"), "endElement=\"b\"")
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <ssd:SystemStructureDescription \
         xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" \
         xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" version=\"1.0\" \
         name=\"arrays\"><ssd:System name=\"arrays\"><ssd:Elements>{elements}</ssd:Elements>\
         <ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" {connection} \
         endConnector=\"u\"/></ssd:Connections></ssd:System>\
         <ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/></ssd:SystemStructureDescription>"
    )
}

#[test]
fn ssp_arrays_connect_directly_and_through_system_connectors_as_in_toml() {
    let (a, b) = (state_space("a"), state_space("b"));
    let toml = System::new(&["a.y -> b.u"], &[&a, &b]);
    let (toml_header, toml_rows) = toml.run();
    for nested in [false, true] {
        let path = toml.dir.path().join(format!("system-{nested}.ssd"));
        std::fs::write(&path, state_space_ssd(nested)).unwrap();
        let result = toml.dir.path().join(format!("result-{nested}.csv"));
        tandem(&[
            "run",
            path.to_str().unwrap(),
            "--step-size",
            &H.to_string(),
            "--output-file",
            result.to_str().unwrap(),
        ])
        .assert_success();
        let (header, rows) = read_csv(&result);
        let prefix = if nested { "inner.b" } else { "b" };
        let expected: Vec<String> = toml_header
            .iter()
            .map(|name| name.replacen("b.", &format!("{prefix}."), 1))
            .collect();
        assert_eq!(header, expected, "nested: {nested}");
        assert_eq!(
            rows, toml_rows,
            "nested: {nested}: the SSD's rows differ from the TOML's"
        );
    }
    // Unconnected, b would follow a exactly (both start alike with u = [1, 2, 3]).
    let last = toml_rows.last().unwrap();
    let (a1, b1) = (
        column(&toml_header, "a.y[1]"),
        column(&toml_header, "b.y[1]"),
    );
    assert!(last[b1] > last[a1] + 1.0, "b received a's output: {last:?}");
}
