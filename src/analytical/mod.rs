//! Analytical cost models of every collective's algorithms, derived from
//! the same schedules the harness runs: a call costs what its schedule costs
//! when simulated on the job's placement under a LogGP-like model of the
//! platform (see [`crate::sim`]): per channel (shared memory within a node,
//! network across nodes) the sender's busy time per message and per byte —
//! a rank's sends leave one after another — and the overlapping time in
//! flight per message and per byte. The time is that of the last rank to
//! finish, so it follows the critical path through the tree: a binomial
//! tree's first child forwards while the root still sends to the others,
//! which a sum of synchronous stages cannot express.
//!
//! What is shared and why: the eight platform parameters are properties of
//! the machine, not of an algorithm, so every row of every candidate fits
//! them together — `default` rows included, as runs of the algorithm the
//! library chose ([`crate::library`]). An algorithm that was never forced
//! (knomial, a segmented variant) is then priced from the same platform.
//! What a schedule cannot explain gets a factor per (algorithm,
//! implementation) and message size where the data show the platform
//! misprices the algorithm, against the others measured at the same
//! configurations, beyond their noise ([`correct`]). There is no free
//! constant per collective and algorithm: nothing holds it back where an
//! algorithm has few rows, so a handful of rows would set it at will
//! (`experiments/analytical.md` measures what it did).

pub mod correct;
pub mod fit;
pub mod memo;
pub mod paths;
pub mod platform;
pub mod price;
mod solve;

use crate::data::metrics::Pairwise;
use crate::data::{Candidate, Config};
use crate::library::{DefaultCheck, Library, Regime};
use memo::Memo;
use price::Run;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Huber's threshold, in robust standard deviations (95% efficiency when
/// the residuals are normal): the fit's weights and the corrections'
/// clipping both stop outliers there.
const HUBER_K: f64 = 1.345;
/// A median absolute deviation times this estimates the standard
/// deviation of normal residuals.
const MAD_TO_SD: f64 = 1.4826;

/// The fitted platform and per-algorithm terms.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fitted {
    /// The collective the model prices (its data's).
    #[serde(default)]
    pub collective: crate::data::Collective,
    /// The platform's costs; `None` where no row could be fitted (no
    /// measured algorithm has a schedule): nothing is priced then.
    pub platform: Option<platform::Platform>,
    /// Which time of a call the data hold.
    pub statistic: price::Statistic,
    /// Per algorithm, what the platform leaves unexplained.
    pub corrections: Vec<correct::Correction>,
    pub library: Library,
    /// Whether measured `default` behaves like what `library` says it runs.
    pub default_checks: Vec<DefaultCheck>,
    /// The channels the fitted rows used; an unused channel's parameters
    /// are copied from the other (a guess: nothing measured them).
    pub measured_shm: bool,
    pub measured_net: bool,
    pub summary: FitSummary,
    /// Prices by (configuration, schedule): selection prices the same
    /// configurations for every learner and size table.
    #[serde(skip)]
    memo: Memo<(Config, Candidate), f64>,
    /// The simulated runs those prices are made of.
    #[serde(skip)]
    runs: Memo<Run, f64>,
    /// The fitted rows' paths, where kept (see [`paths`]).
    #[serde(skip)]
    along: Option<Along>,
}

/// Paths a fit prices the rows they hold along: traced under its own
/// parameters (a full fit), or under its full fit's (a cross-validation
/// fold, which prices along them under its own parameters, its held-out
/// rows included).
#[derive(Clone, Debug)]
struct Along {
    paths: Arc<paths::Paths>,
    /// A fold's parameters, [`platform::Platform::to_vec`] order; `None`
    /// for the fit that traced the paths (their times are its own).
    theta: Option<Vec<f64>>,
}

/// How well the model explains the rows it was fitted on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitSummary {
    pub rows: usize,
    /// R² of ln(time); none where the times do not vary (one row) or a
    /// row is not priced.
    pub r2_log: Option<f64>,
    /// Pairwise ranking accuracy over the measured candidates of each
    /// configuration (see [`crate::data::metrics::pairwise_accuracy`]).
    pub pairwise: Option<Pairwise>,
    /// How far the per-algorithm corrections stood out from the noise.
    #[serde(default)]
    pub shrinkage: correct::Shrinkage,
}

impl Fitted {
    /// The schedule `candidate` runs on `config`, where the model can price
    /// it: `default` as the library's choice unless the data refuted that
    /// in this regime; nothing for runs no schedule describes.
    pub fn runs(&self, config: &Config, candidate: &Candidate) -> Option<Candidate> {
        let refuted = self
            .default_checks
            .iter()
            .any(|c| c.refuted && c.regime == Regime::of(config));
        if candidate.is_default() && refuted {
            return None;
        }
        self.library.runs(self.collective, config, candidate)
    }

    /// Predicted time (µs) of `candidate` on `config`; `None` where the
    /// model cannot price it.
    pub fn predict_us(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        let platform = self.platform.as_ref()?;
        let runs = self.runs(config, candidate)?;
        let t = match self.along(config, &runs) {
            Some(t) => t,
            None => self.memo.get_or(&(*config, runs), || {
                price::recipe(self.collective, config, &runs)?.combine(|run| {
                    self.runs
                        .get_or(run, || price::simulate_run(run, platform, self.statistic))
                })
            })?,
        };
        // Every coefficient is ≥ 0; the floor keeps ln finite for a
        // broadcast that sends nothing.
        let factor = self.correction(&runs, config.msg_bytes).exp();
        Some((t * factor).max(1e-3))
    }

    /// Prices `pairs` on every core, so that the calls that follow find
    /// them remembered (`evaluate` prices every test row for each selector,
    /// one after another; a fit's own rows are priced once, along their
    /// paths).
    pub fn prime<'p>(&self, pairs: impl Iterator<Item = (&'p Config, &'p Candidate)>) {
        let pairs: Vec<_> = pairs.collect();
        if pairs.len() > Memo::<(Config, Candidate), f64>::MOST {
            return; // the memo would forget them before they are asked for
        }
        pairs.par_iter().for_each(|(config, candidate)| {
            self.predict_us(config, candidate);
        });
    }

    /// The time of a traced row along its kept path.
    fn along(&self, config: &Config, runs: &Candidate) -> Option<f64> {
        let along = self.along.as_ref()?;
        let path = along.paths.get(config, runs)?;
        Some(match &along.theta {
            None => path.value,
            Some(theta) => path.on(theta),
        })
    }

    /// ln of the correction factor of a schedule at a message size.
    fn correction(&self, runs: &Candidate, msg_bytes: u64) -> f64 {
        self.corrections
            .iter()
            .find(|c| c.algorithm == runs.algorithm && c.implementation == runs.implementation)
            .map_or(0.0, |c| c.at(msg_bytes))
    }

    /// Whether a model read from a file can price: a link per knot on each
    /// channel, every cost parameter finite and non-negative, finite
    /// corrections.
    pub fn check(&self) -> Result<(), String> {
        let Some(platform) = &self.platform else {
            return Ok(()); // prices nothing
        };
        if !platform.is_complete() {
            return Err("the platform lacks links at some message sizes".into());
        }
        let bad = platform
            .to_vec()
            .into_iter()
            .find(|v| !(v.is_finite() && *v >= 0.0));
        if let Some(v) = bad {
            return Err(format!("a cost parameter is {v}"));
        }
        if self
            .corrections
            .iter()
            .flat_map(|c| &c.log_factor)
            .any(|f| !f.is_finite())
        {
            return Err("a correction factor is not finite".into());
        }
        Ok(())
    }

    /// Whether the channels `config` uses were measured: without, its
    /// prices are guesses.
    pub fn channels_measured(&self, config: &Config) -> bool {
        (config.nodes <= 1 || self.measured_net) && (config.ppn <= 1 || self.measured_shm)
    }
}
