//! Selection: predict every candidate's time for a configuration and rank
//! them; the fastest predicted is the choice.

use crate::analytical::Fitted;
use crate::data::{Candidate, Config, Mapping};
use crate::features;
use crate::hybrid::{self, Terms};
use crate::learn::{LearnerKind, Model};

/// A candidate with its predicted time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranked {
    pub index: usize,
    pub candidate: Candidate,
    pub predicted_us: f64,
}

/// Where a candidate's predicted time comes from.
#[derive(Clone, Copy)]
pub enum Predictor<'a> {
    /// One regressor per candidate on the base features.
    Learned(&'a [Model]),
    /// One regressor per candidate on the hybrid features (see
    /// [`crate::hybrid`]), predicting ln time relative to the model.
    Hybrid(&'a [Model], &'a Fitted),
    /// The analytical models alone; candidates without one are not offered.
    Analytical(&'a Fitted),
}

impl<'a> Predictor<'a> {
    /// The predictor of a learner's per-candidate `models`: hybrid ones
    /// need the analytical models too.
    pub fn of(kind: LearnerKind, models: &'a [Model], analytical: &'a Fitted) -> Predictor<'a> {
        if kind.is_hybrid() {
            Predictor::Hybrid(models, analytical)
        } else {
            Predictor::Learned(models)
        }
    }
}

/// The candidates with their predictor and the mappings each candidate was
/// measured under.
pub struct Selector<'a> {
    pub candidates: &'a [Candidate],
    pub predictor: Predictor<'a>,
    pub mappings: &'a [Vec<Mapping>],
    /// Another candidate replaces `default` only when predicted faster by
    /// more than this fraction (chosen by cross-validation in `train`).
    pub default_margin: f64,
}

impl Selector<'_> {
    /// Candidates (those `allowed`, if given) fastest predicted first. A
    /// candidate never measured under the configuration's mapping is not
    /// offered (its prediction there would be pure extrapolation), unless no
    /// candidate was; nor is one the predictor has no model for. Empty only
    /// when nothing is left.
    pub fn rank(&self, config: &Config, allowed: Option<&[bool]>) -> Vec<Ranked> {
        let base = features::base(config);
        let terms = match self.predictor {
            Predictor::Hybrid(_, fitted) => Some(Terms::new(fitted, config, self.candidates)),
            _ => None,
        };
        let predict = |i: usize, candidate: &Candidate| match self.predictor {
            Predictor::Learned(models) => Some(models[i].predict(&base).exp()),
            Predictor::Hybrid(models, _) => {
                let term = terms.as_ref()?.of(candidate);
                Some((models[i].predict(&hybrid::row(config, term)) + term).exp())
            }
            Predictor::Analytical(fitted) => fitted.predict_us(config, candidate),
        };
        let mut ranked: Vec<Ranked> = self
            .candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| allowed.is_none_or(|a| a[*i]))
            .filter_map(|(index, candidate)| {
                Some(Ranked {
                    index,
                    candidate: *candidate,
                    predicted_us: predict(index, candidate)?,
                })
            })
            .collect();
        let seen = |r: &Ranked| self.mappings[r.index].contains(&config.mapping);
        if ranked.iter().any(seen) {
            ranked.retain(seen);
        }
        // NaN (a broken model) sorts last.
        ranked.sort_by(|a, b| a.predicted_us.total_cmp(&b.predicted_us));
        prefer_default(&mut ranked, self.default_margin);
        ranked
    }
}

/// Moves `default` to the front unless the fastest candidate is predicted
/// faster than it by more than `margin`: leaving the choice to the library
/// is the safe decision when the models cannot tell the candidates apart.
pub fn prefer_default(ranked: &mut [Ranked], margin: f64) {
    let Some(d) = ranked.iter().position(|r| r.candidate.is_default()) else {
        return;
    };
    if d > 0 && ranked[0].predicted_us >= (1.0 - margin) * ranked[d].predicted_us {
        ranked[..=d].rotate_right(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Candidate};

    fn r(index: usize, algorithm: Algorithm, predicted_us: f64) -> Ranked {
        Ranked {
            index,
            candidate: Candidate {
                algorithm,
                ..Candidate::DEFAULT
            },
            predicted_us,
        }
    }

    #[test]
    fn default_keeps_its_place_unless_clearly_beaten() {
        let ranked = [
            r(0, Algorithm::Binomial, 9.5),
            r(1, Algorithm::Linear, 9.8),
            r(2, Algorithm::Default, 10.0),
        ];
        let mut a = ranked;
        prefer_default(&mut a, 0.1);
        assert_eq!(
            a.map(|x| x.index),
            [2, 0, 1],
            "5% faster is not enough at 10%"
        );
        let mut b = ranked;
        prefer_default(&mut b, 0.02);
        assert_eq!(b.map(|x| x.index), [0, 1, 2], "5% faster is enough at 2%");
        let mut c = ranked;
        prefer_default(&mut c, 0.0);
        assert_eq!(c.map(|x| x.index), [0, 1, 2]);
    }
}
