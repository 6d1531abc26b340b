//! Training: features and targets per candidate, one model per candidate and
//! learner, and the choice of the `auto` learner by leave-procs-out
//! cross-validation (whole communicator sizes held out, as at prediction
//! time the job size is usually one the data never had).

use crate::analytical::fit::fit_dataset;
use crate::analytical::Fitted;
use crate::data::{Candidate, Config, Dataset, Mapping};
use crate::error::{Error, Result};
use crate::features::{self, Samples};
use crate::hybrid::{self, Terms};
use crate::learn::{LearnerKind, Model};
use crate::select::{prefer_default, Predictor, Ranked, Selector};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A candidate needs at least this many measured configurations to be
/// modelled; rarer ones are left out (and reported).
pub const MIN_ROWS: usize = 3;

/// Training rows grouped by candidate.
pub struct CandidateSamples {
    pub candidates: Vec<Candidate>,
    pub samples: Vec<Samples>,
    /// The configuration of each sample row.
    pub configs: Vec<Vec<Config>>,
    /// Mappings each candidate was measured under.
    pub mappings: Vec<Vec<Mapping>>,
    /// Candidates left out for having fewer than [`MIN_ROWS`] rows.
    pub too_rare: Vec<(Candidate, usize)>,
}

/// Features and ln(time) of every measurement.
pub fn candidate_samples(d: &Dataset) -> CandidateSamples {
    let mut by: BTreeMap<Candidate, (Samples, Vec<Config>)> = BTreeMap::new();
    for m in d.measurements() {
        let (samples, configs) = by
            .entry(m.candidate)
            .or_insert_with(|| (Samples::new(features::BASE.len()), Vec::new()));
        samples.push(&features::base(&m.config), m.time_us.ln());
        configs.push(m.config);
    }
    let mut out = CandidateSamples {
        candidates: Vec::new(),
        samples: Vec::new(),
        configs: Vec::new(),
        mappings: Vec::new(),
        too_rare: Vec::new(),
    };
    for (c, (s, configs)) in by {
        if s.len() < MIN_ROWS {
            out.too_rare.push((c, s.len()));
        } else {
            let mappings: BTreeSet<Mapping> = configs.iter().map(|c| c.mapping).collect();
            out.candidates.push(c);
            out.samples.push(s);
            out.configs.push(configs);
            out.mappings.push(mappings.into_iter().collect());
        }
    }
    out
}

/// Everything the learners train on: the samples per candidate, the
/// analytical models fitted on the same rows, and — when a hybrid learner
/// is wanted — the samples as the hybrids see them.
pub struct TrainingSet {
    pub cs: CandidateSamples,
    pub analytical: Fitted,
    hybrid: Vec<Samples>,
}

impl TrainingSet {
    /// `hybrid`: whether to build the hybrid samples.
    pub fn new(d: &Dataset, hybrid: bool) -> TrainingSet {
        let cs = candidate_samples(d);
        let analytical = fit_dataset(d);
        let hybrid = if hybrid {
            hybrid_samples(&cs, &analytical)
        } else {
            Vec::new()
        };
        TrainingSet {
            cs,
            analytical,
            hybrid,
        }
    }

    /// One model per candidate. A hybrid learner needs the set built with
    /// `hybrid`.
    pub fn fit(&self, kind: LearnerKind) -> Result<Vec<Model>> {
        let samples = if kind.is_hybrid() {
            &self.hybrid
        } else {
            &self.cs.samples
        };
        if samples.len() != self.cs.candidates.len() {
            return Err(Error::Other(format!(
                "{kind} needs the hybrid features, which were not built"
            )));
        }
        let learner = kind.learner();
        self.cs
            .candidates
            .iter()
            .zip(samples)
            .map(|(c, s)| {
                learner
                    .fit(s)
                    .map_err(|e| Error::Other(format!("{kind} could not fit {c}: {e}")))
            })
            .collect()
    }

    /// The selector of `kind`'s fitted `models`.
    pub fn selector<'a>(
        &'a self,
        kind: LearnerKind,
        models: &'a [Model],
        default_margin: f64,
    ) -> Selector<'a> {
        Selector {
            candidates: &self.cs.candidates,
            predictor: Predictor::of(kind, models, &self.analytical),
            mappings: &self.cs.mappings,
            default_margin,
        }
    }
}

/// Each candidate's samples with the analytical term appended and taken off
/// the target (see [`crate::hybrid`]).
fn hybrid_samples(cs: &CandidateSamples, analytical: &Fitted) -> Vec<Samples> {
    let configs: BTreeSet<&Config> = cs.configs.iter().flatten().collect();
    let terms: BTreeMap<&Config, Terms> = configs
        .into_iter()
        .map(|c| (c, Terms::new(analytical, c, &cs.candidates)))
        .collect();
    cs.candidates
        .iter()
        .zip(cs.samples.iter().zip(&cs.configs))
        .map(|(candidate, (samples, configs))| {
            let mut out = Samples::new(hybrid::WIDTH);
            for (config, y) in configs.iter().zip(&samples.y) {
                let term = terms[config].of(candidate);
                out.push(&hybrid::row(config, term), y - term);
            }
            out
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
/// candidates measured at that configuration (and trained on). The
/// analytical models are refitted per fold. Returns `None` when the data has fewer than
/// two procs values or no held-out configuration measured with two or more
/// candidates (there is nothing to choose between).
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
    let hybrid = kinds.iter().any(|k| k.is_hybrid());
    // Folds are independent: one thread each, joined in order, so the
    // figures do not depend on scheduling.
    let per_fold: Vec<Result<Vec<Vec<HeldOut>>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .iter()
            .map(|held| scope.spawn(move || held_out_picks(d, held, kinds, hybrid)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let picks = h
                    .join()
                    .unwrap_or_else(|_| Err(Error::Other("a cross-validation fold failed".into())));
                kinds.iter().for_each(|_| tick());
                picks
            })
            .collect()
    });
    let mut held_out: Vec<Vec<HeldOut>> = kinds.iter().map(|_| Vec::new()).collect();
    for fold in per_fold {
        for (all, picks) in held_out.iter_mut().zip(fold?) {
            all.extend(picks);
        }
    }
    // A learner with nothing held out to score (every held-out configuration
    // had a single candidate) gets no row; no rows at all is no CV.
    let scores: Vec<CvScore> = kinds
        .iter()
        .zip(&held_out)
        .filter(|(_, held_out)| !held_out.is_empty())
        .filter_map(|(&kind, held_out)| {
            MARGINS
                .iter()
                .map(|&margin| score(kind, groups.len(), margin, held_out))
                .min_by(|a, b| {
                    a.geomean_slowdown_vs_best
                        .total_cmp(&b.geomean_slowdown_vs_best)
                })
        })
        .collect();
    Ok((!scores.is_empty()).then_some(scores))
}

/// Every learner's picks on the configurations of the procs values `held`,
/// trained on the others.
fn held_out_picks(
    d: &Dataset,
    held: &BTreeSet<u32>,
    kinds: &[LearnerKind],
    hybrid: bool,
) -> Result<Vec<Vec<HeldOut>>> {
    let part = d.subset(|m| !held.contains(&m.config.procs));
    let set = TrainingSet::new(&part, hybrid);
    let cs = &set.cs;
    let tests: Vec<_> = d
        .by_config()
        .filter(|g| held.contains(&g[0].config.procs))
        .filter_map(|group| {
            let mut allowed = vec![false; cs.candidates.len()];
            let mut times = BTreeMap::new();
            for m in group {
                if let Ok(i) = cs.candidates.binary_search(&m.candidate) {
                    allowed[i] = true;
                    times.insert(i, m.time_us);
                }
            }
            (times.len() >= 2).then_some((group[0].config, allowed, times))
        })
        .collect();
    kinds
        .iter()
        .map(|&kind| {
            let models = set.fit(kind)?;
            let selector = set.selector(kind, &models, 0.0);
            Ok(tests
                .iter()
                .filter_map(|(config, allowed, times)| {
                    let ranked = selector.rank(config, Some(allowed));
                    (!ranked.is_empty()).then(|| HeldOut {
                        ranked,
                        times: times.clone(),
                    })
                })
                .collect())
        })
        .collect()
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
        // `cross_validate` scores no empty list; 1 then would not be NaN,
        // which JSON cannot hold.
        geomean_slowdown_vs_best: (log_sum / n.max(1) as f64).exp(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Provenance};
    use crate::sim::campaign::{run, Campaign};
    use crate::sim::{CostModel, Link};

    fn simulated(procs: Vec<u32>) -> Dataset {
        let rows = run(&Campaign {
            procs,
            cores_per_node: 8,
            mappings: vec![Mapping::Core],
            sizes: (0..=20).step_by(2).map(|e| 1u64 << e).collect(),
            candidates: vec![
                (Algorithm::Linear, 0, None),
                (Algorithm::Binomial, 0, None),
                (Algorithm::Pipeline, 8192, None),
            ],
            cost: CostModel {
                shm: Link::serialized(1.0, 3e-4),
                net: Link::serialized(4.0, 1e-3),
            },
            noise: 0.02,
            seed: 3,
        })
        .unwrap();
        Dataset::from_rows(rows, Provenance::default())
    }

    /// RMSE of ln(time) of `kind` on `test`.
    fn rmse(set: &TrainingSet, kind: LearnerKind, test: &Dataset) -> f64 {
        let models = set.fit(kind).unwrap();
        let selector = set.selector(kind, &models, 0.0);
        let mut se = 0.0;
        for m in test.measurements() {
            let ranked = selector.rank(&m.config, None);
            let r = ranked.iter().find(|r| r.candidate == m.candidate).unwrap();
            se += (r.predicted_us.ln() - m.time_us.ln()).powi(2);
        }
        (se / test.measurements().len() as f64).sqrt()
    }

    /// Beyond the trained job sizes KNN can only repeat its neighbours; fed
    /// the analytical model as feature and offset it follows the model's
    /// trend and stays close.
    #[test]
    fn hybrid_extrapolates_where_the_plain_learner_cannot() {
        let set = TrainingSet::new(&simulated(vec![2, 3, 4, 6, 8, 12, 16]), true);
        let test = simulated(vec![32, 48]);
        for (plain, hybrid) in [
            (LearnerKind::Knn, LearnerKind::HybridKnn),
            (LearnerKind::Gbm, LearnerKind::HybridGbm),
        ] {
            let (p, h) = (rmse(&set, plain, &test), rmse(&set, hybrid, &test));
            // Shown with `cargo test --lib hybrid_extrapolates -- --nocapture`.
            eprintln!("{hybrid} RMSE {h:.3} vs {plain} {p:.3}");
            assert!(h < 0.6 * p, "{hybrid} RMSE {h:.3} vs {plain} {p:.3}");
        }
    }

    #[test]
    fn a_plain_training_set_refuses_hybrid_learners() {
        let set = TrainingSet::new(&simulated(vec![2, 4, 8]), false);
        assert!(set.fit(LearnerKind::Knn).is_ok());
        assert!(set.fit(LearnerKind::HybridKnn).is_err());
    }
}
