//! The model directory `train` writes and `predict` reads:
//!
//! - `manifest.json`: format version, feature names, candidates, learners,
//!   the `auto` choice with its cross-validation figures, and a summary of
//!   the training data;
//! - `<learner>.json`: that learner's model for every candidate;
//! - `analytical.json`: the analytical models (the `analytical` selector and
//!   the hybrid learners' features);
//! - `measured.json`: the times measured at every trained configuration
//!   (`auto` decides by them there, see [`crate::select::measured`]);
//! - `validation.json` (written by `tune` only): its switches from
//!   `default` timed against it on fresh samples
//!   ([`crate::select::validation`]); `predict` keeps `default` where they
//!   did not prove faster.
//!
//! A directory of another format version or feature set is refused.

use crate::analytical::Fitted;
use crate::data::summary::Summary;
use crate::data::{Candidate, Mapping};
use crate::error::{Error, InputError, Result};
use crate::learn::features;
use crate::learn::hybrid;
use crate::learn::target::Target;
use crate::learn::{LearnerKind, Model};
use crate::select::measured::{Entry, Measured};
use crate::select::validation::Validation;
use crate::select::{Auto, SelectorKind, TrainedRange};
use crate::train::cv::CvScore;
use crate::train::{SelectorChoice, Trained};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const FORMAT_VERSION: u32 = 10;
const MANIFEST: &str = "manifest.json";
const ANALYTICAL: &str = "analytical.json";
const MEASURED: &str = "measured.json";
const VALIDATION: &str = "validation.json";

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format_version: u32,
    /// collsel version that wrote it.
    pub written_by: String,
    pub features: Vec<String>,
    /// Columns the hybrid learners see after `features`.
    pub hybrid_features: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// Mappings each candidate was measured under (same order).
    pub candidate_mappings: Vec<Vec<Mapping>>,
    pub learners: Vec<LearnerKind>,
    /// What the learners' models predict.
    pub target: Target,
    /// The selectors `predict` uses unless told otherwise.
    pub auto: Auto,
    /// Cross-validation per selector, with its policy; empty when the data
    /// had fewer than two procs values.
    pub cv: Vec<CvScore>,
    /// The job and message sizes trained on.
    pub range: TrainedRange,
    pub training_files: Vec<String>,
    pub training: Summary,
}

/// One learner's models, in the manifest's candidate order.
#[derive(Serialize, Deserialize)]
pub struct LearnerModels {
    pub learner: LearnerKind,
    pub candidates: Vec<Candidate>,
    pub models: Vec<Model>,
}

/// Writes the directory atomically: into a sibling temporary directory that
/// then replaces `dir`, so an interrupted `train` never leaves a half model.
pub fn save(dir: &Path, trained: &Trained) -> Result<()> {
    let Trained {
        manifest,
        analytical,
        measured,
        learners,
    } = trained;
    let tmp = sibling(dir, ".tmp");
    let io = |what: &str, e| Error::io(format!("{what} {}", tmp.display()), e);
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| io("cannot clear", e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| io("cannot create", e))?;
    let write = |name: &str, text: String| {
        std::fs::write(tmp.join(name), text).map_err(|e| io("cannot write into", e))
    };
    let json = |e: serde_json::Error| Error::Other(format!("cannot serialize model: {e}"));
    write(
        MANIFEST,
        serde_json::to_string_pretty(manifest).map_err(json)? + "\n",
    )?;
    write(
        ANALYTICAL,
        serde_json::to_string_pretty(analytical).map_err(json)? + "\n",
    )?;
    write(
        MEASURED,
        serde_json::to_string(&measured.to_file(&manifest.candidates)).map_err(json)? + "\n",
    )?;
    // Each learner's file streamed to disk, side by side: a KNN model of a
    // large campaign is hundreds of MB of JSON.
    learners.par_iter().try_for_each(|l| {
        let path = tmp.join(format!("{}.json", l.learner));
        let file = std::fs::File::create(&path).map_err(|e| io("cannot write into", e))?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut out, l).map_err(json)?;
        out.flush().map_err(|e| io("cannot write into", e))
    })?;
    if dir.exists() {
        let old = sibling(dir, ".old");
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old)
            .map_err(|e| Error::io(format!("cannot replace {}", dir.display()), e))?;
        let _ = std::fs::remove_dir_all(&old);
    }
    std::fs::rename(&tmp, dir).map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))
}

/// The model in `dir` with what `choice` decides by: the learners' models
/// it uses (only those: a KNN model of a large campaign is hundreds of
/// MB), and the measurements for `auto`; every file read is checked.
pub fn load(dir: &Path, choice: SelectorChoice) -> Result<Trained, InputError> {
    let manifest = load_manifest(dir)?;
    let kinds = choice.kinds(manifest.auto);
    let mut learners: Vec<LearnerKind> = [kinds.inside, kinds.outside]
        .into_iter()
        .filter_map(|k| match k {
            SelectorKind::Learner(l) => Some(l),
            SelectorKind::Analytical | SelectorKind::Nearest => None,
        })
        .collect();
    learners.dedup();
    let learners = learners
        .iter()
        .map(|&l| load_learner(dir, &manifest, l))
        .collect::<Result<_, _>>()?;
    // Only `auto` decides by the measurements; every selector's predictions
    // keep above their floor.
    let measured = load_measured(dir, &manifest)?;
    Ok(Trained {
        analytical: load_analytical(dir)?,
        measured,
        manifest,
        learners,
    })
}

/// Writes `tune`'s validation of this model's decisions into its directory.
pub fn save_validation(dir: &Path, rows: &[Validation]) -> Result<()> {
    let path = dir.join(VALIDATION);
    let text = serde_json::to_string_pretty(rows).map_err(|e| Error::Other(e.to_string()))?;
    std::fs::write(&path, text)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// `tune`'s validation of the model in `dir`; `None` where there is none
/// (a model of `train`).
pub fn load_validation(dir: &Path) -> Result<Option<Vec<Validation>>, InputError> {
    let path = dir.join(VALIDATION);
    if !path.exists() {
        return Ok(None);
    }
    let text = read(&path)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| InputError::new(&path, e.to_string()).at(e.line(), e.column()))
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    dir.with_file_name(name)
}

fn read(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| {
        InputError::new(
            path,
            format!("cannot read ({e}); expected a model directory written by `collsel train`"),
        )
    })
}

pub fn load_manifest(dir: &Path) -> Result<Manifest, InputError> {
    let path = dir.join(MANIFEST);
    let text = read(&path)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        InputError::new(&path, format!("not valid JSON: {e}")).at(e.line(), e.column())
    })?;
    let version = value.get("format_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(FORMAT_VERSION)) {
        let found = version.map_or("none".to_string(), |v| v.to_string());
        return Err(InputError::new(
            &path,
            format!(
                "model format version {found}; this collsel reads version {FORMAT_VERSION}: \
                 retrain with `collsel train`"
            ),
        ));
    }
    let manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| InputError::new(&path, format!("malformed manifest: {e}")))?;
    if manifest.candidates.is_empty() {
        return Err(InputError::new(
            &path,
            "the model has no candidates; expected at least one",
        ));
    }
    if manifest.candidate_mappings.len() != manifest.candidates.len() {
        return Err(InputError::new(
            &path,
            "candidate_mappings and candidates differ in length; expected one entry per candidate",
        ));
    }
    if manifest.features != features::BASE || manifest.hybrid_features != [hybrid::FEATURE] {
        return Err(InputError::new(
            &path,
            format!(
                "model uses features [{}] + [{}]; this collsel uses [{}] + [{}]: \
                 retrain with `collsel train`",
                manifest.features.join(", "),
                manifest.hybrid_features.join(", "),
                features::BASE.join(", "),
                hybrid::FEATURE
            ),
        ));
    }
    Ok(manifest)
}

/// One learner's models; they must cover the manifest's candidates.
pub fn load_learner(
    dir: &Path,
    manifest: &Manifest,
    learner: LearnerKind,
) -> Result<LearnerModels, InputError> {
    let path = dir.join(format!("{learner}.json"));
    if !manifest.learners.contains(&learner) {
        let trained: Vec<&str> = manifest.learners.iter().map(|l| l.name()).collect();
        return Err(InputError::new(
            &dir.join(MANIFEST),
            format!(
                "learner '{learner}' was not trained; this model has: {}",
                trained.join(", ")
            ),
        ));
    }
    parse_learner(&path, &read(&path)?, &manifest.candidates, learner)
}

/// A learner's model file (`path` names it in errors), checked: one model
/// of that learner per candidate of `candidates`, each able to predict the
/// rows that learner is fed.
pub fn parse_learner(
    path: &Path,
    text: &str,
    candidates: &[Candidate],
    learner: LearnerKind,
) -> Result<LearnerModels, InputError> {
    let models: LearnerModels = serde_json::from_str(text).map_err(|e| {
        InputError::new(path, format!("malformed model file: {e}")).at(e.line(), e.column())
    })?;
    if models.learner != learner
        || models.candidates != candidates
        || models.models.len() != models.candidates.len()
    {
        return Err(InputError::new(
            path,
            "learner or candidates differ from manifest.json; expected files written together \
             by one `train`",
        ));
    }
    let width = if learner.is_hybrid() {
        hybrid::WIDTH
    } else {
        features::BASE.len()
    };
    for (i, model) in models.models.iter().enumerate() {
        let kind_ok = matches!(
            (learner.base(), model),
            (LearnerKind::Knn, Model::Knn(_))
                | (LearnerKind::Gbm, Model::Gbm(_))
                | (LearnerKind::Gam, Model::Gam(_))
                | (LearnerKind::Linear, Model::Linear(_))
        );
        let checked = if kind_ok {
            model.check(width)
        } else {
            Err(format!("not a {} model", learner.base()))
        };
        checked.map_err(|why| {
            InputError::new(
                path,
                format!(
                    "the model of candidate {} is damaged ({why}); retrain with `collsel train`",
                    models.candidates[i]
                ),
            )
        })?;
    }
    Ok(models)
}

/// The analytical models.
pub fn load_analytical(dir: &Path) -> Result<Fitted, InputError> {
    let path = dir.join(ANALYTICAL);
    parse_analytical(&path, &read(&path)?)
}

/// An analytical model file (`path` names it in errors), checked.
pub fn parse_analytical(path: &Path, text: &str) -> Result<Fitted, InputError> {
    let fitted: Fitted = serde_json::from_str(text).map_err(|e| {
        InputError::new(path, format!("malformed analytical models: {e}")).at(e.line(), e.column())
    })?;
    fitted.check().map_err(|why| {
        InputError::new(
            path,
            format!("{why}; expected the file `collsel train` wrote"),
        )
    })?;
    Ok(fitted)
}

/// The measured configurations, checked against the manifest's candidates.
pub fn load_measured(dir: &Path, manifest: &Manifest) -> Result<Measured, InputError> {
    let path = dir.join(MEASURED);
    let text = read(&path)?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| {
        InputError::new(&path, format!("malformed measured configurations: {e}"))
            .at(e.line(), e.column())
    })?;
    Measured::from_file(&entries, &manifest.candidates).map_err(|why| {
        InputError::new(
            &path,
            format!("{why}; expected the file `collsel train` wrote"),
        )
    })
}
