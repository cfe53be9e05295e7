//! Exact partial derivatives: directional derivatives `J w` by dual numbers, adjoint
//! derivatives `J^T v` in reverse mode (unknowns: state derivatives and outputs; knowns:
//! states, inputs and parameters), and the time derivative of the outputs along the
//! trajectory.

use std::cell::RefCell;

use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::jacobian;
use crate::ode::Args;
use crate::reverse::{self, Recording, Rev};
use crate::scalar::{lift, Dual64, Scalar};
use crate::system::System;
use crate::variables::{Role, ValueReference, VarType};

thread_local! {
    /// The places of the unknowns and knowns of the latest adjoint derivative (see
    /// [`Instance::adjoint_derivative`]), kept for their capacity.
    static PLACES: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// A variable whose value is seeded.
#[derive(Clone, Copy, Debug)]
pub(super) enum Known {
    State(usize),
    Input(usize),
    Parameter(usize),
}

/// A variable whose sensitivity is computed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Unknown {
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
        let jw = self.product(unknowns, knowns, |base, m, f| {
            jacobian::directional(base, seed, m, f)
        })?;
        write_finite("directional derivative", &jw, sensitivity)
    }

    /// fmi3GetAdjointDerivative: `sensitivity = J^T seed`, `J = d unknowns / d knowns`, in
    /// reverse mode: one taped evaluation of the equations and one sweep back, whatever the
    /// number of knowns, without allocating once the thread's tape has grown to the model.
    pub fn adjoint_derivative(
        &mut self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Outcome {
        check_len("seed", seed.len(), "unknowns", unknowns.len())?;
        check_len("sensitivity", sensitivity.len(), "knowns", knowns.len())?;
        let s = &self.state;
        let (nx, nu, np) = (s.x.len(), s.u.len(), s.p.len());
        let ny = self.declaration().outputs.len();
        // Where each unknown sits among the taped results (dx, y) and each known among the
        // taped arguments (x, u, p): resolved once, into an array kept for its capacity.
        let mut places = PLACES.with_borrow_mut(std::mem::take);
        places.clear();
        let mut wants = (false, false);
        for &vr in unknowns {
            places.push(match self.resolve_unknown(vr)? {
                Unknown::Derivative(i) => {
                    wants.0 = true;
                    i
                }
                Unknown::Output(i) => {
                    wants.1 = true;
                    nx + i
                }
            });
        }
        for &vr in knowns {
            places.push(match self.resolve_known(vr)? {
                Known::State(i) => i,
                Known::Input(i) => nx + i,
                Known::Parameter(i) => nx + nu + i,
            });
        }
        let (result_places, argument_places) = places.split_at(unknowns.len());
        reverse::with_scratch(2 * nx + nu + np + ny, |buffer| {
            let (arguments, results) = buffer.split_at_mut(nx + nu + np);
            let mut recording = Recording::new();
            for (taped, &v) in arguments.iter_mut().zip(s.x.iter().chain(&s.u).chain(&s.p)) {
                *taped = recording.input(v);
            }
            let (x, rest) = arguments.split_at(nx);
            let (u, p) = rest.split_at(nu);
            let args = Args {
                t: Rev::constant(s.t),
                x,
                u,
                p,
                d: &s.d,
            };
            let (dx, y) = results.split_at_mut(nx);
            if wants.0 {
                self.sys.derivatives(&args, dx);
            }
            if wants.1 {
                self.sys.outputs(&args, y);
            }
            for (&place, &w) in result_places.iter().zip(seed) {
                recording.seed(results[place], w);
            }
            recording.sweep();
            for (o, &place) in sensitivity.iter_mut().zip(argument_places) {
                *o = recording.adjoint(arguments[place]);
            }
        });
        PLACES.with_borrow_mut(|kept| *kept = places);
        finite("adjoint derivative", sensitivity)
    }

    /// `product(base, m, f)`, where `f` maps the knowns (whose values are `base`) to the `m`
    /// unknowns, in dual numbers.
    fn product(
        &self,
        unknowns: &[ValueReference],
        knowns: &[ValueReference],
        product: impl FnOnce(&[f64], usize, &mut dyn FnMut(&[Dual64], &mut [Dual64])) -> Vec<f64>,
    ) -> Outcome<Vec<f64>> {
        let (unknowns, knowns) = (
            self.resolve_unknowns(unknowns)?,
            self.resolve_knowns(knowns)?,
        );
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
        let x: Vec<Dual64> =
            s.x.iter()
                .zip(&dx)
                .map(|(&v, &e)| Dual64::new(v, e))
                .collect();
        let u: Vec<Dual64> =
            s.u.iter()
                .zip(&s.input_derivatives[0])
                .map(|(&v, &e)| Dual64::new(v, e))
                .collect();
        let p: Vec<Dual64> = lift(&s.p);
        let args = Args {
            t: Dual64::new(s.t, 1.0),
            x: &x,
            u: &u,
            p: &p,
            d: &s.d,
        };
        let mut y = vec![Dual64::from(0.0); self.declaration().outputs.len()];
        self.sys.outputs(&args, &mut y);
        let rates: Vec<f64> = y.iter().map(|v| v.eps).collect();
        finite("output derivative", &rates)?;
        Ok(rates)
    }

    pub(super) fn resolve_unknowns(&self, vrs: &[ValueReference]) -> Outcome<Vec<Unknown>> {
        vrs.iter().map(|&vr| self.resolve_unknown(vr)).collect()
    }

    pub(super) fn resolve_knowns(&self, vrs: &[ValueReference]) -> Outcome<Vec<Known>> {
        vrs.iter().map(|&vr| self.resolve_known(vr)).collect()
    }

    fn resolve_unknown(&self, vr: ValueReference) -> Outcome<Unknown> {
        match self.variable(vr, VarType::Real)?.role {
            Role::Derivative(i) => Ok(Unknown::Derivative(i)),
            Role::Output(i) => Ok(Unknown::Output(i)),
            _ => Err(Problem::error(format!(
                "unknown {vr} ({}) is neither a state derivative nor a continuous output",
                self.table.get(vr).map_or("?", |v| v.var.name.as_str())
            ))),
        }
    }

    fn resolve_known(&self, vr: ValueReference) -> Outcome<Known> {
        match self.variable(vr, VarType::Real)?.role {
            Role::State(i) => Ok(Known::State(i)),
            Role::Input(i) => Ok(Known::Input(i)),
            Role::Parameter(i) => Ok(Known::Parameter(i)),
            _ => Err(Problem::error(format!(
                "known {vr} ({}) is not a state, an input or a real parameter",
                self.table.get(vr).map_or("?", |v| v.var.name.as_str())
            ))),
        }
    }

    pub(super) fn known_values(&self, knowns: &[Known]) -> Vec<f64> {
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
    pub(super) fn unknowns_at<T: Scalar>(
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
        let args = Args {
            t: T::cst(s.t),
            x: &x,
            u: &u,
            p: &p,
            d: &s.d,
        };
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

pub(super) fn check_len(array: &str, len: usize, of: &str, expected: usize) -> Outcome {
    if len == expected {
        Ok(())
    } else {
        Err(Problem::error(format!(
            "{array} has {len} entries but there are {expected} {of}"
        )))
    }
}

/// Copies `values` to the host's `out`, unless one is not finite.
fn write_finite(what: &str, values: &[f64], out: &mut [f64]) -> Outcome {
    finite(what, values)?;
    out.copy_from_slice(values);
    Ok(())
}

pub(super) fn finite(what: &str, values: &[f64]) -> Outcome {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Problem::error(format!("{what} entry {i} is {}", values[i]))),
    }
}
