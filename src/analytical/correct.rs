//! What the shared platform leaves unexplained, per algorithm: a factor on
//! its time per message size (piecewise linear in log2 size, on the
//! platform's knots), estimated from the log residuals of that algorithm's
//! rows and shrunk towards 1 by empirical Bayes. The shrinkage comes from
//! the data: offsets are believed as far as they stand out from the noise
//! of the residuals they average (a James–Stein estimate), so an algorithm
//! measured a few times keeps the platform's price, and one the platform
//! systematically misprices gets its own level.

use super::platform::{knot_weights, KNOTS};
use crate::data::{Algorithm, Candidate, Impl};
use serde::{Deserialize, Serialize};

/// One algorithm's correction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub algorithm: Algorithm,
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// ln of the factor at each knot.
    pub log_factor: Vec<f64>,
}

impl Correction {
    /// ln of the factor for a message of `bytes`.
    pub fn at(&self, bytes: u64) -> f64 {
        knot_weights(bytes)
            .iter()
            .map(|&(k, w)| w * self.log_factor.get(k).copied().unwrap_or(0.0))
            .sum()
    }
}

/// A fitted row's schedule, size and ln(measured / modelled time).
pub struct Residual {
    pub runs: Candidate,
    pub msg_bytes: u64,
    pub log_ratio: f64,
}

/// The corrections the residuals support.
pub fn fit(residuals: &[Residual]) -> Vec<Correction> {
    if residuals.is_empty() {
        return Vec::new();
    }
    // Outliers (a cold first call) are clipped at Huber's k = 1.345 robust
    // standard deviations from their algorithm's median, so that one run
    // cannot move a level.
    type Key = (Algorithm, Impl);
    let key = |r: &Residual| (r.runs.algorithm, r.runs.implementation);
    let mut by: std::collections::BTreeMap<Key, Vec<f64>> = Default::default();
    for r in residuals {
        by.entry(key(r)).or_default().push(r.log_ratio);
    }
    let centre: std::collections::BTreeMap<Key, f64> = by
        .iter_mut()
        .map(|(k, v)| {
            v.sort_by(f64::total_cmp);
            (*k, crate::data::median_sorted(v))
        })
        .collect();
    let mut abs: Vec<f64> = residuals
        .iter()
        .map(|r| (r.log_ratio - centre[&key(r)]).abs())
        .collect();
    abs.sort_by(f64::total_cmp);
    let k = 1.345 * 1.4826 * crate::data::median_sorted(&abs).max(1e-9);
    let clip = |r: &Residual| {
        let c = centre[&key(r)];
        c + (r.log_ratio - c).clamp(-k, k)
    };
    // Weighted sums per (algorithm, implementation) and knot.
    let mut cells: std::collections::BTreeMap<Key, [(f64, f64, f64); KNOTS]> = Default::default();
    for r in residuals {
        let cell = cells
            .entry((r.runs.algorithm, r.runs.implementation))
            .or_insert([(0.0, 0.0, 0.0); KNOTS]);
        let v = clip(r);
        for (k, w) in knot_weights(r.msg_bytes) {
            cell[k].0 += w;
            cell[k].1 += w * v;
            cell[k].2 += w * v * v;
        }
    }
    // Noise: the residuals' spread around their cell means; signal: how
    // far the cell means spread beyond what that noise explains. A cell
    // mean of weight w has E[mean²] = signal + noise / w, so the weighted
    // sum Σ w·mean² estimates signal·Σw + cells·noise: each cell counts by
    // its weight, and one holding a sliver of a row (a size just past a
    // knot) cannot swing the estimate by −noise / w.
    let (mut within, mut weight) = (0.0, 0.0);
    let mut means: Vec<(f64, f64)> = Vec::new();
    for cell in cells.values() {
        for &(w, s, ss) in cell.iter().filter(|c| c.0 > 0.0) {
            let mean = s / w;
            within += ss - w * mean * mean;
            weight += w;
            means.push((mean, w));
        }
    }
    let noise = (within / (weight - means.len() as f64).max(1.0)).max(0.0);
    let signal = ((means.iter().map(|(m, w)| w * m * m).sum::<f64>() - means.len() as f64 * noise)
        / weight)
        .max(0.0);
    cells
        .into_iter()
        .map(|((algorithm, implementation), cell)| Correction {
            algorithm,
            implementation,
            log_factor: cell
                .iter()
                .map(|&(w, s, _)| {
                    if w <= 0.0 || signal <= 0.0 {
                        0.0
                    } else {
                        s / w * signal / (signal + noise / w)
                    }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(algorithm: Algorithm, msg_bytes: u64, log_ratio: f64) -> Residual {
        Residual {
            runs: Candidate {
                algorithm,
                ..Candidate::DEFAULT
            },
            msg_bytes,
            log_ratio,
        }
    }

    /// 200 rows each of binary at a level of 0.5 and linear at 0, ±0.05,
    /// all of `msg_bytes`.
    fn two_levels(msg_bytes: u64) -> Vec<Residual> {
        (0..400)
            .map(|i| {
                let noise = if i % 4 < 2 { 0.05 } else { -0.05 };
                match i % 2 {
                    0 => residual(Algorithm::Binary, msg_bytes, 0.5 + noise),
                    _ => residual(Algorithm::Linear, msg_bytes, noise),
                }
            })
            .collect()
    }

    /// A level that stands out from the noise is kept (nearly whole, with
    /// many rows); a level of a few noisy rows is shrunk towards 0.
    #[test]
    fn levels_are_believed_as_far_as_the_noise_allows() {
        let mut rows = two_levels(16);
        rows.push(residual(Algorithm::Chain, 16, 0.3));
        rows.push(residual(Algorithm::Chain, 16, -0.2));
        let c = fit(&rows);
        let at = |a: Algorithm| c.iter().find(|c| c.algorithm == a).unwrap().at(16);
        assert!(
            (at(Algorithm::Binary) - 0.5).abs() < 0.02,
            "{}",
            at(Algorithm::Binary)
        );
        assert!(at(Algorithm::Linear).abs() < 0.02);
        assert!(
            at(Algorithm::Chain).abs() < 0.05,
            "two rows: shrunk, {}",
            at(Algorithm::Chain)
        );
    }

    /// A size just past a knot (257 B: 0.14% of its weight on the next
    /// knot) puts a sliver of a row in a cell of its own; a level that
    /// stands out clearly elsewhere must survive it.
    #[test]
    fn a_sliver_of_a_row_does_not_silence_the_levels() {
        let mut rows = two_levels(256);
        rows.push(residual(Algorithm::Chain, 257, 0.0));
        let c = fit(&rows);
        let binary = c.iter().find(|c| c.algorithm == Algorithm::Binary).unwrap();
        assert!((binary.at(256) - 0.5).abs() < 0.02, "{binary:?}");
    }

    #[test]
    fn pure_noise_gives_no_correction() {
        let rows: Vec<Residual> = (0..100)
            .map(|i| {
                let a = [Algorithm::Binary, Algorithm::Linear][i % 2];
                residual(a, 1 << (i % 20), if i % 4 < 2 { 0.1 } else { -0.1 })
            })
            .collect();
        for c in fit(&rows) {
            assert!(c.log_factor.iter().all(|f| f.abs() < 0.05), "{c:?}");
        }
    }
}
