//! k-nearest-neighbour regression (smartcore), k = 5 on standardized
//! features, as in the Hunold et al. selection paper.

use super::{Learner, Model, Scaler};
use crate::features::Samples;
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::metrics::distance::euclidian::Euclidian;
use smartcore::neighbors::knn_regressor::{KNNRegressor, KNNRegressorParameters};

pub struct Knn {
    pub k: usize,
}

impl Default for Knn {
    fn default() -> Self {
        Knn { k: 5 }
    }
}

type Regressor = KNNRegressor<f64, f64, DenseMatrix<f64>, Vec<f64>, Euclidian<f64>>;

#[derive(Serialize, Deserialize)]
pub struct KnnModel {
    scaler: Scaler,
    regressor: Regressor,
}

impl Learner for Knn {
    fn fit(&self, samples: &Samples) -> Result<Model, String> {
        if samples.is_empty() {
            return Err("no training rows".into());
        }
        let scaler = Scaler::fit(samples);
        let mut scaled = Vec::with_capacity(samples.x.len());
        let mut row = Vec::new();
        for i in 0..samples.len() {
            scaler.apply(samples.row(i), &mut row);
            scaled.extend_from_slice(&row);
        }
        let x = DenseMatrix::new(samples.len(), samples.width, scaled, false)
            .map_err(|e| e.to_string())?;
        let k = self.k.min(samples.len());
        let regressor =
            KNNRegressor::fit(&x, &samples.y, KNNRegressorParameters::default().with_k(k))
                .map_err(|e| e.to_string())?;
        Ok(Model::Knn(KnnModel { scaler, regressor }))
    }
}

impl KnnModel {
    pub fn predict(&self, row: &[f64]) -> f64 {
        let mut scaled = Vec::with_capacity(row.len());
        self.scaler.apply(row, &mut scaled);
        // A model file of another width fails here or in smartcore: no
        // prediction (NaN ranks last) rather than a panic.
        DenseMatrix::new(1, row.len(), scaled, false)
            .and_then(|x| self.regressor.predict(&x))
            .map_or(f64::NAN, |y| y[0])
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::holdout_rmse;
    use super::super::LearnerKind;

    #[test]
    fn knn_interpolates_unseen_procs() {
        let rmse = holdout_rmse(LearnerKind::Knn);
        assert!(rmse < 0.25, "rmse {rmse}");
    }
}
