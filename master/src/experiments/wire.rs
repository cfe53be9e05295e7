//! The results of an experiment as ranks exchange them: its cost and gradient with how each
//! derivative was taken, finite differences, and the cost's outputs for the plots.

use crate::cluster::wire::Wire;
use crate::gradient::{Evaluation, Method, Outputs};

impl Wire for Method {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Method::Adjoint => out.push(0),
            Method::ForwardSensitivities => out.push(1),
            Method::FiniteDifferences { reason } => {
                out.push(2);
                reason.put(out);
            }
        }
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        let (&tag, rest) = input.split_first()?;
        *input = rest;
        match tag {
            0 => Some(Method::Adjoint),
            1 => Some(Method::ForwardSensitivities),
            2 => Some(Method::FiniteDifferences {
                reason: String::take(input)?,
            }),
            _ => None,
        }
    }
}

impl Wire for Evaluation {
    fn put(&self, out: &mut Vec<u8>) {
        self.cost.put(out);
        self.gradient.put(out);
        self.methods.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some(Evaluation {
            cost: f64::take(input)?,
            gradient: Vec::take(input)?,
            methods: Vec::take(input)?,
        })
    }
}

impl Wire for Outputs {
    fn put(&self, out: &mut Vec<u8>) {
        self.times.put(out);
        self.columns.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        Some(Outputs {
            times: Vec::take(input)?,
            columns: Vec::take(input)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::wire::{decode, encode};

    #[test]
    fn evaluations_and_outputs_read_back_equal() {
        let evaluation = Evaluation {
            cost: 0.1 + 0.2,
            gradient: vec![-1e-300, 7.5],
            methods: vec![
                Method::Adjoint,
                Method::FiniteDifferences {
                    reason: "no adjoint extension".into(),
                },
            ],
        };
        let back: Evaluation = decode(&encode(&evaluation)).expect("reads back");
        assert_eq!(back.cost.to_bits(), evaluation.cost.to_bits());
        assert_eq!(back.gradient, evaluation.gradient);
        assert_eq!(back.methods, evaluation.methods);
        let outputs = Outputs {
            times: vec![0.0, 0.5],
            columns: vec![("a.y".into(), vec![1.0, 2.0], Some(vec![1.5, 2.5]))],
        };
        assert_eq!(decode(&encode(&outputs)), Some(outputs));
        assert_eq!(decode::<Method>(&[3]), None);
    }
}
