//! Times the factorizations of an implicit method's iteration matrix `I - c J` for a
//! tridiagonal `J` (the 1-D heat equation) of growing dimension: nalgebra's dense LU, faer's
//! dense LU and faer's sparse LU (symbolic analysis reused), each a factorization and one
//! solve, to place the crossovers of `tandem_ode::solver::IterationMatrix`.
//!
//! `cargo run --release -p tandem-ode --example lu_crossover`

use std::time::Instant;

use tandem_ode::solver::{Factorization, IterationMatrix, Jacobian, Sparsity};

/// The median time of `repeats` runs of `run`, in microseconds.
fn median_micros(repeats: usize, mut run: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[repeats / 2]
}

fn main() {
    println!("n\tnalgebra dense\tfaer dense\tfaer sparse\t(microseconds per factorization and solve)\tchosen for a sparse J");
    for n in [4usize, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1000] {
        let rows: Vec<Vec<usize>> = (0..n)
            .map(|i| (i.saturating_sub(1)..(i + 2).min(n)).collect())
            .collect();
        let sparsity = Sparsity::from_rows(&rows).expect("a tridiagonal pattern");
        let mut sparse = Jacobian::sparse(sparsity);
        let mut dense = Jacobian::dense(n);
        for (i, row) in rows.iter().enumerate() {
            for &j in row {
                let value = if i == j { -2.0 } else { 1.0 } * (n * n) as f64;
                sparse.set(i, j, value);
                dense.set(i, j, value);
            }
        }
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let repeats = if n <= 256 { 201 } else { 21 };
        let time = |jacobian: &Jacobian, factorization: Factorization| {
            let mut matrix = IterationMatrix::forced(factorization);
            // Alternating `c` forces a numeric refactorization on every run.
            let mut c = 1e-3;
            median_micros(repeats, || {
                c = if c == 1e-3 { 2e-3 } else { 1e-3 };
                assert!(matrix.factor(jacobian, c));
                assert_eq!(matrix.factorization(), Some(factorization));
                let mut x = b.clone();
                matrix.solve_mut(&mut x);
                std::hint::black_box(&x);
            })
        };
        let small = time(&dense, Factorization::SmallDense);
        let large = time(&dense, Factorization::Dense);
        let sparse_time = time(&sparse, Factorization::Sparse);
        let chosen = Factorization::for_jacobian(&sparse);
        println!("{n}\t{small:.1}\t{large:.1}\t{sparse_time:.1}\t{chosen:?}");
    }
}
