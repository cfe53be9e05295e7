//! A plant whose equations are linked in, differentiated exactly with dual numbers: first
//! derivatives with [`Dual64`], the second-order seed contraction with [`HyperDual64`].

use nalgebra::{DMatrix, DVector};
use num_dual::{Dual64, DualNum, DualNumCopy, HyperDual64};

use super::error::CodesignError;
use super::plant::{Adjoints, Dims, Plant};

/// Plant equations written once, generic over the scalar type.
pub trait Equations {
    /// The sizes.
    fn dims(&self) -> Dims;

    /// Writes r(x, u, d) into `out`.
    fn rhs<T: DualNumCopy + DualNum<Primitive = f64>>(
        &self,
        x: &[T],
        u: &[T],
        d: &[T],
        out: &mut [T],
    );
}

/// A [`Plant`] evaluating linked-in [`Equations`].
pub struct DirectPlant<E>(pub E);

impl<E: Equations> DirectPlant<E> {
    /// The Jacobian of r with respect to the stacked w = (x, u, d), n_x × (n_x + n_u + n_d).
    fn full_jacobian(&self, x: &[f64], u: &[f64], d: &[f64]) -> DMatrix<f64> {
        let dims = self.0.dims();
        let w: Vec<f64> = x.iter().chain(u).chain(d).copied().collect();
        let mut wd: Vec<Dual64> = w.iter().map(|&v| Dual64::from(v)).collect();
        let mut out = vec![Dual64::from(0.0); dims.x];
        let mut jac = DMatrix::zeros(dims.x, w.len());
        for j in 0..w.len() {
            wd[j].eps = 1.0;
            let (xd, rest) = wd.split_at(dims.x);
            let (ud, dd) = rest.split_at(dims.u);
            self.0.rhs(xd, ud, dd, &mut out);
            for i in 0..dims.x {
                jac[(i, j)] = out[i].eps;
            }
            wd[j].eps = 0.0;
        }
        jac
    }
}

impl<E: Equations> Plant for DirectPlant<E> {
    fn dims(&self) -> Dims {
        self.0.dims()
    }

    fn rhs(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        out: &mut [f64],
    ) -> Result<(), CodesignError> {
        self.0.rhs(x, u, d, out);
        Ok(())
    }

    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), CodesignError> {
        let dims = self.0.dims();
        let jac = self.full_jacobian(x, u, d);
        Ok((
            jac.columns(0, dims.x).into_owned(),
            jac.columns(dims.x, dims.u).into_owned(),
        ))
    }

    fn adjoints(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        psi: &[f64],
    ) -> Result<Adjoints, CodesignError> {
        let jac = self.full_jacobian(x, u, d);
        let products = jac.tr_mul(&DVector::from_column_slice(psi));
        Ok(Adjoints::split(self.0.dims(), products.as_slice()))
    }

    fn seed_gradient(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        jbar: &DMatrix<f64>,
        gbar: &DMatrix<f64>,
    ) -> Result<Adjoints, CodesignError> {
        let dims = self.0.dims();
        let w: Vec<f64> = x.iter().chain(u).chain(d).copied().collect();
        let n_w = dims.x + dims.u;
        let seed = |i: usize, j: usize| {
            if j < dims.x {
                jbar[(i, j)]
            } else {
                gbar[(i, j - dims.x)]
            }
        };
        let mut wd: Vec<HyperDual64> = w.iter().map(|&v| HyperDual64::from(v)).collect();
        let mut out = vec![HyperDual64::from(0.0); dims.x];
        let mut gradient = DVector::zeros(w.len());
        // ∂/∂w_k Σ_ij seed_ij ∂r_i/∂w_j: one hyper-dual evaluation per (j, k) pair.
        for j in 0..n_w {
            if (0..dims.x).all(|i| seed(i, j) == 0.0) {
                continue;
            }
            wd[j].eps1 = 1.0;
            for k in 0..w.len() {
                wd[k].eps2 = 1.0;
                let (xd, rest) = wd.split_at(dims.x);
                let (ud, dd) = rest.split_at(dims.u);
                self.0.rhs(xd, ud, dd, &mut out);
                gradient[k] += (0..dims.x)
                    .map(|i| seed(i, j) * out[i].eps1eps2)
                    .sum::<f64>();
                wd[k].eps2 = 0.0;
            }
            wd[j].eps1 = 0.0;
        }
        Ok(Adjoints::split(dims, gradient.as_slice()))
    }

    fn seed_method(&self) -> &'static str {
        "exact (hyper-dual numbers)"
    }
}
