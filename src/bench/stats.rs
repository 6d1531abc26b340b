//! Running statistics of one measurement point and its stopping rule.

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
            let z: f64 = 1.959_964;
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
}
