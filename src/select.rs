//! Selection: predict every candidate's time for a configuration and rank
//! them; the fastest predicted is the choice.

use crate::data::{Candidate, Config, Mapping};
use crate::features;
use crate::learn::Model;

/// A candidate with its predicted time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranked {
    pub index: usize,
    pub candidate: Candidate,
    pub predicted_us: f64,
}

/// Per-candidate models of one learner, with the mappings each candidate
/// was measured under.
pub struct Selector<'a> {
    pub candidates: &'a [Candidate],
    pub models: &'a [Model],
    pub mappings: &'a [Vec<Mapping>],
}

impl Selector<'_> {
    /// Candidates (those `allowed`, if given) fastest predicted first. A
    /// candidate never measured under the configuration's mapping is not
    /// offered (its prediction there would be pure extrapolation), unless no
    /// candidate was.
    pub fn rank(&self, config: &Config, allowed: Option<&[bool]>) -> Vec<Ranked> {
        let row = features::base(config);
        let seen = |i: usize| self.mappings[i].contains(&config.mapping);
        let any_seen = (0..self.candidates.len()).any(seen);
        let mut ranked: Vec<Ranked> = self
            .candidates
            .iter()
            .zip(self.models)
            .enumerate()
            .filter(|(i, _)| allowed.is_none_or(|a| a[*i]) && (!any_seen || seen(*i)))
            .map(|(index, (candidate, model))| Ranked {
                index,
                candidate: *candidate,
                predicted_us: model.predict(&row).exp(),
            })
            .collect();
        // NaN (a broken model) sorts last.
        ranked.sort_by(|a, b| a.predicted_us.total_cmp(&b.predicted_us));
        ranked
    }
}
