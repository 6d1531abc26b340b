//! Training: features and targets per candidate, the analytical model, and
//! one model per candidate and learner (cross-validation is [`crate::train::cv`]).

use crate::analytical::fit::{fit_along, fit_dataset};
use crate::analytical::Fitted;
use crate::data::{Candidate, Config, Dataset, Mapping};
use crate::error::{Error, Result};
use crate::learn::features::{self, Samples};
use crate::learn::hybrid::{self, Terms};
use crate::learn::target::Target;
use crate::learn::Model;
use crate::select::measured::Measured;
use crate::select::{Policy, Predictor, Selector, SelectorKind, TrainedRange};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A candidate needs at least this many measured configurations to be
/// modelled; rarer ones are left out (and reported).
pub const MIN_ROWS: usize = 3;

/// Which candidates [`candidate_samples`] models.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rarest {
    /// Those with [`MIN_ROWS`] rows or more.
    MinRows,
    /// The same, but where no candidate has that many (a barrier measured
    /// at one or two communicator sizes) those with the most rows, each
    /// modelled by little more than its mean: a model to train on, whose
    /// policy keeps `default` where the data cannot show a difference,
    /// rather than none. Not for planning, where an unmodelled candidate
    /// is one to measure first.
    OrTheMost,
}

/// Training rows grouped by candidate.
pub struct CandidateSamples {
    /// The collective the candidates are of.
    pub collective: crate::data::Collective,
    pub candidates: Vec<Candidate>,
    pub samples: Vec<Samples>,
    /// The configuration of each sample row.
    pub configs: Vec<Vec<Config>>,
    /// Mappings each candidate was measured under.
    pub mappings: Vec<Vec<Mapping>>,
    /// Candidates left out for having fewer than `rows_needed` rows.
    pub too_rare: Vec<(Candidate, usize)>,
    /// [`MIN_ROWS`], or fewer where no candidate has that many.
    pub rows_needed: usize,
    /// What the samples' targets are.
    pub target: Target,
}

/// Features and target of every measurement, per candidate. `wanted`
/// [`Target::RatioToDefault`] gives ratios where the data allow
/// ([`Target::for_coverage`]; rows of a candidate with no `default` row at
/// their configuration are then left out), times elsewhere.
pub fn candidate_samples(d: &Dataset, wanted: Target, rarest: Rarest) -> CandidateSamples {
    let mut by: BTreeMap<Candidate, (Samples, Vec<Config>)> = BTreeMap::new();
    let default_ln: BTreeMap<Config, f64> = d
        .measurements()
        .iter()
        .filter(|m| wanted == Target::RatioToDefault && m.candidate.is_default())
        .map(|m| (m.config, m.time_us.ln()))
        .collect();
    let others = d
        .measurements()
        .iter()
        .filter(|m| !m.candidate.is_default());
    let (referenced, all) = others.fold((0usize, 0usize), |(r, n), m| {
        (r + usize::from(default_ln.contains_key(&m.config)), n + 1)
    });
    let target = Target::for_coverage(default_ln.len(), referenced, all);
    for m in d.measurements() {
        let ln_default = || default_ln.get(&m.config).copied();
        let Some(y) = target.encode(&m.candidate, m.time_us.ln(), ln_default) else {
            continue;
        };
        let (samples, configs) = by
            .entry(m.candidate)
            .or_insert_with(|| (Samples::new(features::BASE.len()), Vec::new()));
        samples.push(&features::base(&m.config), y);
        configs.push(m.config);
    }
    let mut out = CandidateSamples {
        collective: d.provenance.collective(),
        candidates: Vec::new(),
        samples: Vec::new(),
        configs: Vec::new(),
        mappings: Vec::new(),
        too_rare: Vec::new(),
        rows_needed: MIN_ROWS,
        target,
    };
    if rarest == Rarest::OrTheMost {
        let most = by.values().map(|(s, _)| s.len()).max().unwrap_or(0);
        out.rows_needed = MIN_ROWS.min(most).max(1);
    }
    for (c, (s, configs)) in by {
        if s.len() < out.rows_needed {
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
        let f = fit_dataset(d);
        TrainingSet::with(d, hybrid, f)
    }

    /// [`TrainingSet::new`] of part of the rows `full` was fitted on (a
    /// cross-validation fold), its analytical model fitted along `full`'s
    /// paths ([`fit_along`]).
    pub fn along(d: &Dataset, hybrid: bool, full: &Fitted) -> TrainingSet {
        TrainingSet::with(d, hybrid, fit_along(d, full))
    }

    fn with(d: &Dataset, hybrid: bool, analytical: Fitted) -> TrainingSet {
        let cs = candidate_samples(d, Target::RatioToDefault, Rarest::OrTheMost);
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

    /// One model per candidate (none for the analytical selector). A
    /// hybrid learner needs the set built with `hybrid`.
    pub fn fit(&self, kind: SelectorKind) -> Result<Vec<Model>> {
        let SelectorKind::Learner(kind) = kind else {
            return Ok(Vec::new());
        };
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
        // Candidates on every core, collected in order.
        self.cs
            .candidates
            .par_iter()
            .zip(samples)
            .map(|(c, s)| {
                learner
                    .fit(s)
                    .map_err(|e| Error::Other(format!("{kind} could not fit {c}: {e}")))
            })
            .collect()
    }

    /// The selector of `kind`'s fitted `models`, with what was `measured`.
    pub fn selector<'a>(
        &'a self,
        kind: SelectorKind,
        models: &'a [Model],
        measured: &'a Measured,
        policy: Policy,
        range: TrainedRange,
    ) -> Selector<'a> {
        Selector {
            collective: self.cs.collective,
            candidates: &self.cs.candidates,
            predictor: Predictor::of(kind, models, &self.analytical, measured),
            measured,
            target: self.cs.target,
            mappings: &self.cs.mappings,
            policy,
            range,
        }
    }
}

/// Each candidate's samples with the analytical term appended and taken off
/// the target (the model's ratio to `default` off a ratio; see
/// [`crate::learn::hybrid`]): the term encoded as the target is.
fn hybrid_samples(cs: &CandidateSamples, analytical: &Fitted) -> Vec<Samples> {
    let configs: BTreeSet<&Config> = cs.configs.iter().flatten().collect();
    let terms: BTreeMap<&Config, Terms> = configs
        .into_iter()
        .map(|c| (c, Terms::new(analytical, c, &cs.candidates)))
        .collect();
    let default = cs.candidates.iter().find(|c| c.is_default());
    cs.candidates
        .iter()
        .zip(cs.samples.iter().zip(&cs.configs))
        .map(|(candidate, (samples, configs))| {
            let mut out = Samples::new(hybrid::WIDTH);
            for (config, y) in configs.iter().zip(&samples.y) {
                let terms = &terms[config];
                let term = terms.of(candidate);
                let offset = cs
                    .target
                    .encode(candidate, term, || default.map(|d| terms.of(d)))
                    .unwrap_or(term);
                out.push(&hybrid::row(config, term), y - offset);
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Provenance};
    use crate::learn::LearnerKind;
    use crate::sim::campaign::{run, Campaign};
    use crate::sim::{CostModel, Link};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn simulated(procs: Vec<u32>) -> Dataset {
        let rows = run(&Campaign {
            collective: crate::data::Collective::Bcast,
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
                combine_us_per_byte: 0.0,
            },
            noise: 0.02,
            seed: 3,
        })
        .unwrap();
        Dataset::from_rows(rows, Provenance::default())
    }

    /// RMSE of ln(time) of `kind` on `test`.
    fn rmse(set: &TrainingSet, kind: LearnerKind, test: &Dataset) -> f64 {
        let kind = SelectorKind::Learner(kind);
        let models = set.fit(kind).unwrap();
        let none = Measured::default();
        let selector = set.selector(
            kind,
            &models,
            &none,
            Policy::default(),
            TrainedRange::default(),
        );
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

    /// Linear is 20% faster than `default` everywhere; every configuration
    /// of the campaign is slowed by its own random factor (a noisy run,
    /// shared by the candidates measured there), linear measured at half of
    /// them. Learned as ratios to `default` the factor cancels and linear
    /// wins everywhere else; learned as times, the two models average
    /// different noisy neighbours and the picks scatter.
    #[test]
    fn ratios_to_default_cancel_what_a_configuration_shares() {
        let mut rows = Vec::new();
        let mut rng = StdRng::seed_from_u64(7);
        let mut unmeasured = Vec::new();
        for procs in [2u32, 4, 8, 16, 32] {
            for e in 0..=20 {
                let msg = 1u64 << e;
                let shared = rng.random_range(-1.0..1.0f64).exp();
                let t = (1.0 + msg as f64 * 1e-3) * shared;
                rows.push(row(procs, msg, Algorithm::Default, t));
                if (e + procs) % 2 == 0 {
                    rows.push(row(procs, msg, Algorithm::Linear, 0.8 * t));
                } else {
                    unmeasured.push(row(procs, msg, Algorithm::Default, t).config);
                }
            }
        }
        let d = Dataset::from_rows(rows, Provenance::default());
        let kind = LearnerKind::Knn;
        let set = TrainingSet::new(&d, false);
        assert_eq!(set.cs.target, Target::RatioToDefault);
        let models = set.fit(SelectorKind::Learner(kind)).unwrap();
        let none = Measured::default();
        let selector = set.selector(
            SelectorKind::Learner(kind),
            &models,
            &none,
            Policy::NONE,
            TrainedRange::default(),
        );
        let picks = |s: &Selector| {
            unmeasured
                .iter()
                .filter(|c| s.rank(c, None)[0].candidate.algorithm == Algorithm::Linear)
                .count()
        };
        assert_eq!(picks(&selector), unmeasured.len());
        let times = candidate_samples(&d, Target::Time, Rarest::MinRows);
        let learner = kind.learner();
        let models: Vec<Model> = times
            .samples
            .iter()
            .map(|s| learner.fit(s).unwrap())
            .collect();
        let absolute = Selector {
            collective: times.collective,
            candidates: &times.candidates,
            predictor: Predictor::Learned(&models),
            measured: &none,
            target: Target::Time,
            mappings: &times.mappings,
            policy: Policy::NONE,
            range: TrainedRange::default(),
        };
        let right = picks(&absolute);
        assert!(right < unmeasured.len(), "{right} of {}", unmeasured.len());
    }

    /// `default` measured at few of the configurations the others were:
    /// ratios would leave most rows out, so times are fitted.
    #[test]
    fn a_rarely_measured_default_keeps_times() {
        let linear = |cs: &CandidateSamples| {
            let i = cs.candidates.iter().position(|c| !c.is_default()).unwrap();
            cs.samples[i].clone()
        };
        let mut rows: Vec<_> = (0..10)
            .map(|e| row(8, 1 << e, Algorithm::Linear, 2.0))
            .collect();
        rows.push(row(8, 1, Algorithm::Default, 1.0));
        let cs = candidate_samples(
            &Dataset::from_rows(rows.clone(), Provenance::default()),
            Target::RatioToDefault,
            Rarest::MinRows,
        );
        assert_eq!(cs.target, Target::Time);
        assert_eq!(linear(&cs).len(), 10);
        assert!((linear(&cs).y[1] - 2f64.ln()).abs() < 1e-12);
        // Measured at most of them: ratios, ln(2 / 4) at 2 B.
        rows.extend((1..6).map(|e| row(8, 1 << e, Algorithm::Default, 4.0)));
        let cs = candidate_samples(
            &Dataset::from_rows(rows, Provenance::default()),
            Target::RatioToDefault,
            Rarest::MinRows,
        );
        assert_eq!(cs.target, Target::RatioToDefault);
        assert_eq!(linear(&cs).len(), 6);
        assert!((linear(&cs).y[1] - 0.5f64.ln()).abs() < 1e-12);
    }

    /// Every candidate measured at one or two configurations: none is
    /// modelled under `MinRows`; under `OrTheMost` those with two are, and
    /// one with a single row is left out as too rare.
    #[test]
    fn the_most_measured_are_modelled_where_none_has_min_rows() {
        let rows = vec![
            row(2, 0, Algorithm::Default, 1.0),
            row(4, 0, Algorithm::Default, 2.0),
            row(2, 0, Algorithm::Bruck, 1.1),
            row(4, 0, Algorithm::Bruck, 1.5),
            row(2, 0, Algorithm::Linear, 0.9),
        ];
        let d = Dataset::from_rows(rows, Provenance::default());
        let strict = candidate_samples(&d, Target::RatioToDefault, Rarest::MinRows);
        assert!(strict.candidates.is_empty());
        assert_eq!(strict.too_rare.len(), 3);
        assert_eq!(strict.rows_needed, MIN_ROWS);
        let most = candidate_samples(&d, Target::RatioToDefault, Rarest::OrTheMost);
        let algorithms: Vec<_> = most.candidates.iter().map(|c| c.algorithm).collect();
        assert_eq!(algorithms, [Algorithm::Default, Algorithm::Bruck]);
        assert_eq!(most.rows_needed, 2);
        assert_eq!(most.too_rare.len(), 1);
        assert_eq!(most.too_rare[0].0.algorithm, Algorithm::Linear);
        // Where candidates have MIN_ROWS, the rule is MinRows'.
        let mut rows = d.measurements().to_vec();
        rows.push(row(8, 0, Algorithm::Default, 3.0));
        rows.push(row(8, 0, Algorithm::Bruck, 2.0));
        let d = Dataset::from_rows(rows, Provenance::default());
        let most = candidate_samples(&d, Target::RatioToDefault, Rarest::OrTheMost);
        assert_eq!(most.rows_needed, MIN_ROWS);
        assert_eq!(most.candidates.len(), 2);
        assert_eq!(most.too_rare.len(), 1);
    }

    #[test]
    fn a_plain_training_set_refuses_hybrid_learners() {
        let set = TrainingSet::new(&simulated(vec![2, 4, 8]), false);
        assert!(set.fit(SelectorKind::Learner(LearnerKind::Knn)).is_ok());
        assert!(set
            .fit(SelectorKind::Learner(LearnerKind::HybridKnn))
            .is_err());
    }
}
