//! The hybrid learners' view of a configuration: the base features plus the
//! analytical model's ln(time) of the same candidate, which is also the
//! offset of the target (ln time − ln analytical, as an offset in a GLM).
//! The learner then corrects the model rather than replacing it, so where
//! the data are sparse — a job size the training data never had, where KNN
//! and trees can only repeat their neighbours — the model's trend in procs
//! and message size carries the prediction.

use crate::analytical::Fitted;
use crate::data::{Candidate, Config};
use crate::features;

/// Name of the extra column, stored in model files.
pub const FEATURE: &str = "ln_analytical_us";

/// Width of a hybrid feature row.
pub const WIDTH: usize = features::BASE.len() + 1;

/// The analytical times of every modelled candidate on one configuration.
pub struct Terms<'a> {
    fitted: &'a Fitted,
    /// Per fit, in `fitted.fits` order.
    times_us: Vec<Option<f64>>,
}

impl<'a> Terms<'a> {
    pub fn new(fitted: &'a Fitted, config: &Config) -> Terms<'a> {
        let times_us = fitted
            .fits
            .iter()
            .map(|f| fitted.predict_us(config, &f.candidate))
            .collect();
        Terms { fitted, times_us }
    }

    /// ln of the analytical time of `candidate`: its own model's or, for a
    /// candidate without a schedule (the library default), the fastest
    /// modelled candidate's — the time the library could reach. 0 when no
    /// candidate has a model: the column is then constant and the learner
    /// works as its plain self.
    pub fn of(&self, candidate: &Candidate) -> f64 {
        let own = self
            .fitted
            .position(candidate)
            .and_then(|i| self.times_us[i]);
        own.or_else(|| {
            self.times_us
                .iter()
                .flatten()
                .copied()
                .min_by(f64::total_cmp)
        })
        .map_or(0.0, |t| t.max(1e-6).ln())
    }
}

/// The hybrid feature row: the base features, then `term`.
pub fn row(config: &Config, term: f64) -> [f64; WIDTH] {
    let mut row = [0.0; WIDTH];
    row[..features::BASE.len()].copy_from_slice(&features::base(config));
    row[WIDTH - 1] = term;
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytical::{CandidateFit, Params, Shared};
    use crate::data::tests::row as measurement;
    use crate::data::Algorithm;

    #[test]
    fn default_gets_the_fastest_modelled_time() {
        let linear = measurement(4, 1024, Algorithm::Linear, 1.0);
        let fitted = Fitted {
            shared: Shared {
                gamma_slope: 1.0,
                q: 1.0,
            },
            fits: vec![CandidateFit {
                candidate: linear.candidate,
                rows: 3,
                params: Params {
                    overhead_us: 1.0,
                    shm_alpha_us: 2.0,
                    ..Params::default()
                },
                r2_log: 1.0,
            }],
            unmodeled: vec![Candidate::DEFAULT],
        };
        let terms = Terms::new(&fitted, &linear.config);
        let own = terms.of(&linear.candidate);
        assert!(own > 0.0, "linear has a model: {own}");
        assert_eq!(terms.of(&Candidate::DEFAULT), own, "the only modelled one");
        let none = Fitted {
            fits: vec![],
            ..fitted
        };
        assert_eq!(
            Terms::new(&none, &linear.config).of(&Candidate::DEFAULT),
            0.0
        );
        let r = row(&linear.config, own);
        assert_eq!(r[WIDTH - 1], own);
        assert_eq!(r[..WIDTH - 1], features::base(&linear.config));
    }
}
