//! How the ranks reach a broadcast: the `arrival_pattern` column. Together
//! with the imbalance factor X (`imbalance` column) it says what delays the
//! harness injected and which time was recorded, following Patarasuk & Yuan's
//! benchmark (papers/patarasuk-yuan-bcast-arrival-patterns.md).

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// An arrival pattern. T(m) is the measured point-to-point time of the
/// message; X is the configuration's imbalance factor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(into = "String")]
pub enum Arrival {
    /// Every rank leaves a barrier together; the time recorded is the slowest
    /// rank's (the usual broadcast benchmark). X is 0.
    #[default]
    Barrier,
    /// After the barrier each rank waits uniform [0, X·T(m)]; the time
    /// recorded is the average per-rank time from own arrival to own
    /// completion.
    Uniform,
    /// Each non-root rank is late by X·T(m) with probability
    /// `permille` / 1000; the time recorded as for `Uniform`.
    Late { permille: u16 },
}

impl Arrival {
    /// Late arrivals with probability `fraction` (0 to 1, in steps of 0.001).
    pub fn late(fraction: f64) -> Result<Arrival, String> {
        if !(0.0..=1.0).contains(&fraction) {
            return Err(format!("late fraction {fraction} is not between 0 and 1"));
        }
        Ok(Arrival::Late {
            permille: (fraction * 1000.0).round() as u16,
        })
    }

    /// Probability that a non-root rank is late (0 unless `Late`).
    pub fn late_fraction(self) -> f64 {
        match self {
            Arrival::Late { permille } => f64::from(permille) / 1000.0,
            _ => 0.0,
        }
    }

    /// Whether the recorded time is the per-rank average from own arrival
    /// (otherwise it is the slowest rank's time after a common start).
    pub fn per_rank_time(self) -> bool {
        self != Arrival::Barrier
    }

    /// The delay of `rank` in units of X·T(m), from a uniform draw `u` in
    /// [0, 1) that is the rank's own for this iteration.
    pub fn delay_units(self, rank: u32, root: u32, u: f64) -> f64 {
        match self {
            Arrival::Barrier => 0.0,
            Arrival::Uniform => u,
            Arrival::Late { .. } if rank == root => 0.0,
            Arrival::Late { .. } => f64::from(u8::from(u < self.late_fraction())),
        }
    }
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arrival::Barrier => f.write_str("barrier"),
            Arrival::Uniform => f.write_str("uniform"),
            Arrival::Late { .. } => write!(f, "late:{}", self.late_fraction()),
        }
    }
}

impl From<Arrival> for String {
    fn from(a: Arrival) -> String {
        a.to_string()
    }
}

impl FromStr for Arrival {
    type Err = String;
    fn from_str(s: &str) -> Result<Arrival, String> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "barrier" => Ok(Arrival::Barrier),
            "uniform" => Ok(Arrival::Uniform),
            _ => match t.strip_prefix("late:") {
                Some(f) => f
                    .parse::<f64>()
                    .map_err(|_| format!("{s:?}: the late fraction is not a number"))
                    .and_then(Arrival::late),
                None => Err(format!("unknown arrival pattern {s:?}")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in [
            Arrival::Barrier,
            Arrival::Uniform,
            Arrival::late(0.2).unwrap(),
        ] {
            assert_eq!(a.to_string().parse::<Arrival>(), Ok(a));
        }
        assert_eq!(Arrival::late(0.2).unwrap().to_string(), "late:0.2");
        assert!("late:1.5"
            .parse::<Arrival>()
            .unwrap_err()
            .contains("between"));
        assert!("late:x".parse::<Arrival>().is_err());
        assert!("early".parse::<Arrival>().is_err());
    }

    #[test]
    fn delays_follow_the_pattern() {
        let late = Arrival::late(0.25).unwrap();
        assert_eq!(late.delay_units(3, 0, 0.1), 1.0);
        assert_eq!(late.delay_units(3, 0, 0.3), 0.0);
        assert_eq!(late.delay_units(0, 0, 0.1), 0.0, "the root is never late");
        assert_eq!(Arrival::Uniform.delay_units(0, 0, 0.7), 0.7);
        assert_eq!(Arrival::Barrier.delay_units(2, 0, 0.7), 0.0);
    }
}
