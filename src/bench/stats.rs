//! Running statistics of one measurement point and its stopping rule, and
//! the speed-up of one candidate over a baseline timed in paired rounds.

use statrs::distribution::{ContinuousCDF, StudentsT};
use std::sync::OnceLock;

/// Per-iteration times (µs) of one point.
#[derive(Clone, Debug, Default)]
pub struct IterationTimes(Vec<f64>);

impl IterationTimes {
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
///
/// Where the rounds were taken in several *replicas* (each on a fresh
/// communicator with the ranks in another order, over fresh buffers: what
/// changes from one job to the next, `experiments/variance.md`), the
/// interval is taken over the replicas' means instead: it then holds the
/// spread between replicas, which the rounds of one replica cannot see.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Speedup {
    pub speedup: f64,
    /// The 95% confidence interval.
    pub low: f64,
    pub high: f64,
    /// Paired rounds behind it; 0 for a speed-up known exactly (the same
    /// call on both sides).
    pub rounds: usize,
    /// Replicas the rounds were taken in, where the interval is over their
    /// means (two or more); 0 or 1: the interval is over the rounds.
    #[serde(default)]
    pub replicas: usize,
    /// Where the replicas were taken in states that can change the winner
    /// (the allocator's, `bench::allocator`): the lowest speed-up of one
    /// state's replicas together, in the machine's quiet state
    /// (`bench::machine_state`; where a state's replicas never met it,
    /// its disturbed ones). A switch not faster by 5% in one is not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weakest: Option<f64>,
    /// The same, of the replicas taken while the machine was disturbed,
    /// where there were any. A switch slower there is not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed: Option<f64>,
}

impl Speedup {
    /// Exactly 1: both sides run the same thing.
    pub const UNCHANGED: Speedup = Speedup {
        speedup: 1.0,
        low: 1.0,
        high: 1.0,
        rounds: 0,
        replicas: 0,
        weakest: None,
        disturbed: None,
    };

    /// From `(baseline_us, candidate_us)` per round; `None` without two
    /// rounds of positive times.
    pub fn from_rounds(rounds: &[(f64, f64)]) -> Option<Speedup> {
        let logs = log_ratios(rounds);
        let n = logs.len();
        let (mean, half) = t_interval(&logs)?;
        Some(Speedup {
            speedup: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
            rounds: n,
            replicas: 0,
            weakest: None,
            disturbed: None,
        })
    }

    /// From the rounds of each replica: the interval over the replicas'
    /// mean log ratios where two or more have rounds, else
    /// [`Speedup::from_rounds`] on the one replica.
    pub fn from_replicas(replicas: &[Vec<(f64, f64)>]) -> Option<Speedup> {
        let logs: Vec<Vec<f64>> = replicas
            .iter()
            .map(|r| log_ratios(r))
            .filter(|l| !l.is_empty())
            .collect();
        if logs.len() < 2 {
            return Self::from_rounds(&replicas.concat());
        }
        let means: Vec<f64> = logs
            .iter()
            .map(|l| l.iter().sum::<f64>() / l.len() as f64)
            .collect();
        let (mean, half) = t_interval(&means)?;
        Some(Speedup {
            speedup: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
            rounds: logs.iter().map(Vec::len).sum(),
            replicas: means.len(),
            weakest: None,
            disturbed: None,
        })
    }

    /// Degrees of freedom of the interval: replicas or rounds, less one.
    fn df(&self) -> usize {
        match self.replicas {
            0 | 1 => self.rounds.saturating_sub(1),
            r => r - 1,
        }
    }

    /// The one-sided p-value of "not faster than the baseline" (a speed-up
    /// of 1 or less) from the interval's t statistic; 1 for a speed-up
    /// known exactly.
    pub fn p_not_faster(&self) -> f64 {
        let df = self.df();
        if df == 0 || self.low == self.high {
            return if self.low > 1.0 { 0.0 } else { 1.0 };
        }
        let se = self.half_width() / t975(df);
        let t = self.speedup.ln() / se;
        StudentsT::new(0.0, 1.0, df as f64).map_or(1.0, |d| d.sf(t))
    }

    /// The same comparison with every figure multiplied by `factor` (the
    /// interval keeps its width in ln, so the p-values move with it).
    pub fn scaled(self, factor: f64) -> Speedup {
        Speedup {
            speedup: self.speedup * factor,
            low: self.low * factor,
            high: self.high * factor,
            weakest: self.weakest.map(|w| w * factor),
            disturbed: self.disturbed.map(|w| w * factor),
            ..self
        }
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
            .filter(|s| s.df() >= 1)
            .map(|s| (s.half_width() / t975(s.df())).powi(2))
            .sum();
        let half = Z975 * var.sqrt() / n;
        Some(Speedup {
            speedup: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
            rounds: parts.iter().map(|s| s.rounds).sum(),
            replicas: 0,
            weakest: None,
            disturbed: None,
        })
    }
}

/// ln(baseline / candidate) of each pair of positive times.
pub(crate) fn log_ratios(pairs: &[(f64, f64)]) -> Vec<f64> {
    pairs
        .iter()
        .filter(|(b, c)| *b > 0.0 && *c > 0.0)
        .map(|(b, c)| (b / c).ln())
        .collect()
}

/// The mean of `xs` and the half-width of its 95% Student t interval;
/// `None` for fewer than two values.
fn t_interval(xs: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, t975(n - 1) * (var / n as f64).sqrt()))
}

/// The normal distribution's two-sided 95% quantile.
const Z975: f64 = 1.959_964;

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom
/// (infinite with none). Computed once per `df` up to 256: the timing loop
/// asks after every sample, and the inversion takes a search.
pub(crate) fn t975(df: usize) -> f64 {
    fn quantile(df: usize) -> f64 {
        match StudentsT::new(0.0, 1.0, df as f64) {
            Ok(t) if df > 0 => t.inverse_cdf(0.975),
            _ => f64::INFINITY,
        }
    }
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let table = TABLE.get_or_init(|| (0..=256).map(quantile).collect());
    table.get(df).copied().unwrap_or_else(|| quantile(df))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let mut s = IterationTimes::default();
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
        let mut s = IterationTimes::default();
        s.push(5.0);
        assert!(!s.converged(0.025));
        s.push(5.0);
        assert!(s.converged(0.025));
    }

    #[test]
    fn t_quantiles_are_student_s() {
        // Published two-sided 95% quantiles.
        for (df, q) in [
            (1, 12.706),
            (3, 3.182),
            (10, 2.228),
            (30, 2.042),
            (60, 2.000),
        ] {
            assert!((t975(df) - q).abs() < 1e-3, "t({df}) = {}", t975(df));
        }
        assert!((t975(1000) - 1.962).abs() < 1e-3);
        assert_eq!(t975(0), f64::INFINITY);
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
        let half = t975(3) * sd / 2.0;
        assert!((s.half_width() - half).abs() < 1e-9, "{s:?}");
        assert!((s.low - 2.0 * (-half).exp()).abs() < 1e-9);
        assert!(!s.within_noise());
        assert_eq!(s.rounds, 4);
        assert_eq!(Speedup::from_rounds(&rounds[..1]), None);
    }

    #[test]
    fn replicas_carry_the_interval_with_the_spread_between_them() {
        // Each replica's rounds agree closely, the replicas do not: ln
        // ratios around ln 2 + 0.2, ln 2 - 0.2, ln 2 + 0.1, ln 2 - 0.1.
        let replica = |shift: f64| -> Vec<(f64, f64)> {
            [0.01, -0.01, 0.0]
                .iter()
                .map(|e| (2.0 * (shift + e).exp(), 1.0))
                .collect()
        };
        let replicas: Vec<_> = [0.2, -0.2, 0.1, -0.1].map(replica).to_vec();
        let s = Speedup::from_replicas(&replicas).unwrap();
        assert!((s.speedup - 2.0).abs() < 1e-9, "{s:?}");
        assert_eq!((s.replicas, s.rounds), (4, 12));
        // sd of the means 0.18257, t(3) 3.1824, n 4.
        let sd = (0.1f64 / 3.0).sqrt();
        assert!(
            (s.half_width() - 3.182_446 * sd / 2.0).abs() < 1e-5,
            "{s:?}"
        );
        // The same rounds pooled as one replica: an interval far too narrow.
        let pooled = Speedup::from_rounds(&replicas.concat()).unwrap();
        assert!(pooled.half_width() < s.half_width() / 2.0, "{pooled:?}");
        // One replica with rounds: its rounds' interval.
        let one = Speedup::from_replicas(&replicas[..1]).unwrap();
        assert_eq!(one, Speedup::from_rounds(&replicas[0]).unwrap());
        assert_eq!(Speedup::from_replicas(&[vec![], vec![(1.0, 1.0)]]), None);
    }

    #[test]
    fn the_p_value_of_not_faster_follows_the_interval() {
        let replicas = |centre: f64| -> Vec<Vec<(f64, f64)>> {
            [0.1, -0.1, 0.05, -0.05]
                .iter()
                .map(|e| vec![((centre + e).exp(), 1.0), ((centre + e).exp(), 1.0)])
                .collect()
        };
        let p = |centre| Speedup::from_replicas(&replicas(centre)).unwrap();
        // An interval whose low end is exactly 1 has a one-sided p of 2.5%.
        let half = p(0.0).half_width();
        assert!((p(half).p_not_faster() - 0.025).abs() < 1e-6);
        assert!((p(0.0).p_not_faster() - 0.5).abs() < 1e-9);
        assert!(p(-half).p_not_faster() > 0.97);
        assert!(p(2.0 * half).p_not_faster() < 0.025);
        assert_eq!(Speedup::UNCHANGED.p_not_faster(), 1.0);
    }

    #[test]
    fn a_geometric_mean_of_speedups_pools_their_errors() {
        let one = Speedup::from_rounds(&[(1.1, 1.0), (0.9, 1.0), (1.1, 1.0), (0.9, 1.0)]).unwrap();
        assert!(one.within_noise());
        let both = Speedup::geomean(&[one, Speedup::UNCHANGED]).unwrap();
        // Half the log error of `one` (the exact part adds none), halved again
        // by n = 2, with the normal quantile in place of t(3).
        let se = one.half_width() / t975(3);
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
