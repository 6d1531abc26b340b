//! Running statistics of one measurement point and its stopping rule, and
//! the speed-up of one candidate over a baseline timed in paired rounds.

/// Per-iteration times (µs) of one point.
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn push(&mut self, us: f64) {
        self.0.push(us);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn mean(&self) -> f64 {
        self.0.iter().sum::<f64>() / self.0.len() as f64
    }

    pub fn min(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn max(&self) -> f64 {
        self.0.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    /// Half-width of the 95% confidence interval of the mean (Student t);
    /// infinite with fewer than two samples.
    pub fn ci95(&self) -> f64 {
        let n = self.0.len();
        if n < 2 {
            return f64::INFINITY;
        }
        let mean = self.mean();
        let var = self.0.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        t975(n - 1) * (var / n as f64).sqrt()
    }

    /// Whether the mean is known to within `rel` (relative CI half-width).
    pub fn converged(&self, rel: f64) -> bool {
        self.ci95() <= rel * self.mean()
    }
}

/// The speed-up `baseline / candidate` estimated from paired rounds: in each
/// round both were timed back to back, the same number of iterations each,
/// so a drift of the machine (another job, frequency, the OS) hits both
/// alike and cancels in the round's ratio. The estimate is the geometric
/// mean of the rounds' ratios, its interval Student's t on their logarithms
/// (ratios of times are closer to log-normal than to normal).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Speedup {
    pub speedup: f64,
    /// The 95% confidence interval.
    pub low: f64,
    pub high: f64,
    /// Paired rounds behind it; 0 for a speed-up known exactly (the same
    /// call on both sides).
    pub rounds: usize,
}

impl Speedup {
    /// Exactly 1: both sides run the same thing.
    pub const UNCHANGED: Speedup = Speedup {
        speedup: 1.0,
        low: 1.0,
        high: 1.0,
        rounds: 0,
    };

    /// From `(baseline_us, candidate_us)` per round; `None` without two
    /// rounds of positive times.
    pub fn from_rounds(rounds: &[(f64, f64)]) -> Option<Speedup> {
        let logs: Vec<f64> = rounds
            .iter()
            .filter(|(b, c)| *b > 0.0 && *c > 0.0)
            .map(|(b, c)| (b / c).ln())
            .collect();
        let n = logs.len();
        if n < 2 {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t975(n - 1) * (var / n as f64).sqrt();
        Some(Speedup {
            speedup: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
            rounds: n,
        })
    }

    /// Half the interval's width in ln(speed-up): 0.05 is about ±5%.
    pub fn half_width(&self) -> f64 {
        (self.high / self.low).ln() / 2.0
    }

    /// Whether the interval holds 1: no difference the rounds could tell.
    pub fn within_noise(&self) -> bool {
        self.low <= 1.0 && self.high >= 1.0
    }

    /// The geometric mean of several independent speed-ups (the effect of a
    /// rules file over its message sizes), its interval from their standard
    /// errors in ln combined as for any mean of independent estimates, with
    /// the normal quantile (the pooled rounds are many).
    pub fn geomean(parts: &[Speedup]) -> Option<Speedup> {
        if parts.is_empty() {
            return None;
        }
        let n = parts.len() as f64;
        let mean = parts.iter().map(|s| s.speedup.ln()).sum::<f64>() / n;
        let var: f64 = parts
            .iter()
            .filter(|s| s.rounds >= 2)
            .map(|s| (s.half_width() / t975(s.rounds - 1)).powi(2))
            .sum();
        let half = Z975 * var.sqrt() / n;
        Some(Speedup {
            speedup: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
            rounds: parts.iter().map(|s| s.rounds).sum(),
        })
    }
}

/// The normal distribution's two-sided 95% quantile.
const Z975: f64 = 1.959_964;

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
/// Tabulated rather than taken from a statistics crate: statrs would pull in
/// nalgebra for this one number.
fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        // Cornish-Fisher expansion around the normal quantile: < 0.1% error
        // beyond 30 degrees of freedom.
        _ => {
            let z = Z975;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let mut s = Samples::default();
        for x in [10.0, 12.0, 11.0, 13.0] {
            s.push(x);
        }
        assert_eq!(s.mean(), 11.5);
        assert_eq!((s.min(), s.max()), (10.0, 13.0));
        // sd = 1.29099, t(3) = 3.182 → 3.182 · 1.29099 / 2
        assert!((s.ci95() - 2.0540).abs() < 1e-3, "{}", s.ci95());
        assert!(!s.converged(0.025));
    }

    #[test]
    fn constant_samples_converge_at_two() {
        let mut s = Samples::default();
        s.push(5.0);
        assert!(!s.converged(0.025));
        s.push(5.0);
        assert!(s.converged(0.025));
    }

    #[test]
    fn t_quantile_continues_smoothly_past_the_table() {
        assert!((t975(31) - 2.040).abs() < 2e-3);
        assert!((t975(60) - 2.000).abs() < 2e-3);
        assert!((t975(1000) - 1.962).abs() < 2e-3);
    }

    #[test]
    fn paired_rounds_give_the_geometric_mean_ratio_and_its_interval() {
        // ln ratios ln 2 ± 0.1: mean ln 2, sd 0.1, n = 4, t(3) = 3.182.
        let rounds = [
            (2.0 * 0.1f64.exp(), 1.0),
            (2.0 * (-0.1f64).exp(), 1.0),
            (20.0 * 0.1f64.exp(), 10.0),
            (20.0 * (-0.1f64).exp(), 10.0),
        ];
        let s = Speedup::from_rounds(&rounds).unwrap();
        assert!((s.speedup - 2.0).abs() < 1e-12, "{s:?}");
        let sd = (4.0 * 0.01 / 3.0f64).sqrt();
        let half = 3.182 * sd / 2.0;
        assert!((s.half_width() - half).abs() < 1e-9, "{s:?}");
        assert!((s.low - 2.0 * (-half).exp()).abs() < 1e-9);
        assert!(!s.within_noise());
        assert_eq!(s.rounds, 4);
        assert_eq!(Speedup::from_rounds(&rounds[..1]), None);
    }

    #[test]
    fn a_geometric_mean_of_speedups_pools_their_errors() {
        let one = Speedup::from_rounds(&[(1.1, 1.0), (0.9, 1.0), (1.1, 1.0), (0.9, 1.0)]).unwrap();
        assert!(one.within_noise());
        let both = Speedup::geomean(&[one, Speedup::UNCHANGED]).unwrap();
        // Half the log error of `one` (the exact part adds none), halved again
        // by n = 2, with the normal quantile in place of t(3).
        let se = one.half_width() / 3.182;
        assert!(
            (both.half_width() - Z975 * se / 2.0).abs() < 1e-9,
            "{both:?}"
        );
        assert!((both.speedup - one.speedup.sqrt()).abs() < 1e-12);
        assert_eq!(Speedup::geomean(&[]), None);
        assert_eq!(
            Speedup::geomean(&[Speedup::UNCHANGED]),
            Some(Speedup::UNCHANGED)
        );
    }
}
