//! Training: features and targets per candidate, one model per candidate and
//! learner, and the choice of the `auto` learner by leave-procs-out
//! cross-validation (whole communicator sizes held out, as at prediction
//! time the job size is usually one the data never had).

use crate::data::{Candidate, Dataset, Mapping};
use crate::error::{Error, Result};
use crate::features::{self, Samples};
use crate::learn::{LearnerKind, Model};
use crate::select::{prefer_default, Ranked, Selector};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A candidate needs at least this many measured configurations to be
/// modelled; rarer ones are left out (and reported).
pub const MIN_ROWS: usize = 3;

/// Training rows grouped by candidate.
pub struct CandidateSamples {
    pub candidates: Vec<Candidate>,
    pub samples: Vec<Samples>,
    /// Mappings each candidate was measured under.
    pub mappings: Vec<Vec<Mapping>>,
    /// Candidates left out for having fewer than [`MIN_ROWS`] rows.
    pub too_rare: Vec<(Candidate, usize)>,
}

/// Features and ln(time) of every measurement whose procs `keep` accepts.
pub fn candidate_samples(d: &Dataset, keep: impl Fn(u32) -> bool) -> CandidateSamples {
    let mut by: BTreeMap<Candidate, (Samples, BTreeSet<Mapping>)> = BTreeMap::new();
    for m in d.measurements().iter().filter(|m| keep(m.config.procs)) {
        let (samples, mappings) = by
            .entry(m.candidate)
            .or_insert_with(|| (Samples::new(features::BASE.len()), BTreeSet::new()));
        samples.push(&features::base(&m.config), m.time_us.ln());
        mappings.insert(m.config.mapping);
    }
    let mut out = CandidateSamples {
        candidates: Vec::new(),
        samples: Vec::new(),
        mappings: Vec::new(),
        too_rare: Vec::new(),
    };
    for (c, (s, mappings)) in by {
        if s.len() < MIN_ROWS {
            out.too_rare.push((c, s.len()));
        } else {
            out.candidates.push(c);
            out.samples.push(s);
            out.mappings.push(mappings.into_iter().collect());
        }
    }
    out
}

/// One model per candidate.
pub fn fit(cs: &CandidateSamples, kind: LearnerKind) -> Result<Vec<Model>> {
    let learner = kind.learner();
    cs.candidates
        .iter()
        .zip(&cs.samples)
        .map(|(c, s)| {
            learner
                .fit(s)
                .map_err(|e| Error::Other(format!("{kind} could not fit {c}: {e}")))
        })
        .collect()
}

/// How well a learner's picks did on held-out communicator sizes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CvScore {
    pub learner: LearnerKind,
    pub folds: usize,
    /// Held-out configurations with at least two candidates measured.
    pub configs: usize,
    /// The learner's margin for overriding `default` (see
    /// [`crate::select::prefer_default`]), the best of [`MARGINS`].
    pub default_margin: f64,
    /// With that margin: geometric mean of t_pick / t_best (1 = always best).
    pub geomean_slowdown_vs_best: f64,
    pub best_rate: f64,
    pub within_5pct_rate: f64,
}

/// Margins tried for keeping `default` when the models are unsure.
pub const MARGINS: [f64; 6] = [0.0, 0.02, 0.05, 0.1, 0.2, 0.4];

/// The distinct procs values split into `folds` interleaved groups, so every
/// fold spans the whole range.
pub fn procs_folds(d: &Dataset, folds: usize) -> Vec<BTreeSet<u32>> {
    let procs: BTreeSet<u32> = d.configs().map(|c| c.procs).collect();
    let k = folds.min(procs.len()).max(1);
    let mut out = vec![BTreeSet::new(); k];
    for (i, p) in procs.into_iter().enumerate() {
        out[i % k].insert(p);
    }
    out
}

/// A held-out configuration: measured time and prediction of each candidate
/// that was both measured there and trained on, fastest predicted first.
struct HeldOut {
    ranked: Vec<Ranked>,
    times: BTreeMap<usize, f64>,
}

/// Leave-procs-out cross-validation of each learner. A pick counts among the
/// candidates measured at that configuration (and trained on). Returns
/// `None` when the data has fewer than two procs values.
pub fn cross_validate(
    d: &Dataset,
    kinds: &[LearnerKind],
    folds: usize,
    mut tick: impl FnMut(),
) -> Result<Option<Vec<CvScore>>> {
    let groups = procs_folds(d, folds);
    if groups.len() < 2 {
        return Ok(None);
    }
    let mut scores = Vec::new();
    for &kind in kinds {
        let mut held_out = Vec::new();
        for held in &groups {
            let cs = candidate_samples(d, |p| !held.contains(&p));
            let models = fit(&cs, kind)?;
            let selector = Selector {
                candidates: &cs.candidates,
                models: &models,
                mappings: &cs.mappings,
                default_margin: 0.0,
            };
            for group in d.by_config().filter(|g| held.contains(&g[0].config.procs)) {
                let mut allowed = vec![false; cs.candidates.len()];
                let mut times = BTreeMap::new();
                for m in group {
                    if let Ok(i) = cs.candidates.binary_search(&m.candidate) {
                        allowed[i] = true;
                        times.insert(i, m.time_us);
                    }
                }
                if times.len() >= 2 {
                    let ranked = selector.rank(&group[0].config, Some(&allowed));
                    held_out.push(HeldOut { ranked, times });
                }
            }
            tick();
        }
        let best = MARGINS
            .iter()
            .map(|&margin| score(kind, groups.len(), margin, &held_out))
            .min_by(|a, b| {
                a.geomean_slowdown_vs_best
                    .total_cmp(&b.geomean_slowdown_vs_best)
            });
        scores.extend(best);
    }
    Ok(Some(scores))
}

/// The figures of one learner's held-out picks with one margin.
fn score(learner: LearnerKind, folds: usize, margin: f64, held_out: &[HeldOut]) -> CvScore {
    let (mut log_sum, mut best, mut within) = (0.0, 0usize, 0usize);
    for h in held_out {
        let mut ranked = h.ranked.clone();
        prefer_default(&mut ranked, margin);
        let t_best = h.times.values().copied().fold(f64::INFINITY, f64::min);
        let slowdown = h.times[&ranked[0].index] / t_best;
        log_sum += slowdown.ln();
        best += usize::from(slowdown <= 1.0 + 1e-9);
        within += usize::from(slowdown <= 1.05);
    }
    let n = held_out.len();
    let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    CvScore {
        learner,
        folds,
        configs: n,
        default_margin: margin,
        geomean_slowdown_vs_best: if n == 0 {
            f64::NAN
        } else {
            (log_sum / n as f64).exp()
        },
        best_rate: share(best),
        within_5pct_rate: share(within),
    }
}

/// A learner's cross-validated margin (0 when CV was not possible).
pub fn default_margin(cv: &[CvScore], learner: LearnerKind) -> f64 {
    cv.iter()
        .find(|s| s.learner == learner)
        .map_or(0.0, |s| s.default_margin)
}

/// The learner `auto` uses: the lowest cross-validated slowdown (ties: the
/// earlier in `kinds`), or the first learner when CV was impossible.
pub fn choose_auto(kinds: &[LearnerKind], cv: Option<&[CvScore]>) -> LearnerKind {
    cv.and_then(|scores| {
        scores
            .iter()
            .filter(|s| s.configs > 0)
            .min_by(|a, b| {
                a.geomean_slowdown_vs_best
                    .total_cmp(&b.geomean_slowdown_vs_best)
            })
            .map(|s| s.learner)
    })
    .unwrap_or(kinds[0])
}
