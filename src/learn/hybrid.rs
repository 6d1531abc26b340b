//! The hybrid learners' view of a configuration: the base features plus the
//! analytical model's ln(time) of the same candidate, which is also the
//! offset of the target (ln time − ln analytical, as an offset in a GLM).
//! The learner then corrects the model rather than replacing it, so where
//! the data are sparse — a job size the training data never had, where KNN
//! and trees can only repeat their neighbours — the model's trend in procs
//! and message size carries the prediction. Where the targets are ratios
//! to `default` ([`crate::train::samples::candidate_samples`]), the offset is the
//! model's ratio (the candidate's term minus `default`'s).

use crate::analytical::Fitted;
use crate::data::{Candidate, Config};
use crate::learn::features;

/// Name of the extra column, stored in model files.
pub const FEATURE: &str = "ln_analytical_us";

/// Width of a hybrid feature row.
pub const WIDTH: usize = features::BASE.len() + 1;

/// The analytical times of the candidates on one configuration.
pub struct Terms<'a> {
    fitted: &'a Fitted,
    config: &'a Config,
    /// The fastest priced candidate's time, once asked for.
    fastest: std::cell::OnceCell<Option<f64>>,
    candidates: &'a [Candidate],
}

impl<'a> Terms<'a> {
    /// Terms of `candidates` (the ones a selector ranks) on `config`.
    pub fn new(fitted: &'a Fitted, config: &'a Config, candidates: &'a [Candidate]) -> Terms<'a> {
        Terms {
            fitted,
            config,
            fastest: std::cell::OnceCell::new(),
            candidates,
        }
    }

    /// ln of the analytical time of `candidate`: its own price or, where
    /// the model cannot price it (`default` where the library's choice is
    /// unknown), the fastest priced candidate's — the time the library
    /// could reach. 0 when nothing is priced: the column is then constant
    /// and the learner works as its plain self.
    pub fn of(&self, candidate: &Candidate) -> f64 {
        let own = self.fitted.predict_us(self.config, candidate);
        own.or_else(|| {
            *self.fastest.get_or_init(|| {
                self.candidates
                    .iter()
                    .filter_map(|c| self.fitted.predict_us(self.config, c))
                    .min_by(f64::total_cmp)
            })
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
    use crate::analytical::fit::fit_dataset;
    use crate::data::tests::row as measurement;
    use crate::data::{Algorithm, Dataset, Provenance};

    #[test]
    fn default_gets_its_own_price_or_the_fastest() {
        let rows: Vec<_> = (2..9)
            .flat_map(|p| {
                [
                    measurement(p, 1024, Algorithm::Linear, 2.0 + f64::from(p)),
                    measurement(p, 1024, Algorithm::Binomial, 3.0 + f64::from(p).log2()),
                ]
            })
            .collect();
        let fitted = fit_dataset(&Dataset::from_rows(rows.clone(), Provenance::default()));
        let candidates = [rows[0].candidate, rows[1].candidate, Candidate::DEFAULT];
        let config = rows[0].config;
        let terms = Terms::new(&fitted, &config, &candidates);
        let linear = terms.of(&candidates[0]);
        assert!(linear.is_finite() && linear != 0.0);
        // Open MPI's fixed decision is priced like any schedule.
        let runs = fitted.runs(&config, &Candidate::DEFAULT).unwrap();
        assert_eq!(
            terms.of(&Candidate::DEFAULT),
            fitted.predict_us(&config, &runs).unwrap().ln()
        );
        let mut mpich = fitted.clone();
        mpich.library = crate::library::Library::Mpich;
        let terms = Terms::new(&mpich, &config, &candidates);
        let fastest = terms.of(&candidates[0]).min(terms.of(&candidates[1]));
        assert_eq!(
            terms.of(&Candidate::DEFAULT),
            fastest,
            "unpriced: the fastest"
        );
        let r = row(&config, linear);
        assert_eq!(r[WIDTH - 1], linear);
        assert_eq!(r[..WIDTH - 1], features::base(&config));
    }
}
