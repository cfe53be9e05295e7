//! Monte Carlo sets: `--sample comp.p=normal(mu,sigma)` per parameter, drawn plainly or by
//! Latin hypercube from a ChaCha8 stream seeded by `--seed`, so that a seed gives the same sets
//! on every platform. Every value is the distribution's quantile of a uniform number in (0, 1):
//! plain sampling draws that number, the Latin hypercube draws it inside one of N equal strata,
//! each stratum used once per parameter.

use rand::distr::{Distribution as _, Open01};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, LogNormal, Normal, Uniform};

use crate::error::{Error, Result};

/// The distribution of one sampled parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform between the bounds.
    Uniform(f64, f64),
    /// Normal with mean and standard deviation.
    Normal(f64, f64),
    /// Log-normal: the logarithm is normal with this mean and standard deviation.
    LogNormal(f64, f64),
}

/// One sampled parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// `component.parameter`.
    pub name: String,
    /// Its distribution.
    pub distribution: Distribution,
}

impl Sampled {
    /// Parses `comp.p=uniform(lo,hi)`, `comp.p=normal(mu,sigma)` or `comp.p=lognormal(mu,sigma)`.
    pub fn parse(text: &str) -> Result<Sampled> {
        let invalid = |message: &str| {
            Error::invalid_value(
                format!("--sample {text}"),
                format!(
                "{message} (expected component.parameter=uniform(low,high), normal(mu,sigma) or \
                 lognormal(mu,sigma))"
            ),
            )
        };
        let (name, law) = text
            .split_once('=')
            .ok_or_else(|| invalid("no '=' after the parameter"))?;
        let law = law.trim();
        let (kind, arguments) = law
            .strip_suffix(')')
            .and_then(|l| l.split_once('('))
            .ok_or_else(|| invalid("the distribution is not written as name(a,b)"))?;
        let numbers = arguments
            .split(',')
            .map(|a| a.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| invalid("the arguments are not finite numbers"))?;
        let [a, b] = numbers[..] else {
            return Err(invalid("the distribution takes two arguments"));
        };
        let distribution = match kind.trim() {
            "uniform" if a < b => Distribution::Uniform(a, b),
            "uniform" => return Err(invalid("uniform(low,high) needs low < high")),
            "normal" | "lognormal" if b <= 0.0 => {
                return Err(invalid("the standard deviation must be positive"))
            }
            "normal" => Distribution::Normal(a, b),
            "lognormal" => Distribution::LogNormal(a, b),
            other => return Err(invalid(&format!("unknown distribution {other}"))),
        };
        Ok(Sampled {
            name: name.trim().to_string(),
            distribution,
        })
    }

    /// The value whose cumulative probability is `u`, in (0, 1).
    fn quantile(&self, u: f64) -> f64 {
        let checked = "the parameters were checked when parsed";
        match self.distribution {
            Distribution::Uniform(low, high) => {
                Uniform::new(low, high).expect(checked).inverse_cdf(u)
            }
            Distribution::Normal(mu, sigma) => {
                Normal::new(mu, sigma).expect(checked).inverse_cdf(u)
            }
            Distribution::LogNormal(mu, sigma) => {
                LogNormal::new(mu, sigma).expect(checked).inverse_cdf(u)
            }
        }
    }
}

/// How the uniform numbers behind the samples are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// Independently.
    Plain,
    /// One per stratum of (0, 1) and parameter, strata shuffled per parameter.
    LatinHypercube,
}

/// `count` sets of the parameters `sampled`, reproducible from `seed`.
pub fn sample(sampled: &[Sampled], count: usize, design: Design, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sets = vec![Vec::with_capacity(sampled.len()); count];
    // Column by column, so that adding a parameter at the end leaves the others' values alone.
    for parameter in sampled {
        let mut strata: Vec<usize> = (0..count).collect();
        if design == Design::LatinHypercube {
            strata.shuffle(&mut rng);
        }
        for (set, stratum) in sets.iter_mut().zip(strata) {
            let u: f64 = Open01.sample(&mut rng);
            let u = match design {
                Design::Plain => u,
                Design::LatinHypercube => (stratum as f64 + u) / count as f64,
            };
            set.push(parameter.quantile(u));
        }
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal() -> Sampled {
        Sampled::parse("a.k = normal(2, 0.5)").unwrap()
    }

    #[test]
    fn a_seed_gives_the_same_sets_and_another_seed_others() {
        let sampled = [normal(), Sampled::parse("b.m=uniform(1,3)").unwrap()];
        let first = sample(&sampled, 20, Design::Plain, 7);
        assert_eq!(first, sample(&sampled, 20, Design::Plain, 7));
        assert_ne!(first, sample(&sampled, 20, Design::Plain, 8));
        assert!(first.iter().all(|set| (1.0..3.0).contains(&set[1])));
    }

    #[test]
    fn plain_samples_have_the_distributions_moments() {
        let sets = sample(&[normal()], 20_000, Design::Plain, 1);
        let values: Vec<f64> = sets.iter().map(|s| s[0]).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
        // Standard errors: 0.5 / sqrt(20000) = 0.0035 for the mean, about 0.0025 for sigma.
        assert!((mean - 2.0).abs() < 0.015, "mean {mean}");
        assert!(
            (variance.sqrt() - 0.5).abs() < 0.01,
            "sigma {}",
            variance.sqrt()
        );
        let lognormal = Sampled::parse("a.k=lognormal(0,0.25)").unwrap();
        let sets = sample(&[lognormal], 20_000, Design::Plain, 2);
        let log_mean = sets.iter().map(|s| s[0].ln()).sum::<f64>() / 20_000.0;
        assert!(log_mean.abs() < 0.01, "mean of the logarithm {log_mean}");
    }

    #[test]
    fn a_latin_hypercube_puts_one_value_in_each_stratum() {
        let sampled = [
            Sampled::parse("a.x=uniform(0,10)").unwrap(),
            Sampled::parse("b.y=uniform(-1,1)").unwrap(),
        ];
        let sets = sample(&sampled, 10, Design::LatinHypercube, 3);
        for (column, (low, width)) in [(0.0, 1.0), (-1.0, 0.2)].into_iter().enumerate() {
            let mut strata: Vec<usize> = sets
                .iter()
                .map(|set| ((set[column] - low) / width).floor() as usize)
                .collect();
            strata.sort_unstable();
            assert_eq!(
                strata,
                (0..10).collect::<Vec<_>>(),
                "column {column}: {sets:?}"
            );
        }
    }

    #[test]
    fn bad_distributions_say_what_is_wrong() {
        for (text, needle) in [
            ("a.k=normal(1,0)", "standard deviation must be positive"),
            ("a.k=uniform(2,1)", "low < high"),
            ("a.k=gamma(1,2)", "unknown distribution gamma"),
            ("a.k=normal(1)", "two arguments"),
            ("a.k=normal 1,2", "name(a,b)"),
        ] {
            let message = Sampled::parse(text).unwrap_err().to_string();
            assert!(message.contains(needle), "{text}: {message}");
        }
    }
}
