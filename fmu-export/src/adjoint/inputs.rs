//! The step-input polynomial as one flat vector of coefficients, the layout in which input
//! tangents and adjoints are exchanged: entry `k * n_u + i` is the `k`-th time derivative of
//! input `i` at the communication point.

use crate::scalar::Scalar;
use crate::system::StepInputs;

/// The coefficients of `u`, flattened derivative order by derivative order.
pub fn flatten_inputs(u: &StepInputs<f64>) -> Vec<f64> {
    u.coefficients.concat()
}

/// [`flatten_inputs`] into `flat`, keeping its allocation.
pub fn flatten_inputs_into(u: &StepInputs<f64>, flat: &mut Vec<f64>) {
    flat.clear();
    u.coefficients
        .iter()
        .for_each(|c| flat.extend_from_slice(c));
}

/// The number of flat coefficients of `u`.
pub fn flat_len<T>(u: &StepInputs<T>) -> usize {
    u.coefficients.iter().map(Vec::len).sum()
}

/// Gives `target` the layout of `like` (expansion point, inputs, orders) as [`inputs_like`]
/// does, keeping its allocations; [`refill_inputs`] then writes the coefficients.
pub fn shape_inputs<T: Scalar>(target: &mut StepInputs<T>, like: &StepInputs<f64>) {
    let n = like.len();
    target.t0 = like.t0;
    target
        .coefficients
        .resize_with(like.coefficients.len(), Vec::new);
    for row in &mut target.coefficients {
        row.clear();
        row.resize(n, T::cst(0.0));
    }
}

/// The polynomial with the layout of `like` (expansion point, inputs, orders) and the flat
/// coefficients `flat`.
pub fn inputs_like<T: Scalar>(like: &StepInputs<f64>, flat: &[T]) -> StepInputs<T> {
    let n = like.len();
    let coefficients = if n == 0 {
        like.coefficients.iter().map(|_| Vec::new()).collect()
    } else {
        flat.chunks(n).map(<[T]>::to_vec).collect()
    };
    StepInputs {
        t0: like.t0,
        coefficients,
    }
}

/// Overwrites the coefficients of `target`, laid out as [`inputs_like`] makes them, with the
/// flat coefficients `flat` (no allocation, for one evaluation per Jacobian column).
pub fn refill_inputs<T: Scalar>(target: &mut StepInputs<T>, flat: &[T]) {
    let n = target.len();
    if n == 0 {
        return;
    }
    for (row, chunk) in target.coefficients.iter_mut().zip(flat.chunks(n)) {
        row.copy_from_slice(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattening_round_trips() {
        let u = StepInputs {
            t0: 0.5,
            coefficients: vec![vec![1.0, 2.0], vec![3.0, 4.0]],
        };
        let flat = flatten_inputs(&u);
        assert_eq!(flat, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(inputs_like(&u, &flat), u);
        let none = StepInputs::<f64>::held(0.0, &[]);
        assert_eq!(inputs_like::<f64>(&none, &flatten_inputs(&none)), none);
        let mut refilled = inputs_like(&u, &[0.0; 4]);
        refill_inputs(&mut refilled, &flat);
        assert_eq!(refilled, u);
        let mut shaped = StepInputs::held(3.0, &[9.0; 5]);
        shape_inputs(&mut shaped, &u);
        refill_inputs(&mut shaped, &flat);
        assert_eq!(shaped, u);
        let mut again = vec![7.0];
        flatten_inputs_into(&u, &mut again);
        assert_eq!((again, flat_len(&u)), (flat, 4));
    }
}
