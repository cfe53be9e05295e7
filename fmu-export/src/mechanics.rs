//! Second-order constrained mechanics (index-3 DAE):
//! `M(q,p) a + C_q(q)^T lambda = Q(t, q, v, u, p)`, `C(q, t) = 0`.

use crate::declaration::Declaration;
use crate::scalar::Scalar;

/// The arguments of a mechanical model function at one point.
#[derive(Clone, Copy, Debug)]
pub struct MechArgs<'a, T> {
    /// Time.
    pub t: T,
    /// Generalized coordinates.
    pub q: &'a [T],
    /// Generalized velocities.
    pub v: &'a [T],
    /// Continuous inputs.
    pub u: &'a [T],
    /// Real parameters.
    pub p: &'a [T],
    /// Discrete variables.
    pub d: &'a [f64],
}

/// A mechanical model, written once and generic over the scalar type.
///
/// Its declaration lists the `n` coordinates as the first `n` states and the `n` velocities
/// as the next `n`. Constraint Jacobians and the acceleration-level constraint terms are
/// obtained from [`MechanicalModel::constraints`] by automatic differentiation.
pub trait MechanicalModel: Default + Send + Sync + 'static {
    /// The variables, solver and default experiment of the model.
    fn declaration(&self) -> Declaration;

    /// Number of holonomic constraints `m`.
    fn constraint_count(&self) -> usize {
        0
    }

    /// Writes the mass matrix `M(q, p)`, `n x n` row-major, into a zeroed buffer.
    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]);

    /// Writes the applied and gyroscopic forces `Q(t, q, v, u, p)`.
    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]);

    /// Writes the constraint residuals `C(q, t)`.
    fn constraints<T: Scalar>(&self, _t: T, _q: &[T], _p: &[T], _c: &mut [T]) {}

    /// Writes the continuous outputs, which may use accelerations and multipliers.
    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], lambda: &[T], y: &mut [T]);

    /// Writes the String outputs (declared with [`crate::Declaration::string_output`], in that order)
    /// from the current point and the String parameters `s`. Called only when a host reads
    /// a String output, never in the integration loop. The default writes nothing (for models
    /// without String outputs).
    fn string_outputs(&self, _a: &MechArgs<f64>, _s: &[String], _out: &mut [String]) {}
}
