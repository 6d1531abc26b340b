//! The linear baseline of Tallone et al. (2024): for each message size and
//! mapping, ln(time) is linear in procs, with a dummy per node count that
//! shifts both intercept and slope:
//!
//!   ln t = β0 + β1·P + Σ_n (β2n·z_n + β3n·P·z_n),   z_n = [nodes = n], n > min
//!
//! fitted by least squares (linfa-linear). Between trained message sizes the
//! prediction is interpolated in log2 size; beyond them the nearest is used.

use super::{Learner, Model};
use crate::learn::features::{Samples, LOG2_MSG, NODES, PROCS};
use linfa::traits::Fit;
use linfa::Dataset;
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Mapping columns (socket, node) of the base features.
const MAPPING: [usize; 2] = [5, 6];

pub struct Linear;

/// One least-squares fit: intercept plus coefficients on named terms.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Fit1 {
    intercept: f64,
    /// (term, coefficient); a term is (node count or None, times P?).
    terms: Vec<(Term, f64)>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
struct Term {
    /// `Some(n)`: only when nodes == n.
    nodes: Option<u32>,
    times_procs: bool,
}

impl Term {
    fn value(&self, procs: f64, nodes: f64) -> f64 {
        let gate = self
            .nodes
            .map_or(1.0, |n| f64::from(u8::from(nodes == f64::from(n))));
        gate * if self.times_procs { procs } else { 1.0 }
    }
}

impl Fit1 {
    fn predict(&self, procs: f64, nodes: f64) -> f64 {
        self.intercept
            + self
                .terms
                .iter()
                .map(|(t, c)| c * t.value(procs, nodes))
                .sum::<f64>()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LinearModel {
    /// (mapping code, fits by log2 message size ascending), by mapping code.
    /// A list, not a map: JSON object keys would be strings.
    groups: Vec<(u8, Vec<(f64, Fit1)>)>,
}

fn mapping_code(row: &[f64]) -> u8 {
    u8::from(row[MAPPING[0]] > 0.5) | (u8::from(row[MAPPING[1]] > 0.5) << 1)
}

impl Learner for Linear {
    fn fit(&self, samples: &Samples) -> Result<Model, String> {
        if samples.is_empty() {
            return Err("no training rows".into());
        }
        // Group rows by (mapping, message size).
        let mut by_group: BTreeMap<(u8, i64), Vec<usize>> = BTreeMap::new();
        for i in 0..samples.len() {
            let row = samples.row(i);
            let size_key = (row[LOG2_MSG] * 1e6).round() as i64;
            by_group
                .entry((mapping_code(row), size_key))
                .or_default()
                .push(i);
        }
        let mut groups: BTreeMap<u8, Vec<(f64, Fit1)>> = BTreeMap::new();
        for ((mapping, _), rows) in by_group {
            let log2m = samples.row(rows[0])[LOG2_MSG];
            groups
                .entry(mapping)
                .or_default()
                .push((log2m, fit_group(samples, &rows)?));
        }
        Ok(Model::Linear(LinearModel {
            groups: groups.into_iter().collect(),
        }))
    }
}

/// Least squares on the terms the rows can identify.
fn fit_group(samples: &Samples, rows: &[usize]) -> Result<Fit1, String> {
    let procs: Vec<f64> = rows.iter().map(|&i| samples.row(i)[PROCS]).collect();
    let nodes: Vec<f64> = rows.iter().map(|&i| samples.row(i)[NODES]).collect();
    let mut node_counts: Vec<u32> = nodes.iter().map(|&n| n as u32).collect();
    node_counts.sort_unstable();
    node_counts.dedup();
    let mut candidates = vec![Term {
        nodes: None,
        times_procs: true,
    }];
    for &n in node_counts.iter().skip(1) {
        for times_procs in [false, true] {
            candidates.push(Term {
                nodes: Some(n),
                times_procs,
            });
        }
    }
    let column = |t: &Term| -> Vec<f64> {
        procs
            .iter()
            .zip(&nodes)
            .map(|(&p, &n)| t.value(p, n))
            .collect()
    };
    let terms = independent_terms(rows.len(), &candidates, column);
    let y: Vec<f64> = rows.iter().map(|&i| samples.y[i]).collect();
    if terms.is_empty() {
        let mean = y.iter().sum::<f64>() / y.len() as f64;
        return Ok(Fit1 {
            intercept: mean,
            terms: vec![],
        });
    }
    let mut x = Array2::zeros((rows.len(), terms.len()));
    for (j, t) in terms.iter().enumerate() {
        for (i, v) in column(t).into_iter().enumerate() {
            x[[i, j]] = v;
        }
    }
    let fitted = LinearRegression::new()
        .fit(&Dataset::new(x, Array1::from(y)))
        .map_err(|e| format!("linear fit failed: {e}"))?;
    Ok(Fit1 {
        intercept: fitted.intercept(),
        terms: terms
            .into_iter()
            .zip(fitted.params().iter().copied())
            .collect(),
    })
}

/// Keeps the terms whose columns are not (nearly) combinations of the
/// intercept and the terms kept before them, while leaving more rows than
/// coefficients (Gram–Schmidt with a relative tolerance).
fn independent_terms(
    n: usize,
    candidates: &[Term],
    column: impl Fn(&Term) -> Vec<f64>,
) -> Vec<Term> {
    let ones = vec![1.0 / (n as f64).sqrt(); n];
    let mut basis: Vec<Vec<f64>> = vec![ones];
    let mut kept = Vec::new();
    for t in candidates {
        if kept.len() + 2 > n {
            break;
        }
        let mut v = column(t);
        let norm0 = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        for b in &basis {
            let dot: f64 = v.iter().zip(b).map(|(a, c)| a * c).sum();
            v.iter_mut().zip(b).for_each(|(a, c)| *a -= dot * c);
        }
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        if norm0 > 0.0 && norm > 1e-8 * norm0 {
            v.iter_mut().for_each(|a| *a /= norm);
            basis.push(v);
            kept.push(*t);
        }
    }
    kept
}

impl LinearModel {
    /// Refuses a model without fits, with fits out of order, or one that
    /// reads columns a row of `width` features lacks.
    pub fn check(&self, width: usize) -> Result<(), String> {
        if width
            <= [LOG2_MSG, NODES, PROCS, MAPPING[0], MAPPING[1]]
                .into_iter()
                .max()
                .unwrap_or(0)
        {
            return Err(format!(
                "linear: {width} features lack the columns it reads"
            ));
        }
        if self.groups.is_empty() {
            return Err("linear: no fits".into());
        }
        for (code, fits) in &self.groups {
            let finite =
                |f: &Fit1| f.intercept.is_finite() && f.terms.iter().all(|(_, c)| c.is_finite());
            if fits.is_empty()
                || !fits.windows(2).all(|w| w[0].0 < w[1].0)
                || fits.iter().any(|(m, f)| !m.is_finite() || !finite(f))
            {
                return Err(format!(
                    "linear: the fits of mapping {code} are empty, unsorted or not finite"
                ));
            }
        }
        Ok(())
    }

    pub fn predict(&self, row: &[f64]) -> f64 {
        let code = mapping_code(row);
        // An unseen mapping borrows the first trained one.
        let Some((_, fits)) = self
            .groups
            .iter()
            .find(|(c, _)| *c == code)
            .or_else(|| self.groups.first())
        else {
            return f64::NAN;
        };
        let (procs, nodes, x) = (row[PROCS], row[NODES], row[LOG2_MSG]);
        let at = fits.partition_point(|(m, _)| *m < x);
        if at == 0 {
            return fits[0].1.predict(procs, nodes);
        }
        if at == fits.len() {
            return fits[at - 1].1.predict(procs, nodes);
        }
        let ((m0, f0), (m1, f1)) = (&fits[at - 1], &fits[at]);
        let w = (x - m0) / (m1 - m0);
        (1.0 - w) * f0.predict(procs, nodes) + w * f1.predict(procs, nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::synthetic;
    use super::*;
    use crate::learn::features::BASE;

    #[test]
    fn recovers_a_two_segment_line_per_size() {
        // ln t = 1 + 0.1 P on one node, 3 + 0.2 P on two, at one size.
        let mut s = Samples::new(BASE.len());
        for p in 2..=16u32 {
            let nodes = if p > 8 { 2.0 } else { 1.0 };
            let row = [
                10.0,
                f64::from(p),
                f64::from(p).log2(),
                nodes,
                8.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ];
            let y = if nodes > 1.0 {
                3.0 + 0.2 * f64::from(p)
            } else {
                1.0 + 0.1 * f64::from(p)
            };
            s.push(&row, y);
        }
        let m = Linear.fit(&s).unwrap();
        let at = |p: f64, nodes: f64| {
            m.predict(&[10.0, p, p.log2(), nodes, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        };
        assert!((at(5.0, 1.0) - 1.5).abs() < 1e-9);
        assert!((at(20.0, 2.0) - 7.0).abs() < 1e-9);
    }

    #[test]
    fn collinear_dummies_do_not_break_the_fit() {
        // Two nodes only at the largest procs: z and P·z are collinear.
        let mut s = Samples::new(BASE.len());
        for p in [2u32, 4, 8, 16] {
            let nodes = if p == 16 { 2.0 } else { 1.0 };
            let row = [
                3.0,
                f64::from(p),
                f64::from(p).log2(),
                nodes,
                8.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ];
            s.push(&row, f64::from(p).ln());
        }
        let m = Linear.fit(&s).unwrap();
        let y = m.predict(&[3.0, 16.0, 4.0, 2.0, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!((y - 16f64.ln()).abs() < 1e-6, "{y}");
    }

    #[test]
    fn interpolates_between_sizes() {
        let train = synthetic(&[2, 4, 8, 16, 32]);
        let m = Linear.fit(&train).unwrap();
        let lo = m.predict(&[4.0, 8.0, 3.0, 1.0, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let hi = m.predict(&[5.0, 8.0, 3.0, 1.0, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let mid = m.predict(&[4.5, 8.0, 3.0, 1.0, 8.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!((mid - (lo + hi) / 2.0).abs() < 1e-9);
    }
}
