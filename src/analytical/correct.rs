//! What the shared platform leaves unexplained, per algorithm: a factor on
//! its time per message size (piecewise linear in log2 size, on the
//! platform's knots), estimated from the log residuals of that algorithm's
//! rows against those of the other algorithms measured at the same
//! configuration, and shrunk towards 1 by empirical Bayes. The shrinkage
//! comes from the data: offsets are believed as far as they stand out from
//! the noise of the residuals they average (a James–Stein estimate), so an
//! algorithm measured a few times keeps the platform's price, and one the
//! platform systematically misprices gets its own level.

use super::platform::{knot_weights, KNOTS};
use super::{HUBER_K, MAD_TO_SD};
use crate::data::{Algorithm, Candidate, Config, Impl};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One algorithm's correction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub algorithm: Algorithm,
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// ln of the factor at each knot.
    pub log_factor: Vec<f64>,
    /// Fitted rows of this algorithm and implementation.
    #[serde(default)]
    pub rows: usize,
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

/// A fitted row's configuration, schedule and ln(measured / modelled time).
pub struct Residual {
    pub config: Config,
    pub runs: Candidate,
    pub log_ratio: f64,
}

type Key = (Algorithm, Impl);

/// The empirical-Bayes estimate behind the corrections, in ln²: the
/// variance of a row's residual around its cell mean (noise) and of the
/// cell means beyond what that noise explains (signal). A cell of weight w
/// keeps signal / (signal + noise / w) of its mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shrinkage {
    pub noise: f64,
    pub signal: f64,
}

/// Backfitting rounds at most; the estimates settled to 1e-9 within 22
/// rounds on every shipped and shared data file (counted with a temporary
/// print over `model fit` of each).
const ROUNDS: usize = 200;

/// The corrections the residuals support.
///
/// Only what sets an algorithm apart from the others measured *at the same
/// configuration* counts: each configuration's residuals share a level (a
/// slow run, the platform's misfit at that job) that says nothing about
/// which candidate is faster, yet it would enter every cell mean and, as
/// noise, shrink every level away. So each configuration gets its own
/// level, fitted with the corrections by backfitting (a two-way model:
/// configuration + algorithm × size), and a configuration with a single
/// algorithm measured teaches nothing. The level common to all algorithms
/// at a size is the platform's: the corrections are centred per knot.
pub fn fit(residuals: &[Residual]) -> (Vec<Correction>, Shrinkage) {
    let key = |r: &Residual| (r.runs.algorithm, r.runs.implementation);
    // Configurations where two or more algorithms were measured.
    let mut groups: BTreeMap<Config, Vec<usize>> = BTreeMap::new();
    for (i, r) in residuals.iter().enumerate() {
        groups.entry(r.config).or_default().push(i);
    }
    groups.retain(|_, rows| {
        let first = key(&residuals[rows[0]]);
        rows.iter().any(|&i| key(&residuals[i]) != first)
    });
    let rows: Vec<&Residual> = groups.values().flatten().map(|&i| &residuals[i]).collect();
    let keys: BTreeSet<Key> = residuals.iter().map(key).collect();
    let mut levels: BTreeMap<Key, [f64; KNOTS]> = keys.iter().map(|&k| (k, [0.0; KNOTS])).collect();
    let counts = residuals.iter().fold(BTreeMap::new(), |mut n, r| {
        *n.entry(key(r)).or_insert(0) += 1;
        n
    });
    let mut shrinkage = Shrinkage::default();
    if rows.is_empty() {
        return (corrections(levels, &counts), shrinkage);
    }
    let values = clipped(&rows, key);
    let at = |levels: &BTreeMap<Key, [f64; KNOTS]>, r: &Residual| -> f64 {
        knot_weights(r.config.msg_bytes)
            .iter()
            .map(|&(k, w)| w * levels[&key(r)][k])
            .sum()
    };
    for _ in 0..ROUNDS {
        // Each configuration's level given the corrections...
        let mut shared = Vec::with_capacity(rows.len());
        let mut start = 0;
        for g in groups.values() {
            let part = &rows[start..start + g.len()];
            let level = part
                .iter()
                .zip(&values[start..])
                .map(|(r, v)| v - at(&levels, r))
                .sum::<f64>()
                / g.len() as f64;
            shared.extend(std::iter::repeat_n(level, g.len()));
            start += g.len();
        }
        // ... then the corrections given the levels.
        let (next, now) = shrunk_cell_means(&rows, &values, &shared, groups.len(), key);
        shrinkage = now;
        let change = next
            .iter()
            .map(|(k, l)| {
                l.iter()
                    .zip(&levels[k])
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        levels.extend(next);
        if change < 1e-9 {
            break;
        }
    }
    (corrections(levels, &counts), shrinkage)
}

fn corrections(
    levels: BTreeMap<Key, [f64; KNOTS]>,
    rows: &BTreeMap<Key, usize>,
) -> Vec<Correction> {
    levels
        .into_iter()
        .map(|(key, l)| Correction {
            algorithm: key.0,
            implementation: key.1,
            log_factor: l.to_vec(),
            rows: rows[&key],
        })
        .collect()
}

/// The residuals with outliers (a cold first call) clipped at Huber's
/// k = [`HUBER_K`] robust standard deviations from their algorithm's median, so
/// that one run cannot move a level.
fn clipped(rows: &[&Residual], key: impl Fn(&Residual) -> Key) -> Vec<f64> {
    let mut by: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    for r in rows {
        by.entry(key(r)).or_default().push(r.log_ratio);
    }
    let centre: BTreeMap<Key, f64> = by
        .iter_mut()
        .map(|(k, v)| {
            v.sort_by(f64::total_cmp);
            (*k, crate::data::median_sorted(v))
        })
        .collect();
    let mut abs: Vec<f64> = rows
        .iter()
        .map(|r| (r.log_ratio - centre[&key(r)]).abs())
        .collect();
    abs.sort_by(f64::total_cmp);
    // No spread (more than half the residuals at their median): no
    // outlier can be told apart, and clipping at 0 would erase everything.
    let mad = crate::data::median_sorted(&abs);
    let k = if mad > 0.0 {
        HUBER_K * MAD_TO_SD * mad
    } else {
        f64::INFINITY
    };
    rows.iter()
        .map(|r| {
            let c = centre[&key(r)];
            c + (r.log_ratio - c).clamp(-k, k)
        })
        .collect()
}

/// Per (algorithm, implementation) and knot, the weighted mean of
/// `values − shared`, shrunk towards 0 by empirical Bayes and centred per
/// knot, with the estimate that shrank them. `configurations` levels were
/// fitted besides (degrees of freedom the noise lost).
fn shrunk_cell_means(
    rows: &[&Residual],
    values: &[f64],
    shared: &[f64],
    configurations: usize,
    key: impl Fn(&Residual) -> Key,
) -> (BTreeMap<Key, [f64; KNOTS]>, Shrinkage) {
    let mut cells: BTreeMap<Key, [(f64, f64, f64); KNOTS]> = BTreeMap::new();
    for ((r, v), s) in rows.iter().zip(values).zip(shared) {
        let cell = cells.entry(key(r)).or_insert([(0.0, 0.0, 0.0); KNOTS]);
        let v = v - s;
        for (k, w) in knot_weights(r.config.msg_bytes) {
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
    let lost = (means.len() + configurations) as f64;
    let noise = (within / (weight - lost).max(1.0)).max(0.0);
    let signal = ((means.iter().map(|(m, w)| w * m * m).sum::<f64>() - means.len() as f64 * noise)
        / weight)
        .max(0.0);
    let mut levels: BTreeMap<Key, [f64; KNOTS]> = cells
        .iter()
        .map(|(&k, cell)| {
            let mut l = [0.0; KNOTS];
            for (l, &(w, s, _)) in l.iter_mut().zip(cell) {
                if w > 0.0 && signal > 0.0 {
                    *l = s / w * signal / (signal + noise / w);
                }
            }
            (k, l)
        })
        .collect();
    // What all algorithms share at a knot is the configurations' (and the
    // platform's), not a correction.
    for k in 0..KNOTS {
        let (sum, w) = cells
            .iter()
            .map(|(key, cell)| (cell[k].0 * levels[key][k], cell[k].0))
            .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        if w > 0.0 {
            for (key, l) in levels.iter_mut() {
                if cells[key][k].0 > 0.0 {
                    l[k] -= sum / w;
                }
            }
        }
    }
    (levels, Shrinkage { noise, signal })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::config;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A row of `algorithm` in a job of `procs` ranks.
    fn residual(algorithm: Algorithm, procs: u32, msg_bytes: u64, log_ratio: f64) -> Residual {
        Residual {
            config: config(procs, msg_bytes),
            runs: Candidate {
                algorithm,
                ..Candidate::DEFAULT
            },
            log_ratio,
        }
    }

    fn level(c: &[Correction], a: Algorithm, msg_bytes: u64) -> f64 {
        c.iter().find(|c| c.algorithm == a).unwrap().at(msg_bytes)
    }

    /// Binary 0.5 above linear, ±0.05, in 100 jobs of `msg_bytes`.
    fn two_levels(msg_bytes: u64) -> Vec<Residual> {
        (0..400)
            .map(|i| {
                let noise = if i % 4 < 2 { 0.05 } else { -0.05 };
                let procs = 2 + i as u32 / 4;
                match i % 2 {
                    0 => residual(Algorithm::Binary, procs, msg_bytes, 0.5 + noise),
                    _ => residual(Algorithm::Linear, procs, msg_bytes, noise),
                }
            })
            .collect()
    }

    /// A difference that stands out from the noise is kept, nearly whole
    /// with many rows.
    #[test]
    fn levels_are_believed_as_far_as_the_noise_allows() {
        let (c, _) = fit(&two_levels(16));
        let gap = level(&c, Algorithm::Binary, 16) - level(&c, Algorithm::Linear, 16);
        assert!((gap - 0.5).abs() < 0.02, "{gap}");
    }

    /// Where no difference stands out, a level two rows show is mostly
    /// noise: shrunk towards 0.
    #[test]
    fn a_level_of_a_few_rows_is_shrunk() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut rows: Vec<Residual> = (0..100u32)
            .flat_map(|job| {
                let mut noise = || rng.random_range(-0.1..0.1);
                [
                    residual(Algorithm::Binary, 2 + job, 16, noise()),
                    residual(Algorithm::Linear, 2 + job, 16, noise()),
                ]
            })
            .collect();
        rows.push(residual(Algorithm::Chain, 2, 16, 0.3));
        rows.push(residual(Algorithm::Chain, 3, 16, 0.3));
        let (c, _) = fit(&rows);
        let chain = level(&c, Algorithm::Chain, 16) - level(&c, Algorithm::Linear, 16);
        assert!(chain.abs() < 0.1, "two rows of 0.3: shrunk, {chain}");
    }

    /// A size just past a knot (257 B: 0.14% of its weight on the next
    /// knot) puts a sliver of a row in a cell of its own; a level that
    /// stands out clearly elsewhere must survive it.
    #[test]
    fn a_sliver_of_a_row_does_not_silence_the_levels() {
        let mut rows = two_levels(256);
        rows.push(residual(Algorithm::Chain, 2, 257, 0.0));
        let (c, _) = fit(&rows);
        let gap = level(&c, Algorithm::Binary, 256) - level(&c, Algorithm::Linear, 256);
        assert!((gap - 0.5).abs() < 0.02, "{c:?}");
    }

    /// Each job slowed or sped up by its own factor (up to ±41%, a noisy
    /// campaign), one job per message size: the jobs' levels cancel and
    /// binary's 10% over linear is found at every size. Pooled over jobs
    /// (the estimate before the levels per configuration), their spread is
    /// noise that shrinks the difference to nothing.
    #[test]
    fn what_a_job_shares_does_not_hide_a_difference() {
        let rows: Vec<Residual> = (0..40u32)
            .flat_map(|job| {
                let slow = ((job as f64 * 0.618).fract() - 0.5) * 2f64.ln();
                let bytes = 1 << (job % 20);
                [
                    residual(Algorithm::Binary, 2 + job, bytes, slow + 0.1),
                    residual(Algorithm::Linear, 2 + job, bytes, slow),
                ]
            })
            .collect();
        let (c, _) = fit(&rows);
        for bytes in [1, 64, 4096, 1 << 19] {
            let gap = level(&c, Algorithm::Binary, bytes) - level(&c, Algorithm::Linear, bytes);
            assert!((gap - 0.1).abs() < 0.01, "{bytes} B: {gap}");
        }
    }

    /// An algorithm measured alone at its configurations is compared with
    /// nothing: it keeps the platform's price.
    #[test]
    fn an_algorithm_never_measured_beside_another_keeps_the_platforms_price() {
        let mut rows = two_levels(16);
        rows.extend((0..50).map(|i| residual(Algorithm::Chain, 500 + i, 16, 0.7)));
        let (c, _) = fit(&rows);
        assert_eq!(level(&c, Algorithm::Chain, 16), 0.0);
    }

    /// Binary and linear differ by ±0.2 or nothing, at random, per job:
    /// no difference stands out.
    #[test]
    fn pure_noise_gives_no_correction() {
        let mut rng = StdRng::seed_from_u64(7);
        let rows: Vec<Residual> = (0..200u32)
            .flat_map(|job| {
                let bytes = 1 << (job / 10);
                let mut noise = || [-0.1, 0.1][rng.random_range(0..2)];
                [
                    residual(Algorithm::Binary, 2 + job % 10, bytes, noise()),
                    residual(Algorithm::Linear, 2 + job % 10, bytes, noise()),
                ]
            })
            .collect();
        for c in fit(&rows).0 {
            assert!(c.log_factor.iter().all(|f| f.abs() < 0.05), "{c:?}");
        }
    }
}
