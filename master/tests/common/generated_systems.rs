//! System files of any number of cheap components, for the tests and the benchmark of systems
//! of a thousand FMUs (`master/benches/scale/`): the FMUs are named by file name only, so a
//! run takes them from `--fmu-dir` (the Reference-FMUs of `tests/fixtures/reference-fmus/`,
//! the Tandem FMUs `cargo xtask fmus` builds).

use std::fmt::Write;

/// The shapes of generated systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Reference-FMUs: `Dahlquist.x` into a chain of `n - 1` Feedthroughs, each output into
    /// the next one's input: acyclic, every link direct feedthrough.
    Chain,
    /// Reference-FMUs: `n` Feedthroughs, each output into the next one's input and the last
    /// into the first: one algebraic loop through all of them (its every constant value is a
    /// solution, and the zero start values already are one).
    Ring,
    /// Tandem FMUs: `n` components alternating `summing_mass` and `spring_damper`, each
    /// spring between its two neighbouring masses: a cycle of components at every spring but no
    /// algebraic loop (a mass's outputs do not depend on its forces at the same instant).
    MassesAndSprings,
}

impl Shape {
    /// The name the benchmark prints.
    pub fn label(self) -> &'static str {
        match self {
            Shape::Chain => "Dahlquist + Feedthrough chain",
            Shape::Ring => "Feedthrough ring",
            Shape::MassesAndSprings => "masses and springs",
        }
    }
}

/// The system file of `n` components shaped `shape` under the schedule `kind` (`jacobi`,
/// `gauss-seidel`), `steps` macro steps of 1 ms, recording only the last component's output.
pub fn system_file(shape: Shape, n: usize, kind: &str, steps: usize) -> String {
    assert!(n >= 1, "a system has at least one component");
    let (connections, components, recorded) = match shape {
        Shape::Chain => chain(n),
        Shape::Ring => ring(n),
        Shape::MassesAndSprings => masses_and_springs(n),
    };
    let mut text = String::from("connections = [\n");
    for connection in &connections {
        writeln!(text, "    \"{connection}\",").expect("writing to a String");
    }
    text.push_str("]\n\n");
    writeln!(
        text,
        "[experiment]\nstart = 0.0\nstop = {}\nstep = 1e-3\n",
        steps as f64 * 1e-3
    )
    .expect("writing to a String");
    text.push_str(&components);
    writeln!(
        text,
        "[schedule]\nkind = \"{kind}\"\n\n[output]\nvariables = [\"{recorded}\"]"
    )
    .expect("writing to a String");
    text
}

/// A `[[component]]` table.
fn component(name: &str, fmu: &str, extra: &str) -> String {
    format!("[[component]]\nname = \"{name}\"\nfmu = \"{fmu}\"\n{extra}\n")
}

/// Connections, components and the recorded variable of [`Shape::Chain`].
fn chain(n: usize) -> (Vec<String>, String, String) {
    let mut components = component("dahlquist", "Dahlquist.fmu", "");
    let mut connections = Vec::new();
    let mut last = "dahlquist.x".to_string();
    for i in 1..n {
        components.push_str(&component(&format!("ft{i}"), "Feedthrough.fmu", ""));
        connections.push(format!("{last} -> ft{i}.Float64_continuous_input"));
        last = format!("ft{i}.Float64_continuous_output");
    }
    (connections, components, last)
}

/// Connections, components and the recorded variable of [`Shape::Ring`].
fn ring(n: usize) -> (Vec<String>, String, String) {
    let components = (0..n)
        .map(|i| component(&format!("ft{i}"), "Feedthrough.fmu", ""))
        .collect();
    let connections = (0..n)
        .map(|i| {
            format!(
                "ft{i}.Float64_continuous_output -> ft{}.Float64_continuous_input",
                (i + 1) % n
            )
        })
        .collect();
    let recorded = format!("ft{}.Float64_continuous_output", n - 1);
    (connections, components, recorded)
}

/// Connections, components and the recorded variable (the last mass's position) of
/// [`Shape::MassesAndSprings`]: masses at the even positions, springs at the odd ones; a
/// spring at the end has a free right end (its inputs stay 0).
fn masses_and_springs(n: usize) -> (Vec<String>, String, String) {
    let mut components = String::new();
    let mut connections = Vec::new();
    for i in 0..n {
        if i % 2 == 0 {
            // Every mass starts moving, so the chain carries waves from the first step.
            let extra = format!(
                "parameters = {{ m = 1.0, k = 0.0, c = 0.0 }}\nstart = {{ x = 0.0, v = {} }}\n",
                if i % 4 == 0 { 1.0 } else { -1.0 }
            );
            components.push_str(&component(&format!("c{i}"), "summing_mass.fmu", &extra));
            continue;
        }
        let extra = "parameters = { k = 100.0, c = 0.1, l0 = 0.0 }\n";
        components.push_str(&component(&format!("c{i}"), "spring_damper.fmu", extra));
        let left = i - 1;
        connections.push(format!("c{left}.position -> c{i}.x_a"));
        connections.push(format!("c{left}.velocity -> c{i}.v_a"));
        connections.push(format!("c{i}.f_a -> c{left}.F2"));
        if i + 1 < n {
            let right = i + 1;
            connections.push(format!("c{right}.position -> c{i}.x_b"));
            connections.push(format!("c{right}.velocity -> c{i}.v_b"));
            connections.push(format!("c{i}.f_b -> c{right}.F1"));
        }
    }
    let last_mass = (n - 1) / 2 * 2;
    (connections, components, format!("c{last_mass}.position"))
}

/// The `[gradient]` section for a [`Shape::MassesAndSprings`] system of `n` components (at
/// least 2): the first spring's stiffness and damping and the first and last masses' masses,
/// the cost the last mass's final position.
pub fn masses_and_springs_gradient(n: usize) -> String {
    assert!(n >= 2, "the gradient's parameters need a spring");
    let last_mass = (n - 1) / 2 * 2;
    format!(
        "\n[gradient]\nparameters = [\"c1.k\", \"c1.c\", \"c0.m\", \"c{last_mass}.m\"]\n\
         cost = \"final:c{last_mass}.position\"\n"
    )
}
