//! Helpers shared by the co-design unit tests.

use codesign_equations::PlantEquations;
use nalgebra::DMatrix;
use num_dual::{DualNum, DualNumCopy};

use super::direct::Equations;
use super::plant::Dims;

/// A reproducible matrix with entries in [-1, 1) (a linear congruential generator, so that
/// the tests need no random-number crate).
pub fn random_matrix(rows: usize, cols: usize, seed: u64) -> DMatrix<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    DMatrix::from_fn(rows, cols, |_, _| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    })
}

/// |a − b| / |b|.
pub fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// A plant from `codesign-equations` with its parameters fixed except the design ones.
pub struct Linked<P> {
    /// The equations.
    pub plant: P,
    /// All parameter values; the design entries are overwritten by d.
    pub parameters: Vec<f64>,
    /// Indices of the design parameters in `parameters`.
    pub design: Vec<usize>,
}

impl<P: PlantEquations> Linked<P> {
    /// The plant with its default parameters and the named design parameters.
    pub fn new(plant: P, design: &[&str]) -> Self {
        let index = |name: &&str| {
            P::PARAMETERS
                .iter()
                .position(|(n, _)| n == name)
                .expect("known parameter")
        };
        Linked {
            plant,
            parameters: P::PARAMETERS.iter().map(|&(_, v)| v).collect(),
            design: design.iter().map(index).collect(),
        }
    }
}

impl<P: PlantEquations> Equations for Linked<P> {
    fn dims(&self) -> Dims {
        Dims {
            x: P::STATES.len(),
            u: P::INPUTS.len(),
            d: self.design.len(),
        }
    }

    fn rhs<T: DualNumCopy + DualNum<Primitive = f64>>(
        &self,
        x: &[T],
        u: &[T],
        d: &[T],
        out: &mut [T],
    ) {
        let mut p: Vec<T> = self.parameters.iter().map(|&v| T::from(v)).collect();
        for (&i, &value) in self.design.iter().zip(d) {
            p[i] = value;
        }
        self.plant.rhs(x, u, &p, out);
    }
}
