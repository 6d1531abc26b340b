//! What a candidate's regressor learns: ln(time), or ln of its time over
//! `default`'s at the same configuration.
//!
//! A selection compares candidates at one configuration: what all of them
//! share there — the size trend, the job's placement, a slow node or a
//! noisy run of the campaign — cancels in the ratio, so each model spends
//! its capacity on what tells the candidates apart, measured against the
//! choice every decision is judged by. `default`'s own model learns
//! ln(time) either way; a ratio becomes a time again with `default`'s
//! ln(time) added.

use crate::data::Candidate;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// ln(t) of every candidate.
    Time,
    /// ln(t / t_default) of every candidate but `default`.
    RatioToDefault,
}

impl Target {
    /// Ratios, where the data allow: `default` was measured at
    /// `default_configs` configurations, and `referenced` of the `others`
    /// rows of other candidates have a `default` row at theirs. Ratios
    /// leave the others out, so when they would leave out most rows
    /// (`default` measured at few of the others' configurations) every
    /// candidate learns ln(t).
    pub fn for_coverage(default_configs: usize, referenced: usize, others: usize) -> Target {
        if default_configs > 0 && 2 * referenced >= others {
            Target::RatioToDefault
        } else {
            Target::Time
        }
    }

    /// Whether `candidate`'s model learns a ratio.
    pub fn is_ratio(self, candidate: &Candidate) -> bool {
        self == Target::RatioToDefault && !candidate.is_default()
    }

    /// The value `candidate`'s model learns from its ln time `ln_t`,
    /// `ln_default` giving `default`'s ln time at the same configuration
    /// (asked for only when needed); `None` where a ratio needs `default`
    /// and there is none.
    pub fn encode(
        self,
        candidate: &Candidate,
        ln_t: f64,
        ln_default: impl FnOnce() -> Option<f64>,
    ) -> Option<f64> {
        if self.is_ratio(candidate) {
            Some(ln_t - ln_default()?)
        } else {
            Some(ln_t)
        }
    }

    /// ln time from what `candidate`'s model predicts, `ln_default` giving
    /// `default`'s ln time (asked for only when needed); `None` where a
    /// ratio needs `default` and it cannot be had.
    pub fn decode(
        self,
        candidate: &Candidate,
        predicted: f64,
        ln_default: impl FnOnce() -> Option<f64>,
    ) -> Option<f64> {
        if self.is_ratio(candidate) {
            Some(predicted + ln_default()?)
        } else {
            Some(predicted)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Algorithm;

    #[test]
    fn ratios_round_trip_and_default_learns_times() {
        let linear = Candidate {
            algorithm: Algorithm::Linear,
            ..Candidate::DEFAULT
        };
        let ratio = Target::RatioToDefault;
        let y = ratio.encode(&linear, 3.0, || Some(1.0)).unwrap();
        assert_eq!(y, 2.0);
        assert_eq!(ratio.decode(&linear, y, || Some(1.0)), Some(3.0));
        assert_eq!(ratio.encode(&linear, 3.0, || None), None, "no default");
        assert_eq!(ratio.decode(&linear, y, || None), None);
        assert_eq!(ratio.encode(&Candidate::DEFAULT, 3.0, || None), Some(3.0));
        assert_eq!(Target::Time.encode(&linear, 3.0, || None), Some(3.0));
        let asked = std::cell::Cell::new(false);
        let time = Target::Time.decode(&linear, 3.0, || {
            asked.set(true);
            Some(1.0)
        });
        assert_eq!(time, Some(3.0));
        assert!(!asked.get(), "a time needs no default");
    }

    #[test]
    fn ratios_need_default_at_half_of_the_rows() {
        assert_eq!(Target::for_coverage(3, 5, 10), Target::RatioToDefault);
        assert_eq!(Target::for_coverage(3, 4, 10), Target::Time);
        assert_eq!(Target::for_coverage(0, 0, 10), Target::Time, "no default");
    }
}
