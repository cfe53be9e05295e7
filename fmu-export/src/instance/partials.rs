//! Exact partial derivatives by dual numbers: directional derivatives `J w`, adjoint
//! derivatives `J^T v` (unknowns: state derivatives and outputs; knowns: states, inputs and
//! parameters), and the time derivative of the outputs along the trajectory.

use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::jacobian;
use crate::ode::Args;
use crate::scalar::{lift, Dual64, Scalar};
use crate::system::System;
use crate::variables::{Role, ValueReference, VarType};

/// A variable whose value is seeded.
#[derive(Clone, Copy, Debug)]
enum Known {
    State(usize),
    Input(usize),
    Parameter(usize),
}

/// A variable whose sensitivity is computed.
#[derive(Clone, Copy, Debug)]
enum Unknown {
    Derivative(usize),
    Output(usize),
}

impl<S: System> Instance<S> {
    /// fmiGetDirectionalDerivative: `sensitivity = J seed`, `J = d unknowns / d knowns`.
    pub fn directional_derivative(
        &mut self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Outcome {
        check_len("seed", seed.len(), "knowns", knowns.len())?;
        check_len("sensitivity", sensitivity.len(), "unknowns", unknowns.len())?;
        let jw =
            self.product(unknowns, knowns, |base, m, f| jacobian::directional(base, seed, m, f))?;
        write_finite("directional derivative", &jw, sensitivity)
    }

    /// fmi3GetAdjointDerivative: `sensitivity = J^T seed`, `J = d unknowns / d knowns`.
    pub fn adjoint_derivative(
        &mut self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Outcome {
        check_len("seed", seed.len(), "unknowns", unknowns.len())?;
        check_len("sensitivity", sensitivity.len(), "knowns", knowns.len())?;
        let vjp = self.product(unknowns, knowns, |base, m, f| {
            let n = base.len();
            let (jac, _) = jacobian::jacobian(base, m, f);
            (0..n).map(|j| (0..m).map(|i| seed[i] * jac[i * n + j]).sum()).collect()
        })?;
        write_finite("adjoint derivative", &vjp, sensitivity)
    }

    /// `product(base, m, f)`, where `f` maps the knowns (whose values are `base`) to the `m`
    /// unknowns, in dual numbers.
    fn product(
        &self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        product: impl FnOnce(&[f64], usize, &mut dyn FnMut(&[Dual64], &mut [Dual64])) -> Vec<f64>,
    ) -> Outcome<Vec<f64>> {
        let (unknowns, knowns) = (self.resolve_unknowns(unknowns)?, self.resolve_knowns(knowns)?);
        let base = self.known_values(&knowns);
        Ok(product(&base, unknowns.len(), &mut |k, out| {
            self.unknowns_at(&knowns, k, &unknowns, out)
        }))
    }

    /// `dy/dt` of every continuous output along the current trajectory: one dual evaluation
    /// in the direction `(dt, dx, du) = (1, f(t, x, u, p), du/dt)`.
    pub(crate) fn output_rates(&mut self) -> Outcome<Vec<f64>> {
        let dx = self.derivatives()?.to_vec();
        let s = &self.state;
        let x: Vec<Dual64> = s.x.iter().zip(&dx).map(|(&v, &e)| Dual64::new(v, e)).collect();
        let u: Vec<Dual64> =
            s.u.iter().zip(&s.input_derivatives[0]).map(|(&v, &e)| Dual64::new(v, e)).collect();
        let p: Vec<Dual64> = lift(&s.p);
        let args = Args { t: Dual64::new(s.t, 1.0), x: &x, u: &u, p: &p, d: &s.d };
        let mut y = vec![Dual64::from(0.0); self.declaration().outputs.len()];
        self.sys.outputs(&args, &mut y);
        let rates: Vec<f64> = y.iter().map(|v| v.eps).collect();
        finite("output derivative", &rates)?;
        Ok(rates)
    }

    fn resolve_unknowns(&self, vrs: &[ValueReference]) -> Outcome<Vec<Unknown>> {
        vrs.iter()
            .map(|&vr| match self.variable(vr, VarType::Real)?.role {
                Role::Derivative(i) => Ok(Unknown::Derivative(i)),
                Role::Output(i) => Ok(Unknown::Output(i)),
                _ => Err(Problem::error(format!(
                    "unknown {vr} ({}) is neither a state derivative nor a continuous output",
                    self.table.get(vr).map_or("?", |v| v.var.name.as_str())
                ))),
            })
            .collect()
    }

    fn resolve_knowns(&self, vrs: &[ValueReference]) -> Outcome<Vec<Known>> {
        vrs.iter()
            .map(|&vr| match self.variable(vr, VarType::Real)?.role {
                Role::State(i) => Ok(Known::State(i)),
                Role::Input(i) => Ok(Known::Input(i)),
                Role::Parameter(i) => Ok(Known::Parameter(i)),
                _ => Err(Problem::error(format!(
                    "known {vr} ({}) is not a state, an input or a real parameter",
                    self.table.get(vr).map_or("?", |v| v.var.name.as_str())
                ))),
            })
            .collect()
    }

    fn known_values(&self, knowns: &[Known]) -> Vec<f64> {
        let s = &self.state;
        knowns
            .iter()
            .map(|k| match *k {
                Known::State(i) => s.x[i],
                Known::Input(i) => s.u[i],
                Known::Parameter(i) => s.p[i],
            })
            .collect()
    }

    /// The unknowns with the knowns displaced to `values` (additively, so that a known listed
    /// twice contributes both of its seeds).
    fn unknowns_at<T: Scalar>(
        &self,
        knowns: &[Known],
        values: &[T],
        unknowns: &[Unknown],
        out: &mut [T],
    ) {
        let s = &self.state;
        let (mut x, mut u, mut p): (Vec<T>, Vec<T>, Vec<T>) = (lift(&s.x), lift(&s.u), lift(&s.p));
        for ((known, &value), base) in knowns.iter().zip(values).zip(self.known_values(knowns)) {
            let delta = value - T::cst(base);
            match *known {
                Known::State(i) => x[i] += delta,
                Known::Input(i) => u[i] += delta,
                Known::Parameter(i) => p[i] += delta,
            }
        }
        let args = Args { t: T::cst(s.t), x: &x, u: &u, p: &p, d: &s.d };
        let mut dx = vec![T::cst(0.0); x.len()];
        if unknowns.iter().any(|w| matches!(w, Unknown::Derivative(_))) {
            self.sys.derivatives(&args, &mut dx);
        }
        let mut y = vec![T::cst(0.0); self.declaration().outputs.len()];
        if unknowns.iter().any(|w| matches!(w, Unknown::Output(_))) {
            self.sys.outputs(&args, &mut y);
        }
        for (slot, unknown) in out.iter_mut().zip(unknowns) {
            *slot = match *unknown {
                Unknown::Derivative(i) => dx[i],
                Unknown::Output(i) => y[i],
            };
        }
    }
}

fn check_len(array: &str, len: usize, of: &str, expected: usize) -> Outcome {
    if len == expected {
        Ok(())
    } else {
        Err(Problem::error(format!("{array} has {len} entries but there are {expected} {of}")))
    }
}

/// Copies `values` to the host's `out`, unless one is not finite.
fn write_finite(what: &str, values: &[f64], out: &mut [f64]) -> Outcome {
    finite(what, values)?;
    out.copy_from_slice(values);
    Ok(())
}

fn finite(what: &str, values: &[f64]) -> Outcome {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Problem::error(format!("{what} entry {i} is {}", values[i]))),
    }
}
