//! Per-candidate regressors of ln(time): one [`Learner`] per method, each in
//! its own module, fitting a [`Model`] that predicts one row at a time.
//! Selection only sees these two types.

pub mod features;
pub mod gam;
pub mod gbm;
pub mod hybrid;
mod kdtree;
pub mod knn;
pub mod linear;
pub mod target;

use crate::learn::features::Samples;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A regression method with its fixed hyper-parameters.
pub trait Learner {
    /// Fits ln(time) from feature rows. Errors say why (too few rows, ...).
    fn fit(&self, samples: &Samples) -> Result<Model, String>;
}

/// A fitted regressor, stored in model directories.
#[derive(Serialize, Deserialize)]
#[serde(tag = "learner", rename_all = "lowercase")]
pub enum Model {
    Knn(knn::KnnModel),
    Gbm(gbm::GbmModel),
    Gam(gam::GamModel),
    Linear(linear::LinearModel),
}

impl Model {
    /// Whether the model can predict rows of `width` features: indices in
    /// range, trees that end, lengths that agree. Model files are checked
    /// with it as they are loaded, so a damaged file is an error, not a
    /// panic or a hang in `predict`.
    pub fn check(&self, width: usize) -> Result<(), String> {
        match self {
            Model::Knn(m) => m.check(width),
            Model::Gbm(m) => m.check(width),
            Model::Gam(m) => m.check(width),
            Model::Linear(m) => m.check(width),
        }
    }

    /// Predicted ln(time_us) for one feature row.
    pub fn predict(&self, row: &[f64]) -> f64 {
        match self {
            Model::Knn(m) => m.predict(row),
            Model::Gbm(m) => m.predict(row),
            Model::Gam(m) => m.predict(row),
            Model::Linear(m) => m.predict(row),
        }
    }
}

/// The learners `train` knows. A `hybrid-*` learner is its base learner fed
/// the analytical model's prediction too (see [`crate::learn::hybrid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LearnerKind {
    Knn,
    Gbm,
    Gam,
    Linear,
    HybridKnn,
    HybridGbm,
    HybridGam,
}

impl LearnerKind {
    pub const ALL: [LearnerKind; 7] = [
        LearnerKind::Knn,
        LearnerKind::Gbm,
        LearnerKind::Gam,
        LearnerKind::Linear,
        LearnerKind::HybridKnn,
        LearnerKind::HybridGbm,
        LearnerKind::HybridGam,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LearnerKind::Knn => "knn",
            LearnerKind::Gbm => "gbm",
            LearnerKind::Gam => "gam",
            LearnerKind::Linear => "linear",
            LearnerKind::HybridKnn => "hybrid-knn",
            LearnerKind::HybridGbm => "hybrid-gbm",
            LearnerKind::HybridGam => "hybrid-gam",
        }
    }

    pub fn is_hybrid(self) -> bool {
        self.base() != self
    }

    /// The regression method, without the analytical features.
    pub fn base(self) -> LearnerKind {
        match self {
            LearnerKind::HybridKnn => LearnerKind::Knn,
            LearnerKind::HybridGbm => LearnerKind::Gbm,
            LearnerKind::HybridGam => LearnerKind::Gam,
            k => k,
        }
    }

    pub fn learner(self) -> Box<dyn Learner + Sync> {
        match self.base() {
            LearnerKind::Knn => Box::new(knn::Knn::default()),
            LearnerKind::Gbm => Box::new(gbm::Gbm::default()),
            LearnerKind::Gam => Box::new(gam::Gam::default()),
            _ => Box::new(linear::Linear),
        }
    }
}

impl fmt::Display for LearnerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LearnerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown learner {s:?}; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Mean and spread of each column, to put features on one scale.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Scaler {
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
}

impl Scaler {
    pub fn fit(samples: &Samples) -> Scaler {
        let n = samples.len().max(1) as f64;
        let (mut mean, mut scale) = (Vec::new(), Vec::new());
        for j in 0..samples.width {
            let m = samples.column(j).sum::<f64>() / n;
            let var = samples.column(j).map(|v| (v - m).powi(2)).sum::<f64>() / n;
            mean.push(m);
            // A constant column stays constant (zero) after scaling.
            scale.push(if var > 1e-24 { var.sqrt() } else { 1.0 });
        }
        Scaler { mean, scale }
    }

    pub fn apply(&self, row: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            row.iter()
                .zip(self.mean.iter().zip(&self.scale))
                .map(|(v, (m, s))| (v - m) / s),
        );
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::learn::features::BASE;

    /// A smooth, known ln-time surface over (log2 msg, log2 procs), with a
    /// mapping effect: what every learner should reproduce closely.
    pub fn synthetic(procs: &[u32]) -> Samples {
        let mut s = Samples::new(BASE.len());
        for &p in procs {
            for e in 0..=20 {
                for (socket, node) in [(0.0, 0.0), (0.0, 1.0)] {
                    let lm = e as f64;
                    let lp = f64::from(p).log2();
                    let nodes = if p > 8 { 2.0 } else { 1.0 };
                    let row = [
                        lm,
                        f64::from(p),
                        lp,
                        nodes,
                        (f64::from(p) / nodes).ceil(),
                        socket,
                        node,
                        0.0,
                        0.0,
                        0.0,
                    ];
                    s.push(&row, truth(&row));
                }
            }
        }
        s
    }

    pub fn truth(row: &[f64]) -> f64 {
        let (lm, lp) = (row[0], row[2]);
        (1.0 + 0.3 * lp + 2f64.powf(lm) * 1e-3 * (1.0 + 0.2 * lp)).ln() + 0.2 * row[6]
    }

    /// Root mean squared error of ln-time on configurations not trained on.
    pub fn holdout_rmse(kind: LearnerKind) -> f64 {
        let train = synthetic(&[2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]);
        let test = synthetic(&[5, 10, 20, 40]);
        let model = kind.learner().fit(&train).unwrap();
        let se: f64 = (0..test.len())
            .map(|i| (model.predict(test.row(i)) - test.y[i]).powi(2))
            .sum();
        (se / test.len() as f64).sqrt()
    }

    #[test]
    fn every_model_predicts_the_same_after_a_json_round_trip() {
        let train = synthetic(&[2, 4, 8, 16, 32]);
        let probe = synthetic(&[3, 12]);
        for kind in LearnerKind::ALL {
            let model = kind.learner().fit(&train).unwrap();
            let json = serde_json::to_string(&model).unwrap();
            let back: Model = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{kind} does not load back: {e}"));
            for i in 0..probe.len() {
                let (a, b) = (model.predict(probe.row(i)), back.predict(probe.row(i)));
                assert!(a.is_finite(), "{kind} predicts {a}");
                assert_eq!(a, b, "{kind} changed after a round trip");
            }
        }
    }

    #[test]
    fn learner_names_parse() {
        for k in LearnerKind::ALL {
            assert_eq!(k.name().parse(), Ok(k));
        }
        assert!("xgboost".parse::<LearnerKind>().is_err());
    }

    #[test]
    fn scaler_centres_and_scales() {
        let mut s = Samples::new(2);
        s.push(&[1.0, 5.0], 0.0);
        s.push(&[3.0, 5.0], 0.0);
        let sc = Scaler::fit(&s);
        let mut out = Vec::new();
        sc.apply(&[3.0, 5.0], &mut out);
        assert_eq!(out, [1.0, 0.0]);
    }
}
