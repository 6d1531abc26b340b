//! k-nearest-neighbour regression, k = 5 on standardized features, as in
//! the Hunold et al. selection paper: the mean ln(time) of the five nearest
//! training rows. The search is our exact k-d tree ([`super::kdtree`], for
//! speed: see there); the tests check it predicts what smartcore's
//! KNNRegressor predicts.

use super::kdtree::{KdTree, MOST};
use super::{Learner, Model, Scaler};
use crate::learn::features::Samples;
use serde::{Deserialize, Serialize};

pub struct Knn {
    pub k: usize,
}

impl Default for Knn {
    fn default() -> Self {
        Knn { k: 5 }
    }
}

#[derive(Serialize, Deserialize)]
pub struct KnnModel {
    scaler: Scaler,
    k: usize,
    /// The columns that vary in the training rows: a constant one adds the
    /// same to every distance, so the search leaves it out.
    columns: Vec<usize>,
    tree: KdTree,
}

impl Learner for Knn {
    fn fit(&self, samples: &Samples) -> Result<Model, String> {
        if samples.is_empty() {
            return Err("no training rows".into());
        }
        let scaler = Scaler::fit(samples);
        let columns: Vec<usize> = (0..samples.width)
            .filter(|&j| {
                let first = samples.x[j];
                samples.column(j).any(|v| v != first)
            })
            .collect();
        let mut scaled = Vec::with_capacity(samples.len() * columns.len());
        let mut row = Vec::new();
        for i in 0..samples.len() {
            scaler.apply(samples.row(i), &mut row);
            scaled.extend(columns.iter().map(|&j| row[j]));
        }
        Ok(Model::Knn(KnnModel {
            scaler,
            k: self.k,
            tree: KdTree::new(columns.len(), &scaled, &samples.y),
            columns,
        }))
    }
}

impl KnnModel {
    /// Refuses a model whose scaler, columns and tree disagree with each
    /// other or with rows of `width` features (the tree checks itself as it
    /// is read).
    pub fn check(&self, width: usize) -> Result<(), String> {
        let s = &self.scaler;
        let ok = self.k >= 1
            && s.mean.len() == width
            && s.scale.len() == width
            && s.scale.iter().all(|v| v.is_finite() && *v > 0.0)
            && self.columns.len() <= MOST
            && self.columns.iter().all(|&j| j < width)
            && self.tree.width() == self.columns.len();
        if ok {
            Ok(())
        } else {
            Err(format!(
                "knn: scaler, columns and tree do not fit {width} features"
            ))
        }
    }

    pub fn predict(&self, row: &[f64]) -> f64 {
        // A row of another width (a model file of another feature set), or
        // a corrupt model, gets no prediction (NaN ranks last), not a panic.
        let mut buffer = [0.0; MOST]; // on the stack: one query per candidate
        let Some(scaled) = buffer.get_mut(..self.columns.len()) else {
            return f64::NAN;
        };
        if row.len() != self.scaler.mean.len() {
            return f64::NAN;
        }
        for (s, &j) in scaled.iter_mut().zip(&self.columns) {
            let (Some(v), Some(m), Some(sd)) = (
                row.get(j),
                self.scaler.mean.get(j),
                self.scaler.scale.get(j),
            ) else {
                return f64::NAN;
            };
            *s = (v - m) / sd;
        }
        self.tree.mean_of_nearest(scaled, self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::holdout_rmse;
    use super::super::LearnerKind;
    use super::*;
    use rand::{Rng, SeedableRng};
    use smartcore::linalg::basic::matrix::DenseMatrix;
    use smartcore::neighbors::knn_regressor::{KNNRegressor, KNNRegressorParameters};

    #[test]
    fn knn_interpolates_unseen_procs() {
        let rmse = holdout_rmse(LearnerKind::Knn);
        assert!(rmse < 0.25, "rmse {rmse}");
    }

    /// A candidate measured on one configuration only: no column varies,
    /// and the prediction is the mean of its times.
    #[test]
    fn identical_rows_predict_their_mean() {
        let mut samples = Samples::new(3);
        for y in [1.0, 2.0, 6.0] {
            samples.push(&[4.0, 8.0, 0.0], y);
        }
        let model = Knn::default().fit(&samples).unwrap();
        assert_eq!(model.predict(&[4.0, 8.0, 0.0]), 3.0);
        assert_eq!(model.predict(&[5.0, 1.0, 2.0]), 3.0);
    }

    /// The same neighbours as smartcore's KNNRegressor (k = 5, Euclidean,
    /// on the same standardized rows, all columns), on data without
    /// distance ties and with a constant column our search leaves out.
    #[test]
    fn predicts_what_smartcore_predicts() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let width = 7;
        let mut samples = Samples::new(width);
        for _ in 0..1500 {
            let mut row: Vec<f64> = (0..width)
                .map(|d| rng.random_range(0.0..(d + 1) as f64))
                .collect();
            row[3] = 2.0;
            samples.push(&row, rng.random_range(-3.0..3.0));
        }
        let Model::Knn(ours) = Knn::default().fit(&samples).unwrap() else {
            panic!("knn fits a knn model");
        };
        let mut scaled = Vec::new();
        let mut row = Vec::new();
        for i in 0..samples.len() {
            ours.scaler.apply(samples.row(i), &mut row);
            scaled.extend_from_slice(&row);
        }
        let x = DenseMatrix::new(samples.len(), width, scaled, false).unwrap();
        let reference =
            KNNRegressor::fit(&x, &samples.y, KNNRegressorParameters::default().with_k(5)).unwrap();
        for _ in 0..300 {
            let q: Vec<f64> = (0..width)
                .map(|d| rng.random_range(-0.5..(d + 2) as f64))
                .collect();
            let mut s = Vec::new();
            ours.scaler.apply(&q, &mut s);
            let expected = reference
                .predict(&DenseMatrix::new(1, width, s, false).unwrap())
                .unwrap()[0];
            let got = ours.predict(&q);
            assert!(
                (got - expected).abs() < 1e-12,
                "{got} vs smartcore {expected}"
            );
        }
        assert_eq!(ours.columns, [0, 1, 2, 4, 5, 6]);
        assert!(ours.predict(&[0.0; 6]).is_nan(), "wrong width");
    }
}
