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
