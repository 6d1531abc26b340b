//! Training: from a dataset to everything `predict` needs — the samples
//! per candidate, the analytical model, the learners' models,
//! cross-validation's policies and `auto` — and the model directory that
//! holds it. `train`, `evaluate` and `tune` train through [`fit`];
//! `predict`, `tune` and `evaluate` decide through [`Trained::decider`].

pub mod cv;
pub mod samples;
pub mod store;

use crate::analytical::Fitted;
use crate::data::summary::Summary;
use crate::data::{Candidate, Dataset};
use crate::error::{Error, Result};
use crate::learn::target::Target;
use crate::learn::{features, hybrid, LearnerKind};
use crate::select::decision::Job;
use crate::select::measured::Measured;
use crate::select::{Auto, Decider, Predictor, Selector, SelectorKind, TrainedRange};
use cv::{choose_auto, cross_validate, held_out_groups, policy};
use samples::{TrainingSet, MIN_ROWS};
use store::{LearnerModels, Manifest, FORMAT_VERSION};

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The learners to fit, each once.
    pub learners: Vec<LearnerKind>,
    /// Cross-validation folds over the procs values (an extrapolating fold
    /// is added).
    pub folds: usize,
    /// Fit on about this many measurements (0: all), see
    /// [`Dataset::thinned`].
    pub max_rows: usize,
}

/// A trained model, in memory: what the model directory holds.
pub struct Trained {
    pub manifest: Manifest,
    pub analytical: Fitted,
    /// The times measured at the trained configurations (`auto` decides
    /// by them there).
    pub measured: Measured,
    /// The learners' models: every learner after [`fit`], those asked for
    /// after [`store::load`].
    pub learners: Vec<LearnerModels>,
}

/// Which selector decides: `auto` (cross-validation's choice, and the
/// measurements where there are some), or one selector everywhere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SelectorChoice {
    Auto,
    One(SelectorKind),
}

impl std::str::FromStr for SelectorChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<SelectorChoice, String> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(SelectorChoice::Auto);
        }
        s.parse()
            .map(SelectorChoice::One)
            .map_err(|e| format!("{e}, or auto"))
    }
}

impl SelectorChoice {
    /// The selectors this choice stands for, `auto` being `auto`.
    pub fn kinds(self, auto: Auto) -> Auto {
        match self {
            SelectorChoice::Auto => auto,
            SelectorChoice::One(kind) => Auto {
                inside: kind,
                outside: kind,
                ..auto
            },
        }
    }
}

/// Progress steps of [`fit`] on `d`: the folds' fits, then the learners'.
pub fn steps(d: &Dataset, options: &TrainOptions) -> u64 {
    let folds = held_out_groups(d, options.folds).len();
    let fits = options.learners.len() + 1;
    (folds * fits + options.learners.len()) as u64
}

/// Trains on `all` as `train` does, calling `tick` after each step (see
/// [`steps`]); returns the model and what the user should be told about
/// the data (candidates left out, targets fitted as times, ...). The
/// manifest's `training_files` is left for the caller to fill.
pub fn fit(
    all: &Dataset,
    options: &TrainOptions,
    mut tick: impl FnMut(),
) -> Result<(Trained, Vec<String>)> {
    let mut notes = Vec::new();
    // What was measured (range and configurations) comes from all rows:
    // thinning drops sizes between kept ones only.
    let range = TrainedRange::of(all);
    let thinned = (options.max_rows > 0 && all.measurements().len() > options.max_rows)
        .then(|| all.thinned(options.max_rows));
    let data = thinned.as_ref().unwrap_or(all);
    if let Some(t) = &thinned {
        notes.push(format!(
            "fitting on {} of the {} measurements (--max-rows {}: an even share of each job's \
             message sizes, every job and candidate kept)",
            t.measurements().len(),
            all.measurements().len(),
            options.max_rows
        ));
    }
    let learners = &options.learners;
    let hybrid = learners.iter().any(|k| k.is_hybrid());
    let set = TrainingSet::new(data, hybrid);
    let selectors = selectors(learners, &set.analytical);
    let cv = cross_validate(data, &set.analytical, &selectors, options.folds, &mut tick)?;
    let cs = &set.cs;
    if cs.candidates.is_empty() {
        return Err(Error::Usage("no measurements: nothing to train".into()));
    }
    let needed = cs.rows_needed;
    if needed < MIN_ROWS {
        notes.push(format!(
            "no candidate has {MIN_ROWS} or more measurements: those with {needed} are \
             modelled from them, little more than their mean"
        ));
    }
    for (c, n) in &cs.too_rare {
        notes.push(format!(
            "candidate {c} has only {n} measurement(s) (at least {needed} needed): left out"
        ));
    }
    if cs.target == Target::Time {
        let configs = data.by_config().count();
        let with_default = data
            .by_config()
            .filter(|g| g.iter().any(|m| m.candidate.is_default()))
            .count();
        if with_default > 0 {
            notes.push(format!(
                "`default` measured at only {with_default} of {configs} configurations: \
                 the learners fit times instead of ratios to `default`"
            ));
        }
    }
    if let [only] = cs.candidates.as_slice() {
        notes.push(format!(
            "only one candidate ({only}) in the data: every decision will be {only}"
        ));
    }
    let mut fitted = Vec::with_capacity(learners.len());
    for &kind in learners {
        fitted.push(LearnerModels {
            learner: kind,
            candidates: cs.candidates.clone(),
            models: set.fit(SelectorKind::Learner(kind))?,
        });
        tick();
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        written_by: format!("collsel {}", env!("CARGO_PKG_VERSION")),
        features: features::BASE.iter().map(|s| s.to_string()).collect(),
        hybrid_features: vec![hybrid::FEATURE.to_string()],
        candidates: cs.candidates.clone(),
        candidate_mappings: cs.mappings.clone(),
        learners: learners.clone(),
        target: cs.target,
        auto: choose_auto(&selectors, cv.as_ref()),
        cv: cv.map(|cv| cv.scores).unwrap_or_default(),
        range,
        training_files: Vec::new(),
        training: Summary::of(data),
    };
    let measured = Measured::of(all, &cs.candidates);
    let trained = Trained {
        manifest,
        analytical: set.analytical,
        measured,
        learners: fitted,
    };
    Ok((trained, notes))
}

/// The selectors a model can use: the analytical one where it prices
/// something, then each of `learners`.
pub fn selectors(learners: &[LearnerKind], analytical: &Fitted) -> Vec<SelectorKind> {
    let mut kinds = SelectorKind::all(learners);
    if analytical.platform.is_none() {
        kinds.retain(|k| *k != SelectorKind::Analytical);
    }
    kinds
}

impl Trained {
    /// The selectors this model can use.
    pub fn selectors(&self) -> Vec<SelectorKind> {
        selectors(&self.manifest.learners, &self.analytical)
    }

    /// The selector of `kind` under its cross-validated policy.
    pub fn selector(&self, kind: SelectorKind) -> Result<Selector<'_>> {
        let models = match kind {
            SelectorKind::Analytical if self.analytical.platform.is_none() => {
                return Err(Error::Usage(
                    "the analytical model was fitted on no rows: the training data has no \
                     algorithm with a schedule"
                        .into(),
                ))
            }
            SelectorKind::Analytical | SelectorKind::Nearest => &[][..],
            SelectorKind::Learner(learner) => {
                let loaded = self.learners.iter().find(|l| l.learner == learner);
                &loaded
                    .ok_or_else(|| Error::Other(format!("{learner}'s models are not loaded")))?
                    .models
            }
        };
        let m = &self.manifest;
        Ok(Selector {
            collective: m.training.collective,
            candidates: &m.candidates,
            predictor: Predictor::of(kind, models, &self.analytical, &self.measured),
            measured: &self.measured,
            target: m.target,
            mappings: &m.candidate_mappings,
            policy: policy(&m.cv, kind),
            range: m.range,
        })
    }

    /// How `choice` decides.
    pub fn decider(&self, choice: SelectorChoice) -> Result<Decider<'_>> {
        let kinds = choice.kinds(self.manifest.auto);
        Ok(Decider {
            inside: self.selector(kinds.inside)?,
            outside: self.selector(kinds.outside)?,
            measured: (choice == SelectorChoice::Auto).then_some(&self.measured),
            floor: self.measured.floor(),
        })
    }

    /// The name of `choice` in tables and files.
    pub fn label(&self, choice: SelectorChoice) -> String {
        match choice {
            SelectorChoice::Auto => format!("{} (auto)", self.manifest.auto),
            SelectorChoice::One(kind) => kind.to_string(),
        }
    }

    /// What a user deciding for `job` should know: a job outside the
    /// trained sizes, an arrival pattern the data lack.
    pub fn warnings(&self, job: &Job) -> Vec<String> {
        let mut out = Vec::new();
        let (lo, hi) = self.manifest.range.procs;
        if job.procs < lo || job.procs > hi {
            out.push(format!(
                "{} ranks is outside the trained range {lo}-{hi}: decisions there \
                 extrapolate, and keep `default` unless cross-validation showed the \
                 selector extrapolates that far",
                job.procs
            ));
        }
        let pattern = job.arrival.to_string();
        let trained = &self.manifest.training.arrivals;
        if !trained
            .iter()
            .any(|a| a.split(' ').next() == Some(pattern.as_str()))
        {
            out.push(format!(
                "the training data has no arrival pattern {pattern} (it has {}): \
                 predictions extrapolate",
                trained.join(", ")
            ));
        }
        out
    }

    /// Candidates a decision may take, where `keep` says (e.g. those an
    /// MPI library has), with the names of those left out.
    pub fn allowed(&self, keep: impl Fn(&Candidate) -> bool) -> (Vec<bool>, Vec<String>) {
        let candidates = &self.manifest.candidates;
        let allowed: Vec<bool> = candidates.iter().map(keep).collect();
        let left_out = candidates
            .iter()
            .zip(&allowed)
            .filter(|(_, k)| !**k)
            .map(|(c, _)| c.to_string())
            .collect();
        (allowed, left_out)
    }
}
