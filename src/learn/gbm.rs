//! Gradient-boosted regression trees (forust-ml) on ln(time) with squared
//! loss, one fixed configuration for every dataset (no per-dataset tuning):
//! XGBoost's defaults (100 rounds, learning rate 0.3) with trees one level
//! shallower (depth 5), as benchmark datasets are small.

use super::{Learner, Model};
use crate::learn::features::Samples;
use forust_ml::data::Matrix;
use forust_ml::gradientbooster::GradientBooster;
use forust_ml::objective::ObjectiveType;
use serde::{Deserialize, Serialize};

pub struct Gbm {
    pub iterations: usize,
    pub learning_rate: f32,
    pub max_depth: usize,
}

impl Default for Gbm {
    fn default() -> Self {
        Gbm {
            iterations: 100,
            learning_rate: 0.3,
            max_depth: 5,
        }
    }
}

/// The fitted ensemble, kept compact: forust's own trees also store the
/// training statistics of every node (hessian sums, gains, depths), which
/// made shipped models 10x larger and which prediction never reads.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GbmModel {
    base_score: f64,
    trees: Vec<Vec<TreeNode>>,
}

/// (split feature, threshold, left child, right child) for a split;
/// (-1, leaf value, 0, 0) for a leaf. A row goes left when
/// `row[feature] < threshold`, as in forust.
type TreeNode = (i32, f64, u32, u32);

impl GbmModel {
    fn from_booster(booster: &GradientBooster) -> GbmModel {
        let trees = booster
            .trees
            .iter()
            .map(|t| {
                t.nodes
                    .iter()
                    .map(|n| {
                        if n.is_leaf {
                            (-1, f64::from(n.weight_value), 0, 0)
                        } else {
                            (
                                n.split_feature as i32,
                                n.split_value,
                                n.left_child as u32,
                                n.right_child as u32,
                            )
                        }
                    })
                    .collect()
            })
            .collect();
        GbmModel {
            base_score: booster.base_score,
            trees,
        }
    }
}

impl Learner for Gbm {
    fn fit(&self, samples: &Samples) -> Result<Model, String> {
        if samples.is_empty() {
            return Err("no training rows".into());
        }
        let mut booster = GradientBooster::default()
            .set_objective_type(ObjectiveType::SquaredLoss)
            .set_iterations(self.iterations)
            .set_learning_rate(self.learning_rate)
            .set_max_depth(self.max_depth)
            .set_min_leaf_weight(1.0)
            .set_parallel(false)
            .set_seed(0);
        let data = samples.column_major();
        let matrix = Matrix::new(&data, samples.len(), samples.width);
        booster
            .fit_unweighted(&matrix, &samples.y, None)
            .map_err(|e| e.to_string())?;
        Ok(Model::Gbm(GbmModel::from_booster(&booster)))
    }
}

impl GbmModel {
    /// Refuses a model that would index past a row of `width` features or
    /// past its tree, or walk in circles: every split's children come
    /// after it in its tree (as forust builds them), so each walk ends.
    pub fn check(&self, width: usize) -> Result<(), String> {
        if !self.base_score.is_finite() {
            return Err("gbm: the base score is not a finite number".into());
        }
        for (t, tree) in self.trees.iter().enumerate() {
            if tree.is_empty() {
                return Err(format!("gbm: tree {t} has no nodes"));
            }
            for (i, &(feature, value, left, right)) in tree.iter().enumerate() {
                let child = |c: u32| (c as usize) > i && (c as usize) < tree.len();
                let ok = value.is_finite()
                    && (feature < 0 || ((feature as usize) < width && child(left) && child(right)));
                if !ok {
                    return Err(format!(
                        "gbm: tree {t} node {i} (feature {feature}, children {left} and {right}) \
                         is out of bounds for {width} features and {} nodes",
                        tree.len()
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn predict(&self, row: &[f64]) -> f64 {
        let mut sum = self.base_score;
        for tree in &self.trees {
            let mut i = 0;
            loop {
                let (feature, value, left, right) = tree[i];
                if feature < 0 {
                    sum += value;
                    break;
                }
                i = if row[feature as usize] < value {
                    left
                } else {
                    right
                } as usize;
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::holdout_rmse;
    use super::super::LearnerKind;

    #[test]
    fn compact_trees_predict_exactly_what_forust_predicts() {
        use super::*;
        let train = super::super::tests::synthetic(&[2, 4, 8, 16, 32]);
        let mut booster = GradientBooster::default()
            .set_objective_type(ObjectiveType::SquaredLoss)
            .set_iterations(20)
            .set_parallel(false);
        let data = train.column_major();
        let matrix = Matrix::new(&data, train.len(), train.width);
        booster.fit_unweighted(&matrix, &train.y, None).unwrap();
        let expected = booster.predict(&matrix, false);
        let compact = GbmModel::from_booster(&booster);
        for (i, e) in expected.iter().enumerate() {
            assert_eq!(compact.predict(train.row(i)), *e);
        }
    }

    #[test]
    fn corrupt_trees_are_refused() {
        use super::*;
        let leaf = (-1, 0.5, 0, 0);
        let good = GbmModel {
            base_score: 1.0,
            trees: vec![vec![(2, 0.5, 1, 2), leaf, leaf]],
        };
        assert!(good.check(3).is_ok());
        assert!(good.check(2).is_err(), "feature 2 of a 2-wide row");
        let cycle = GbmModel {
            trees: vec![vec![(0, 0.5, 0, 1), leaf]],
            ..good.clone()
        };
        assert!(cycle.check(3).unwrap_err().contains("node 0"));
        let past = GbmModel {
            trees: vec![vec![(0, 0.5, 1, 7), leaf]],
            ..good.clone()
        };
        assert!(past.check(3).is_err());
        let empty = GbmModel {
            trees: vec![vec![]],
            ..good
        };
        assert!(empty.check(3).is_err());
    }

    #[test]
    fn gbm_interpolates_unseen_procs() {
        let rmse = holdout_rmse(LearnerKind::Gbm);
        assert!(rmse < 0.25, "rmse {rmse}");
    }
}
