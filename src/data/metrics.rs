//! Figures that score predictions and picks against measurements, shared by
//! `train`, `evaluate` and `model fit`.

use crate::data::{Candidate, Config, Dataset};

/// A pick within this fraction of the best counts as near it
/// (`within_5pct_rate`); smaller differences are within the noise of most
/// campaigns.
pub const NEAR: f64 = 0.05;

/// A pick slower than `default` by more than this fraction made the
/// broadcast clearly worse (`worse_than_default_10pct_rate`).
pub const WORSE: f64 = 0.10;

/// Running figures of picks: their slowdown against the best measured
/// candidate and, where known, their speed-up over `default`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub n: usize,
    log_slowdown: f64,
    best: usize,
    near: usize,
    with_default: usize,
    log_speedup: f64,
    speedup: f64,
    worse: usize,
}

impl Tally {
    /// One pick, `slowdown` = t_pick / t_best (≥ 1), `speedup` =
    /// t_default / t_pick.
    pub fn add(&mut self, slowdown: f64, speedup: Option<f64>) {
        self.n += 1;
        self.log_slowdown += slowdown.ln();
        self.best += usize::from(slowdown <= 1.0 + 1e-9);
        self.near += usize::from(slowdown <= 1.0 + NEAR);
        if let Some(s) = speedup {
            self.with_default += 1;
            self.log_speedup += s.ln();
            self.speedup += s;
            self.worse += usize::from(s < 1.0 / (1.0 + WORSE));
        }
    }

    fn mean(sum: f64, n: usize) -> f64 {
        if n == 0 {
            f64::NAN
        } else {
            sum / n as f64
        }
    }

    /// Geometric mean of the slowdowns (NaN without picks).
    pub fn geomean_slowdown(&self) -> f64 {
        Self::mean(self.log_slowdown, self.n).exp()
    }
    /// Share of picks that were the best.
    pub fn best_rate(&self) -> f64 {
        Self::mean(self.best as f64, self.n)
    }
    /// Share of picks within [`NEAR`] of the best.
    pub fn near_rate(&self) -> f64 {
        Self::mean(self.near as f64, self.n)
    }
    pub fn geomean_speedup(&self) -> f64 {
        Self::mean(self.log_speedup, self.with_default).exp()
    }
    pub fn mean_speedup(&self) -> f64 {
        Self::mean(self.speedup, self.with_default)
    }
    /// Share of picks slower than `default` by more than [`WORSE`].
    pub fn worse_rate(&self) -> f64 {
        Self::mean(self.worse as f64, self.with_default)
    }
}

/// Pairwise ranking accuracy: over every configuration of `d` and every pair
/// of candidates measured there that `predict` prices, the share of pairs
/// whose faster one is predicted faster; a pair predicted equal (the same
/// schedule) counts half. Pairs measured within `tie` of each other
/// (relative) are left out: which one is faster is noise. `None` without
/// any pair.
pub fn pairwise_accuracy(
    d: &Dataset,
    tie: f64,
    mut predict: impl FnMut(&Config, &Candidate) -> Option<f64>,
) -> Option<Pairwise> {
    let (mut right, mut pairs) = (0.0, 0usize);
    for group in d.by_config() {
        let priced: Vec<(f64, f64)> = group
            .iter()
            .filter_map(|m| Some((m.time_us, predict(&m.config, &m.candidate)?)))
            .collect();
        for (i, a) in priced.iter().enumerate() {
            for b in &priced[i + 1..] {
                let (fast, slow) = if a.0 < b.0 { (a, b) } else { (b, a) };
                if slow.0 <= fast.0 * (1.0 + tie) {
                    continue;
                }
                pairs += 1;
                right += match fast.1.total_cmp(&slow.1) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
            }
        }
    }
    (pairs > 0).then(|| Pairwise {
        pairs,
        accuracy: right / pairs as f64,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pairwise {
    pub pairs: usize,
    pub accuracy: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_follows_the_design_definitions() {
        let mut t = Tally::default();
        t.add(1.0, Some(2.0));
        t.add(1.2, Some(1.0 / 1.2));
        t.add(1.04, Some(0.95));
        assert_eq!(t.n, 3);
        assert!((t.geomean_slowdown() - (1.2f64 * 1.04).powf(1.0 / 3.0)).abs() < 1e-12);
        assert!((t.best_rate() - 1.0 / 3.0).abs() < 1e-12);
        assert!((t.near_rate() - 2.0 / 3.0).abs() < 1e-12);
        assert!(
            (t.worse_rate() - 1.0 / 3.0).abs() < 1e-12,
            "1.2x slower only"
        );
        assert!(Tally::default().geomean_slowdown().is_nan());
    }
}
