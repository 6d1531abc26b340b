//! A generalized additive model of ln(time) with P-splines (Eilers & Marx):
//!
//!   ln t = c + f(log2 m) + g(log2 P) + (log2 P − p̄)·h(log2 m) + a·log2 P + Σ b_j x_j
//!
//! f, g, h are cubic B-splines on equally spaced knots with a second-order
//! difference penalty; h is a varying coefficient (how the cost of more ranks
//! changes with message size). The other features enter linearly. One
//! smoothing parameter λ is chosen by generalized cross-validation.
//!
//! Written here on linfa-linalg because no Rust crate fits penalized additive
//! models (spline crates only evaluate curves; the one `gam` crate is AGPL and
//! needs a GPU stack).

use super::{Learner, Model};
use crate::learn::features::{Samples, LOG2_MSG, LOG2_PROCS, PROCS};
use linfa_linalg::cholesky::InverseC;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

pub struct Gam {
    /// Most knot intervals per smooth (fewer when the data has fewer values).
    pub max_segments: usize,
    /// Candidate λ values for GCV.
    pub lambdas: Vec<f64>,
}

impl Default for Gam {
    fn default() -> Self {
        Gam {
            max_segments: 10,
            // 10^-4 … 10^4 in half decades.
            lambdas: (-8..=8).map(|i| 10f64.powf(f64::from(i) / 2.0)).collect(),
        }
    }
}

/// Uniform cubic B-spline basis on [lo, hi]; inputs are clamped to it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Basis {
    lo: f64,
    hi: f64,
    segments: usize,
}

impl Basis {
    /// A basis for a column, or `None` when it has fewer than 3 distinct
    /// values (nothing to smooth).
    fn for_column(values: impl Iterator<Item = f64>, max_segments: usize) -> Option<Basis> {
        let mut v: Vec<f64> = values.collect();
        v.sort_by(f64::total_cmp);
        v.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        if v.len() < 3 {
            return None;
        }
        Some(Basis {
            lo: v[0],
            hi: v[v.len() - 1],
            segments: (v.len() - 1).min(max_segments),
        })
    }

    fn size(&self) -> usize {
        self.segments + 3
    }

    /// Index of the first non-zero function and the four values at `x`.
    fn eval(&self, x: f64) -> (usize, [f64; 4]) {
        let u = ((x - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0) * self.segments as f64;
        let j = (u.floor() as usize).min(self.segments - 1);
        let t = u - j as f64;
        let s = 1.0 - t;
        let b = [
            s * s * s / 6.0,
            (3.0 * t * t * t - 6.0 * t * t + 4.0) / 6.0,
            (-3.0 * t * t * t + 3.0 * t * t + 3.0 * t + 1.0) / 6.0,
            t * t * t / 6.0,
        ];
        (j, b)
    }
}

/// Column layout of the design matrix.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Layout {
    msg: Option<Basis>,
    procs: Option<Basis>,
    procs_center: f64,
    /// Feature columns entering linearly, with their centring and scale.
    linear: Vec<(usize, f64, f64)>,
}

impl Layout {
    fn width(&self) -> usize {
        let m = self.msg.as_ref().map_or(0, Basis::size);
        let p = self.procs.as_ref().map_or(0, Basis::size);
        let vc = if self.procs.is_some() { m } else { 0 };
        2 + m + p + vc + self.linear.len()
    }

    /// Writes the design row of `features` into `out` (zeroed, full width).
    fn design(&self, features: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        out[0] = 1.0;
        let lp = features[LOG2_PROCS] - self.procs_center;
        out[1] = lp;
        let mut at = 2;
        let msg = self.msg.as_ref().map(|b| (at, b.eval(features[LOG2_MSG])));
        if let Some((start, (j, b))) = msg {
            for k in 0..4 {
                out[start + j + k] = b[k];
            }
            at += self.msg.as_ref().map_or(0, Basis::size);
        }
        if let Some(basis) = &self.procs {
            let (j, b) = basis.eval(features[LOG2_PROCS]);
            for k in 0..4 {
                out[at + j + k] = b[k];
            }
            at += basis.size();
            if let Some((_, (jm, bm))) = msg {
                for k in 0..4 {
                    out[at + jm + k] = lp * bm[k];
                }
                at += self.msg.as_ref().map_or(0, Basis::size);
            }
        }
        for (i, &(col, mean, scale)) in self.linear.iter().enumerate() {
            out[at + i] = (features[col] - mean) / scale;
        }
    }

    /// Blocks of spline coefficients that get the difference penalty.
    fn penalized_blocks(&self) -> Vec<(usize, usize)> {
        let mut blocks = Vec::new();
        let mut at = 2;
        let m = self.msg.as_ref().map_or(0, Basis::size);
        if m > 0 {
            blocks.push((at, m));
            at += m;
        }
        if let Some(p) = &self.procs {
            blocks.push((at, p.size()));
            at += p.size();
            if m > 0 {
                blocks.push((at, m));
            }
        }
        blocks
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GamModel {
    layout: Layout,
    coef: Vec<f64>,
    /// Chosen smoothing parameter and effective degrees of freedom.
    pub lambda: f64,
    pub edf: f64,
}

impl Learner for Gam {
    fn fit(&self, samples: &Samples) -> Result<Model, String> {
        let n = samples.len();
        if n == 0 {
            return Err("no training rows".into());
        }
        let full = Layout {
            msg: Basis::for_column(samples.column(LOG2_MSG), self.max_segments),
            procs: Basis::for_column(samples.column(LOG2_PROCS), self.max_segments),
            procs_center: samples.column(LOG2_PROCS).sum::<f64>() / n as f64,
            linear: linear_columns(samples),
        };
        // Few rows cannot support every smooth (even the stiffest fit has
        // more degrees of freedom than rows): drop the procs smooth (and
        // with it the varying coefficient), then the size smooth, then the
        // linear features (a line in log2 procs is left), then the line:
        // one or two rows are modelled by their mean.
        let no_procs = Layout {
            procs: None,
            ..full.clone()
        };
        let no_smooth = Layout {
            msg: None,
            ..no_procs.clone()
        };
        let line = Layout {
            linear: Vec::new(),
            ..no_smooth.clone()
        };
        let mean = GamModel {
            coef: vec![samples.y.iter().sum::<f64>() / n as f64, 0.0],
            layout: line.clone(),
            lambda: 0.0,
            edf: 1.0,
        };
        let fitted = [full, no_procs, no_smooth, line]
            .into_iter()
            .find_map(|layout| self.fit_layout(samples, layout));
        Ok(Model::Gam(fitted.unwrap_or(mean)))
    }
}

impl Gam {
    /// The fit with the GCV-best λ, or `None` when no λ leaves residual
    /// degrees of freedom.
    fn fit_layout(&self, samples: &Samples, layout: Layout) -> Option<GamModel> {
        let n = samples.len();
        let p = layout.width();
        let mut design = vec![0.0; n * p];
        for (i, row) in design.chunks_exact_mut(p).enumerate() {
            layout.design(samples.row(i), row);
        }
        let x = Array2::from_shape_vec((n, p), design).ok()?;
        let y = Array1::from(samples.y.clone());
        let gram = x.t().dot(&x);
        let xty = x.t().dot(&y);
        let yy = y.dot(&y);
        let penalty = difference_penalty(p, &layout.penalized_blocks());
        // A tiny ridge keeps the system positive definite: B-splines and the
        // intercept overlap (they sum to one), and linear columns may repeat.
        let ridge = 1e-8 * (0..p).map(|i| gram[[i, i]]).sum::<f64>() / p as f64;
        let mut best: Option<(f64, f64, f64, Array1<f64>)> = None;
        for &lambda in &self.lambdas {
            let mut a = &gram + &(&penalty * lambda);
            for i in 0..p {
                a[[i, i]] += ridge;
            }
            let Ok(inverse) = a.invc() else { continue };
            let beta = inverse.dot(&xty);
            let edf = (&inverse * &gram.t()).sum();
            let rss = (yy - 2.0 * beta.dot(&xty) + beta.dot(&gram.dot(&beta))).max(0.0);
            let dof = n as f64 - edf;
            if dof <= 0.5 {
                continue;
            }
            let gcv = n as f64 * rss / (dof * dof);
            if best.as_ref().is_none_or(|b| gcv < b.0) {
                best = Some((gcv, lambda, edf, beta));
            }
        }
        let (_, lambda, edf, beta) = best?;
        Some(GamModel {
            layout,
            coef: beta.to_vec(),
            lambda,
            edf,
        })
    }
}

/// Features other than message size and procs (which the smooths cover),
/// standardized; constant ones are dropped.
fn linear_columns(samples: &Samples) -> Vec<(usize, f64, f64)> {
    let n = samples.len() as f64;
    (0..samples.width)
        .filter(|&j| j != LOG2_MSG && j != LOG2_PROCS && j != PROCS)
        .filter_map(|j| {
            let mean = samples.column(j).sum::<f64>() / n;
            let var = samples.column(j).map(|v| (v - mean).powi(2)).sum::<f64>() / n;
            (var > 1e-12).then(|| (j, mean, var.sqrt()))
        })
        .collect()
}

/// Σ over blocks of DᵀD, D the second-order difference matrix of the block.
fn difference_penalty(p: usize, blocks: &[(usize, usize)]) -> Array2<f64> {
    let mut s = Array2::zeros((p, p));
    for &(start, len) in blocks {
        for r in 0..len.saturating_sub(2) {
            let d = [
                (start + r, 1.0),
                (start + r + 1, -2.0),
                (start + r + 2, 1.0),
            ];
            for &(i, a) in &d {
                for &(j, b) in &d {
                    s[[i, j]] += a * b;
                }
            }
        }
    }
    s
}

/// Knot intervals a model file may claim at most (a fit makes ≤ 10).
const MOST_SEGMENTS: usize = 1 << 16;

impl GamModel {
    /// Refuses a model whose layout disagrees with its coefficients or
    /// reads past a row of `width` features.
    pub fn check(&self, width: usize) -> Result<(), String> {
        let basis_ok = |b: &Option<Basis>| {
            b.as_ref().is_none_or(|b| {
                (1..=MOST_SEGMENTS).contains(&b.segments)
                    && b.lo.is_finite()
                    && b.hi.is_finite()
                    && b.lo < b.hi
            })
        };
        let l = &self.layout;
        if !basis_ok(&l.msg) || !basis_ok(&l.procs) || !l.procs_center.is_finite() {
            return Err("gam: a spline basis is malformed".into());
        }
        if let Some(&(col, ..)) = l.linear.iter().find(|&&(col, mean, scale)| {
            col >= width || !mean.is_finite() || !scale.is_finite() || scale <= 0.0
        }) {
            return Err(format!(
                "gam: linear term on column {col} does not fit {width} features"
            ));
        }
        if [LOG2_MSG, LOG2_PROCS].iter().any(|&c| c >= width) {
            return Err(format!("gam: {width} features lack message size or procs"));
        }
        if self.coef.len() != l.width() || self.coef.iter().any(|c| !c.is_finite()) {
            return Err(format!(
                "gam: {} coefficients for a layout of {}",
                self.coef.len(),
                l.width()
            ));
        }
        Ok(())
    }

    pub fn predict(&self, row: &[f64]) -> f64 {
        let mut design = vec![0.0; self.coef.len()];
        self.layout.design(row, &mut design);
        design.iter().zip(&self.coef).map(|(a, b)| a * b).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{holdout_rmse, synthetic};
    use super::super::LearnerKind;
    use super::*;

    #[test]
    fn corrupt_layouts_are_refused() {
        let Model::Gam(good) = Gam::default().fit(&synthetic(&[2, 4, 8, 16])).unwrap() else {
            unreachable!()
        };
        let width = synthetic(&[2]).width;
        assert!(good.check(width).is_ok());
        let mut short = good.clone();
        short.coef.pop();
        assert!(short.check(width).unwrap_err().contains("coefficients"));
        let mut far = good.clone();
        far.layout.linear.push((width, 0.0, 1.0));
        far.coef.push(0.0);
        assert!(far.check(width).is_err());
        let mut flat = good;
        if let Some(b) = flat.layout.msg.as_mut() {
            b.hi = b.lo;
        }
        assert!(flat.check(width).is_err());
    }

    /// Six, four or three rows over five procs values and many sizes: too
    /// few for the procs smooth and its varying coefficient (the stiffest
    /// such fit has more degrees of freedom than rows); three are the
    /// fewest a candidate is usually modelled from (`train::MIN_ROWS`).
    #[test]
    fn few_rows_fit_a_smaller_model_instead_of_failing() {
        let all = synthetic(&[2, 3, 4, 6, 8]);
        for n in [6, 4, 3] {
            let mut few = Samples::new(all.width);
            for i in (0..all.len()).step_by(all.len() / n).take(n) {
                few.push(all.row(i), all.y[i]);
            }
            let Model::Gam(m) = Gam::default().fit(&few).unwrap() else {
                unreachable!()
            };
            assert!(
                m.layout.procs.is_none(),
                "kept the procs smooth on {n} rows"
            );
            for i in 0..few.len() {
                assert!(m.predict(few.row(i)).is_finite());
            }
        }
    }

    /// One or two rows leave no degrees of freedom even for a line: the
    /// model is their mean, wherever it is asked.
    #[test]
    fn one_or_two_rows_fit_their_mean() {
        let all = synthetic(&[2, 8]);
        for n in [1, 2] {
            let mut few = Samples::new(all.width);
            for i in [0, all.len() - 1].into_iter().take(n) {
                few.push(all.row(i), all.y[i]);
            }
            let mean = few.y.iter().sum::<f64>() / n as f64;
            let model = Gam::default().fit(&few).unwrap();
            for i in 0..all.len() {
                assert!((model.predict(all.row(i)) - mean).abs() < 1e-12, "{n} rows");
            }
        }
        assert!(Gam::default().fit(&Samples::new(all.width)).is_err());
    }

    #[test]
    fn basis_is_a_partition_of_unity() {
        let b = Basis {
            lo: 0.0,
            hi: 20.0,
            segments: 10,
        };
        for x in [-5.0, 0.0, 3.3, 10.0, 19.99, 20.0, 30.0] {
            let (j, v) = b.eval(x);
            assert!(j + 3 < b.size());
            assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{x}");
            assert!(v.iter().all(|&w| w >= 0.0));
        }
    }

    #[test]
    fn gam_recovers_a_smooth_surface_on_unseen_procs() {
        let rmse = holdout_rmse(LearnerKind::Gam);
        assert!(rmse < 0.1, "rmse {rmse}");
    }

    #[test]
    fn gcv_picks_a_finite_smoothing_and_reasonable_edf() {
        let train = synthetic(&[2, 4, 8, 16, 32, 64]);
        let Model::Gam(m) = Gam::default().fit(&train).unwrap() else {
            unreachable!()
        };
        assert!(m.lambda > 0.0 && m.lambda.is_finite());
        assert!(
            m.edf > 3.0 && m.edf < train.len() as f64 / 2.0,
            "edf {}",
            m.edf
        );
    }

    #[test]
    fn penalty_is_zero_on_straight_lines() {
        let s = difference_penalty(5, &[(1, 4)]);
        let line = Array1::from(vec![7.0, 1.0, 2.0, 3.0, 4.0]);
        assert!(line.dot(&s.dot(&line)).abs() < 1e-12);
        let bent = Array1::from(vec![0.0, 1.0, 3.0, 2.0, 4.0]);
        assert!(bent.dot(&s.dot(&bent)) > 1.0);
    }
}
