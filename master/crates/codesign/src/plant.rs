//! Where the plant's right-hand side r(x, u, d) and its derivatives come from: the algorithm
//! is written against this trait, served by an FMU or, in tests, by equations linked in.

use nalgebra::{DMatrix, DVector};

use super::error::CodesignError;

/// Sizes of a plant: states, inputs, design parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    /// Number of states n_x.
    pub x: usize,
    /// Number of inputs n_u.
    pub u: usize,
    /// Number of design parameters n_d.
    pub d: usize,
}

/// Vector–Jacobian products of r at one point: Jᵀψ, Gᵀψ and (∂r/∂d)ᵀψ.
#[derive(Debug, Clone)]
pub struct Adjoints {
    /// Jᵀψ = (∂r/∂x)ᵀψ.
    pub x: DVector<f64>,
    /// Gᵀψ = (∂r/∂u)ᵀψ.
    pub u: DVector<f64>,
    /// (∂r/∂d)ᵀψ.
    pub d: DVector<f64>,
}

impl Adjoints {
    /// Zeros for a plant of sizes `dims`.
    pub fn zeros(dims: Dims) -> Adjoints {
        Adjoints {
            x: DVector::zeros(dims.x),
            u: DVector::zeros(dims.u),
            d: DVector::zeros(dims.d),
        }
    }

    /// Overwrites the parts with those of `v` (stacked (x, u, d), of the parts' sizes), without
    /// allocating.
    pub fn copy_from_stacked(&mut self, v: &[f64]) {
        let (x, rest) = v.split_at(self.x.len());
        let (u, d) = rest.split_at(self.u.len());
        self.x.copy_from_slice(x);
        self.u.copy_from_slice(u);
        self.d.copy_from_slice(d);
    }

    /// The parts of `v`, a vector over the stacked (x, u, d) of a plant of sizes `dims`.
    pub fn split(dims: Dims, v: &[f64]) -> Adjoints {
        let (x, rest) = v.split_at(dims.x);
        let (u, d) = rest.split_at(dims.u);
        Adjoints {
            x: DVector::from_column_slice(x),
            u: DVector::from_column_slice(u),
            d: DVector::from_column_slice(d),
        }
    }
}

/// An ODE right-hand side `ẋ = r(x, u, d)` with first derivatives and the second-order seed
/// contraction the coupled adjoint needs.
pub trait Plant {
    /// The plant's sizes.
    fn dims(&self) -> Dims;

    /// Writes r(x, u, d) into `out`.
    fn rhs(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        out: &mut [f64],
    ) -> Result<(), CodesignError>;

    /// J = ∂r/∂x (n_x × n_x) and G = ∂r/∂u (n_x × n_u).
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), CodesignError>;

    /// Jᵀψ, Gᵀψ and (∂r/∂d)ᵀψ.
    fn adjoints(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        psi: &[f64],
    ) -> Result<Adjoints, CodesignError>;

    /// [`Plant::adjoints`] into `out` (of the plant's sizes): the closed-loop sweep calls it at
    /// every step, and a plant that can answer without allocating does.
    fn adjoints_into(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        psi: &[f64],
        out: &mut Adjoints,
    ) -> Result<(), CodesignError> {
        *out = self.adjoints(x, u, d, psi)?;
        Ok(())
    }

    /// The gradient with respect to (x, u, d) of Σ Jbar_ij J_ij + Σ Gbar_ij G_ij with the seeds
    /// held fixed: a second-derivative contraction.
    fn seed_gradient(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        jbar: &DMatrix<f64>,
        gbar: &DMatrix<f64>,
    ) -> Result<Adjoints, CodesignError>;

    /// How [`Plant::seed_gradient`] is computed, for the report ("exact", "differences of J and G").
    fn seed_method(&self) -> &'static str;
}
