//! The solvers of the analytical model's fit: Huber regression of ln(time)
//! on rows linear in the parameters, with non-negative coefficients (no
//! negative latency or bandwidth cost), by Gauss–Newton steps of weighted
//! non-negative least squares (Lawson and Hanson's active-set method).

use super::{HUBER_K, MAD_TO_SD};
use linfa_linalg::cholesky::SolveC;
use ndarray::{Array1, Array2};

/// Gauss–Newton steps (each reweighting the residuals) of [`huber_nnls`].
const HUBER_ROUNDS: usize = 8;

/// A row's time under the parameters `theta`.
pub(super) fn predict(row: &[f64], theta: &[f64]) -> f64 {
    row.iter().zip(theta).map(|(x, t)| x * t).sum()
}

/// Huber regression of ln(time) on the rows' columns marked `used`, with
/// non-negative coefficients: the rows' times are linear in θ, their logs
/// are not, so each step solves the problem linearized at the current
/// prediction t̂ (Gauss–Newton: ln(a·θ) ≈ ln t̂ − 1 + a·θ / t̂), starting
/// from the fit of relative residuals (linearized at the measured times).
/// Huber's weights (k = [`HUBER_K`] robust standard deviations) on the log
/// residuals keep outliers (a cold first call, a noisy single run) from
/// pulling the platform.
pub(super) fn huber_nnls(rows: &[Vec<f64>], times_us: &[f64], used: &[bool]) -> Vec<f64> {
    let width = used.len();
    let mut weights = vec![1.0; rows.len()];
    let mut theta: Option<Vec<f64>> = None;
    let ln_t: Vec<f64> = times_us.iter().map(|t| t.ln()).collect();
    let loss = |theta: &[f64], weights: &[f64]| -> f64 {
        rows.iter()
            .zip(&ln_t)
            .zip(weights)
            .map(|((r, y), w)| w * (predict(r, theta).max(1e-9).ln() - y).powi(2))
            .sum()
    };
    for _ in 0..HUBER_ROUNDS {
        // Where to linearize: the measured times first, then the fit's.
        let at: Vec<f64> = match &theta {
            None => times_us.to_vec(),
            Some(t) => rows.iter().map(|r| predict(r, t).max(1e-9)).collect(),
        };
        let x: Vec<Vec<f64>> = rows
            .iter()
            .zip(&at)
            .map(|(r, t)| r.iter().map(|v| v / t).collect())
            .collect();
        let z: Vec<f64> = at
            .iter()
            .zip(&ln_t)
            .map(|(t, y)| 1.0 + y - t.ln())
            .collect();
        let next = weighted_nnls(&x, &z, &weights, used);
        // A step that fits the logs worse than where it started is halved.
        let next = match &theta {
            Some(old) if loss(&next, &weights) > loss(old, &weights) => {
                old.iter().zip(&next).map(|(a, b)| 0.5 * (a + b)).collect()
            }
            _ => next,
        };
        let residuals: Vec<f64> = rows
            .iter()
            .zip(&ln_t)
            .map(|(r, y)| predict(r, &next).max(1e-9).ln() - y)
            .collect();
        let mut abs: Vec<f64> = residuals.iter().map(|r| r.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let sigma = (MAD_TO_SD * crate::data::median_sorted(&abs)).max(1e-9);
        let k = HUBER_K * sigma;
        for (w, r) in weights.iter_mut().zip(&residuals) {
            *w = if r.abs() <= k { 1.0 } else { k / r.abs() };
        }
        theta = Some(next);
    }
    theta.unwrap_or_else(|| vec![0.0; width])
}

/// Weighted non-negative least squares of `z` on the rows `x`, columns
/// scaled to one size first (per-byte terms are ~10⁶ times the others) so
/// that the normal equations are well conditioned.
fn weighted_nnls(x: &[Vec<f64>], z: &[f64], weights: &[f64], used: &[bool]) -> Vec<f64> {
    let width = used.len();
    let scale: Vec<f64> = (0..width)
        .map(|j| {
            let ss: f64 = x.iter().map(|r| r[j] * r[j]).sum();
            if ss > 0.0 {
                (ss / x.len() as f64).sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let mut a = Array2::<f64>::zeros((width, width));
    let mut b = Array1::<f64>::zeros(width);
    // Rows are sparse (a broadcast's messages reach one or two knots).
    let mut nonzero: Vec<(usize, f64)> = Vec::with_capacity(width);
    for ((row, &zi), &w) in x.iter().zip(z).zip(weights) {
        nonzero.clear();
        nonzero.extend(
            row.iter()
                .zip(&scale)
                .enumerate()
                .filter(|(_, (v, _))| **v != 0.0)
                .map(|(j, (v, c))| (j, v / c)),
        );
        for &(i, si) in &nonzero {
            b[i] += w * si * zi;
            for &(j, sj) in &nonzero {
                a[[i, j]] += w * si * sj;
            }
        }
    }
    nnls(&a, &b, used)
        .iter()
        .zip(&scale)
        .map(|(t, c)| t / c)
        .collect()
}

/// Minimizes θᵀAθ − 2bᵀθ over θ ≥ 0 with θ_j = 0 where `!used[j]`, by
/// Lawson and Hanson's active-set method on the normal equations. Written
/// here because no maintained crate offers non-negative least squares on
/// ndarray.
fn nnls(a: &Array2<f64>, b: &Array1<f64>, used: &[bool]) -> Vec<f64> {
    let n = b.len();
    // A tiny ridge keeps the solves defined when columns are collinear
    // (e.g. latency in flight and the sender's per message on one-hop jobs).
    let ridge = 1e-10 * (0..n).map(|i| a[[i, i]]).sum::<f64>().max(1e-300);
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let gradient = |x: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| b[i] - (0..n).map(|j| a[[i, j]] * x[j]).sum::<f64>())
            .collect()
    };
    let solve = |passive: &[bool]| -> Option<Vec<f64>> {
        let idx: Vec<usize> = (0..n).filter(|&i| passive[i]).collect();
        let k = idx.len();
        let mut sub = Array2::<f64>::zeros((k, k));
        let mut rhs = Array2::<f64>::zeros((k, 1));
        for (r, &i) in idx.iter().enumerate() {
            rhs[[r, 0]] = b[i];
            for (c, &j) in idx.iter().enumerate() {
                sub[[r, c]] = a[[i, j]] + if r == c { ridge } else { 0.0 };
            }
        }
        let s = sub.solvec(&rhs).ok()?;
        let mut z = vec![0.0; n];
        for (r, &i) in idx.iter().enumerate() {
            z[i] = s[[r, 0]];
        }
        Some(z)
    };
    for _ in 0..3 * n + 10 {
        let w = gradient(&x);
        let Some(j) = (0..n)
            .filter(|&j| used[j] && !passive[j] && w[j] > 1e-12 * (1.0 + b[j].abs()))
            .max_by(|&p, &q| w[p].total_cmp(&w[q]))
        else {
            break;
        };
        passive[j] = true;
        loop {
            let Some(z) = solve(&passive) else {
                passive[j] = false;
                return x;
            };
            if (0..n).filter(|&i| passive[i]).all(|i| z[i] > 0.0) {
                x = z;
                break;
            }
            // Step towards z until a coefficient hits zero; drop those.
            let alpha = (0..n)
                .filter(|&i| passive[i] && z[i] <= 0.0)
                .map(|i| x[i] / (x[i] - z[i]))
                .fold(f64::INFINITY, f64::min);
            for i in 0..n {
                x[i] += alpha * (z[i] - x[i]);
                if passive[i] && x[i] <= 1e-15 {
                    passive[i] = false;
                    x[i] = 0.0;
                }
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nnls_keeps_coefficients_non_negative() {
        // min (x0 − 1)² + (x1 + 2)²: unconstrained optimum (1, −2).
        let a = Array2::from_diag(&Array1::from(vec![1.0, 1.0]));
        let b = Array1::from(vec![1.0, -2.0]);
        let x = nnls(&a, &b, &[true, true]);
        assert!((x[0] - 1.0).abs() < 1e-9 && x[1] == 0.0, "{x:?}");
        let x = nnls(&a, &b, &[false, true]);
        assert_eq!(x, [0.0, 0.0]);
    }
}
