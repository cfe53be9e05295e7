//! The ModelStructure: which knowns every output, state derivative, event indicator and initial
//! unknown depends on.
//!
//! The sparsity comes from exact dual-number Jacobians of the model's own equations with
//! respect to time, states, inputs and real parameters, evaluated at a few deterministic
//! pseudo-random points around the start values. A dependency is recorded when any point gives
//! a non-zero (or non-finite) partial derivative, so a coincidental zero at one point (e.g.
//! `d(c x)/dc` at `x = 0`) does not drop it.

use std::collections::BTreeSet;

use crate::declaration::Var;
use crate::ode::Args;
use crate::scalar::Dual64;
use crate::system::System;
use crate::variables::{
    Causality, Initial, ModelVariable, Role, ValueReference, Variability, VariableTable,
};

/// Number of sample points whose sparsity patterns are united.
const SAMPLE_POINTS: u64 = 3;

/// Relative spread of the sample points around the start values.
const SPREAD: f64 = 0.1;

/// The FMI version whose rules decide which variables count as knowns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// FMI 2.0: knowns at run time are time, continuous states and inputs.
    Fmi2,
    /// FMI 3.0: knowns at run time also include tunable parameters.
    Fmi3,
}

/// One entry of a ModelStructure list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// Value reference of the unknown.
    pub vr: ValueReference,
    /// Value references of the knowns it depends on, ascending; `None` means "depends on all
    /// knowns" (the attribute is omitted).
    pub dependencies: Option<Vec<ValueReference>>,
}

/// The ordered ModelStructure lists of one model for one FMI version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelStructure {
    /// Every variable with causality output, in value-reference order.
    pub outputs: Vec<Unknown>,
    /// Every state derivative, in state order.
    pub derivatives: Vec<Unknown>,
    /// Every unknown of initialization mode.
    pub initial_unknowns: Vec<Unknown>,
    /// Every event indicator.
    pub event_indicators: Vec<Unknown>,
}

impl ModelStructure {
    /// Computes the structure of `sys` whose variables are `table`.
    pub fn new<S: System>(sys: &S, table: &VariableTable, version: Version) -> Self {
        let sparsity = Sparsity::of(sys, table);
        let runtime = |v: &ModelVariable| is_runtime_known(v, version);
        // Discrete knowns enter the equations through `Args::d`, which dual numbers cannot see:
        // when there are any, initial unknowns are declared to depend on all knowns.
        let discrete_initial_knowns = table
            .iter()
            .any(|v| matches!(v.role, Role::Discrete(_)) && is_initial_known(v));
        // Discrete outputs change only through the reset map at events, which is not
        // differentiated: they have no row and keep the default "depends on all knowns".
        let row_of = |v: &ModelVariable| match v.role {
            Role::Output(i) => Some(&sparsity.outputs[i]),
            Role::Derivative(i) => Some(&sparsity.derivatives[i]),
            Role::EventIndicator(i) => Some(&sparsity.event_indicators[i]),
            _ => None,
        };
        let unknown = |v: &ModelVariable, known: &dyn Fn(&ModelVariable) -> bool| Unknown {
            vr: v.vr,
            dependencies: row_of(v).map(|row| {
                row.iter()
                    .copied()
                    .filter(|&vr| table.get(vr).is_some_and(known))
                    .collect()
            }),
        };
        let list = |select: &dyn Fn(&ModelVariable) -> bool| -> Vec<Unknown> {
            table
                .iter()
                .filter(|v| select(v))
                .map(|v| unknown(v, &runtime))
                .collect()
        };
        let initial_unknowns = table
            .iter()
            .filter(|v| is_initial_unknown(v))
            .map(|v| {
                let u = unknown(v, &is_initial_known);
                if discrete_initial_knowns {
                    Unknown {
                        dependencies: None,
                        ..u
                    }
                } else {
                    u
                }
            })
            .collect();
        ModelStructure {
            outputs: list(&|v| v.causality == Causality::Output),
            derivatives: list(&|v| matches!(v.role, Role::Derivative(_))),
            initial_unknowns,
            event_indicators: list(&|v| matches!(v.role, Role::EventIndicator(_))),
        }
    }
}

/// Knowns in continuous-time and event mode (ME) and at communication points (CS).
fn is_runtime_known(v: &ModelVariable, version: Version) -> bool {
    match v.role {
        Role::Time | Role::State(_) | Role::Input(_) => true,
        // Fixed parameters are frozen after initialization, so only tunable ones are knowns.
        Role::Parameter(_) => version == Version::Fmi3 && v.variability == Variability::Tunable,
        _ => false,
    }
}

/// Knowns in initialization mode: time, inputs and everything with `initial = "exact"`.
fn is_initial_known(v: &ModelVariable) -> bool {
    matches!(v.causality, Causality::Independent | Causality::Input)
        || v.initial == Some(Initial::Exact)
}

/// Outputs, states and state derivatives that are computed (not given) at initialization.
fn is_initial_unknown(v: &ModelVariable) -> bool {
    let computed = matches!(v.initial, Some(Initial::Approx | Initial::Calculated));
    let listed =
        v.causality == Causality::Output || matches!(v.role, Role::State(_) | Role::Derivative(_));
    computed && listed
}

/// For every model function row, the value references of the real arguments it depends on.
struct Sparsity {
    derivatives: Vec<BTreeSet<ValueReference>>,
    outputs: Vec<BTreeSet<ValueReference>>,
    event_indicators: Vec<BTreeSet<ValueReference>>,
}

impl Sparsity {
    fn of<S: System>(sys: &S, table: &VariableTable) -> Self {
        let decl = sys.declaration();
        let layout = Layout {
            states: decl.states.len(),
            inputs: decl.inputs.len(),
        };
        let time = Var {
            min: Some(decl.experiment.start),
            ..Var::new("time", decl.experiment.start)
        };
        let arguments: Vec<&Var> = std::iter::once(&time)
            .chain(&decl.states)
            .chain(&decl.inputs)
            .chain(decl.parameters.iter().map(|p| &p.var))
            .collect();
        let roles = std::iter::once(Role::Time)
            .chain((0..decl.states.len()).map(Role::State))
            .chain((0..decl.inputs.len()).map(Role::Input))
            .chain((0..decl.parameters.len()).map(Role::Parameter));
        let vrs: Vec<ValueReference> = roles
            .map(|role| {
                table
                    .vr_of(role)
                    .expect("every declared argument has a value reference")
            })
            .collect();
        let d = decl.discrete_starts();
        let mut sparsity = Sparsity {
            derivatives: vec![BTreeSet::new(); decl.states.len()],
            outputs: vec![BTreeSet::new(); decl.outputs.len()],
            event_indicators: vec![BTreeSet::new(); decl.event_indicators],
        };
        for point in 0..SAMPLE_POINTS {
            let x: Vec<f64> = arguments
                .iter()
                .enumerate()
                .map(|(j, var)| sample(var, noise(point, j as u64)))
                .collect();
            record(&x, &vrs, &mut sparsity.derivatives, |a, out| {
                sys.derivatives(&layout.args(a, &d), out)
            });
            record(&x, &vrs, &mut sparsity.outputs, |a, out| {
                sys.outputs(&layout.args(a, &d), out)
            });
            record(&x, &vrs, &mut sparsity.event_indicators, |a, out| {
                sys.event_indicators(&layout.args(a, &d), out)
            });
        }
        sparsity
    }
}

/// How the flat argument vector `[t, x, u, p]` splits into [`Args`].
struct Layout {
    states: usize,
    inputs: usize,
}

impl Layout {
    fn args<'a, T: Copy>(&self, a: &'a [T], d: &'a [f64]) -> Args<'a, T> {
        let (x, rest) = a[1..].split_at(self.states);
        let (u, p) = rest.split_at(self.inputs);
        Args {
            t: a[0],
            x,
            u,
            p,
            d,
        }
    }
}

/// Adds to `rows` the arguments with a non-zero partial derivative of `f` at `x`.
fn record<F>(x: &[f64], vrs: &[ValueReference], rows: &mut [BTreeSet<ValueReference>], mut f: F)
where
    F: FnMut(&[Dual64], &mut [Dual64]),
{
    if rows.is_empty() {
        return;
    }
    // One column at a time, not the whole Jacobian: memory stays linear in the model's size
    // (the dense Jacobian of a model of 10 000 states takes 800 MB).
    let mut arguments: Vec<Dual64> = x.iter().map(|&v| Dual64::from(v)).collect();
    let mut column = vec![Dual64::from(0.0); rows.len()];
    for (j, &vr) in vrs.iter().enumerate() {
        arguments[j].eps = 1.0;
        column.fill(Dual64::from(0.0));
        f(&arguments, &mut column);
        for (row, entry) in rows.iter_mut().zip(&column) {
            // NaN != 0 too: a derivative that cannot be evaluated is kept as a dependency.
            if entry.eps != 0.0 {
                row.insert(vr);
            }
        }
        arguments[j].eps = 0.0;
    }
}

/// A sample value of `var`: its start value moved by `r * SPREAD` of its scale, kept within
/// its declared bounds.
fn sample(var: &Var, r: f64) -> f64 {
    let scale = if var.start != 0.0 {
        var.start.abs()
    } else {
        var.nominal.map_or(1.0, f64::abs)
    };
    let value = var.start + SPREAD * scale * r;
    let value = var.min.map_or(value, |min| value.max(min));
    var.max.map_or(value, |max| value.min(max))
}

/// A deterministic pseudo-random number in [-1, 1) for argument `arg` at sample `point`
/// (SplitMix64 finalizer), so descriptions are reproducible byte for byte.
fn noise(point: u64, arg: u64) -> f64 {
    let mut z = (point << 32 ^ arg).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration::{Declaration, DiscreteRole, DiscreteType, Tunability};
    use crate::ode::OdeModel;
    use crate::ode_system::OdeSystem;
    use crate::scalar::Scalar;

    /// A model with a known, deliberately uneven structure:
    /// `x0' = x1`, `x1' = -k x0 + u0 + sin(t)`, `x2' = m x2` (m fixed),
    /// `y0 = x0 * u1` (zero at the start point: x0 starts at 0), `y1 = k`, `z0 = x2 - 1`.
    #[derive(Default)]
    struct Known;

    impl OdeModel for Known {
        fn declaration(&self) -> Declaration {
            Declaration::new("known", "")
                .state(Var::new("x0", 0.0))
                .state(Var::new("x1", 1.0))
                .state(Var::new("x2", 2.0))
                .input(Var::new("u0", 0.0))
                .input(Var::new("u1", 0.0))
                .parameter(Var::new("k", 3.0), Tunability::Tunable)
                .parameter(Var::new("m", 4.0), Tunability::Fixed)
                .output(Var::new("y0", 0.0))
                .output(Var::new("y1", 0.0))
                .event_indicators(1)
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            dx[0] = a.x[1];
            dx[1] = -a.p[0] * a.x[0] + a.u[0] + a.t.sin();
            dx[2] = a.p[1] * a.x[2];
        }
        fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
            y[0] = a.x[0] * a.u[1];
            y[1] = a.p[0];
        }
        fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
            z[0] = a.x[2] - T::cst(1.0);
        }
    }

    fn names(table: &VariableTable, unknowns: &[Unknown]) -> Vec<(String, Option<Vec<String>>)> {
        let name = |vr: ValueReference| table.get(vr).unwrap().var.name.clone();
        unknowns
            .iter()
            .map(|u| {
                (
                    name(u.vr),
                    u.dependencies
                        .as_ref()
                        .map(|d| d.iter().map(|&vr| name(vr)).collect()),
                )
            })
            .collect()
    }

    fn deps(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn fmi3_runtime_dependencies_are_exact() {
        let sys = OdeSystem::<Known>::default();
        let table = VariableTable::new(sys.declaration());
        let s = ModelStructure::new(&sys, &table, Version::Fmi3);
        assert_eq!(
            names(&table, &s.derivatives),
            [
                ("der(x0)".to_string(), deps(&["x1"])),
                ("der(x1)".to_string(), deps(&["time", "x0", "u0", "k"])),
                ("der(x2)".to_string(), deps(&["x2"])),
            ]
        );
        assert_eq!(
            names(&table, &s.outputs),
            [
                ("y0".to_string(), deps(&["x0", "u1"])),
                ("y1".to_string(), deps(&["k"]))
            ]
        );
        assert_eq!(
            names(&table, &s.event_indicators),
            [("eventIndicator[1]".to_string(), deps(&["x2"]))]
        );
    }

    #[test]
    fn fmi2_knowns_exclude_parameters_and_initial_unknowns_include_them() {
        let sys = OdeSystem::<Known>::default();
        let table = VariableTable::new(sys.declaration());
        let s = ModelStructure::new(&sys, &table, Version::Fmi2);
        assert_eq!(names(&table, &s.outputs)[1], ("y1".to_string(), deps(&[])));
        assert_eq!(
            names(&table, &s.derivatives)[1].1,
            deps(&["time", "x0", "u0"])
        );
        assert_eq!(
            names(&table, &s.initial_unknowns),
            [
                ("der(x0)".to_string(), deps(&["x1"])),
                ("der(x1)".to_string(), deps(&["time", "x0", "u0", "k"])),
                ("der(x2)".to_string(), deps(&["x2", "m"])),
                ("y0".to_string(), deps(&["x0", "u1"])),
                ("y1".to_string(), deps(&["k"])),
            ]
        );
    }

    /// The same model with a discrete parameter: its influence is invisible to dual numbers.
    #[derive(Default)]
    struct WithSwitch(Known);

    impl OdeModel for WithSwitch {
        fn declaration(&self) -> Declaration {
            self.0.declaration().discrete(
                Var::new("on", 1.0),
                DiscreteType::Boolean,
                DiscreteRole::Parameter,
            )
        }
        fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
            self.0.derivatives(a, dx)
        }
        fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
            self.0.outputs(a, y)
        }
    }

    #[test]
    fn discrete_knowns_make_initial_unknowns_depend_on_all() {
        let sys = OdeSystem::<WithSwitch>::default();
        let table = VariableTable::new(sys.declaration());
        let s = ModelStructure::new(&sys, &table, Version::Fmi3);
        assert!(s.initial_unknowns.iter().all(|u| u.dependencies.is_none()));
        assert_eq!(names(&table, &s.derivatives)[0].1, deps(&["x1"]));
    }

    #[test]
    fn samples_stay_within_bounds_and_noise_is_spread() {
        let v = Var::new("v", 1.0).range(0.95, 2.0);
        let values: Vec<f64> = (0..50).map(|k| sample(&v, noise(k, 3))).collect();
        assert!(values.iter().all(|&x| (0.95..=1.1).contains(&x)));
        assert!(values.iter().any(|&x| x > 1.05) && values.iter().any(|&x| x < 0.96));
    }
}
