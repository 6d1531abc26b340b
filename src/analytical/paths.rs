//! The critical paths of a fit's rows, kept so that refits on part of the
//! rows (cross-validation's folds) price them without simulating again:
//! along a fixed path a time is linear in the platform's parameters, so a
//! fold's time of a row is the row's path counts times the fold's
//! parameters. The path is the one that is critical under the full fit's
//! parameters; under a fold's own another may be longer where two are
//! nearly equally long, so a time along the kept path is at most the
//! fold's simulated one, and close to it (a fold's parameters are fitted
//! on most of the same rows). The rows a fold holds out are priced the same
//! way: simulating them under each fold's parameters would be most of a
//! large campaign's cross-validation (3 of every 4 s of a fold of the 1m
//! file of `experiments/scale.sh`) and moves its figures little
//! (`experiments/benchmarks.md`).

use super::memo::Memo;
use super::platform::{Platform, WIDTH};
use super::price::{self, Statistic};
use crate::data::{Candidate, Config};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::fmt;

/// Per (configuration, schedule run), its time and path under the platform
/// it was traced on.
pub struct Paths {
    pub statistic: Statistic,
    paths: FxHashMap<(Config, Candidate), Path>,
}

/// A time, and the count of each platform parameter it sums (by index in
/// [`Platform::to_vec`] order; most are zero).
pub struct Path {
    pub value: f64,
    counts: Box<[(u8, f64)]>,
}

impl Paths {
    /// Traces `pairs` on `platform`, on every core; pairs no schedule
    /// prices are left out.
    pub fn trace(
        collective: crate::data::Collective,
        pairs: &[(Config, Candidate)],
        platform: &Platform,
        statistic: Statistic,
    ) -> Paths {
        let memo = Memo::default();
        let paths = pairs
            .par_iter()
            .filter_map(|(config, runs)| {
                let priced = price::recipe(collective, config, runs)?.combine(|run| {
                    memo.get_or(run, || price::run_terms(run, platform, statistic))
                })?;
                let counts = (0..WIDTH)
                    .filter(|&i| priced.terms[i] != 0.0)
                    .map(|i| (i as u8, priced.terms[i]))
                    .collect();
                let path = Path {
                    value: priced.value,
                    counts,
                };
                Some(((*config, *runs), path))
            })
            .collect();
        Paths { statistic, paths }
    }

    pub fn get(&self, config: &Config, runs: &Candidate) -> Option<&Path> {
        self.paths.get(&(*config, *runs))
    }
}

impl Path {
    /// The time along this path on `platform`.
    pub fn on(&self, platform: &[f64]) -> f64 {
        self.counts
            .iter()
            .map(|&(i, n)| n * platform[i as usize])
            .sum()
    }
}

impl fmt::Debug for Paths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Paths({} under {:?})", self.paths.len(), self.statistic)
    }
}
