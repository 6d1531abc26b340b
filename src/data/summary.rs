//! What a dataset holds and how much a selector could gain on it.

use crate::data::metrics::Tally;
use crate::data::{Arrival, Collective, Dataset, Measurement, System};
use crate::units::format_bytes;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt::Write;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub rows: usize,
    pub duplicate_rows: usize,
    pub measurements: usize,
    pub configurations: usize,
    pub candidates: Vec<String>,
    pub procs: Vec<u32>,
    pub nodes: Vec<u32>,
    pub mappings: Vec<String>,
    pub msg_bytes: Vec<u64>,
    /// Arrival patterns with their imbalance factors, e.g. "uniform X=0-16".
    #[serde(default)]
    pub arrivals: Vec<String>,
    pub machines: Vec<String>,
    pub mpis: Vec<String>,
    /// The collective measured.
    #[serde(default)]
    pub collective: Collective,
    pub headroom: Headroom,
}

/// How often, and by how much, the library's default loses to the best
/// measured candidate: the gain a perfect selector would capture.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Headroom {
    /// Configurations with a `default` row and at least one other candidate.
    pub comparable_configs: usize,
    /// Share of those where some other candidate is strictly faster.
    pub default_not_best_rate: f64,
    /// Share where the best is faster than default by more than
    /// [`crate::data::metrics::NEAR`].
    pub default_beaten_5pct_rate: f64,
    /// Geometric mean of t_default / t_best.
    pub geomean_default_over_best: f64,
}

impl Summary {
    /// The machine and MPI library measured (one: `train` never blends them).
    pub fn system(&self) -> System {
        let first = |v: &[String]| v.first().cloned().unwrap_or_default();
        System {
            machine: first(&self.machines),
            mpi: first(&self.mpis),
            collective: self.collective,
        }
    }

    pub fn of(d: &Dataset) -> Summary {
        let ms = d.measurements();
        let set = |f: &dyn Fn(&Measurement) -> u64| -> BTreeSet<u64> { ms.iter().map(f).collect() };
        let u32s = |s: BTreeSet<u64>| s.into_iter().map(|v| v as u32).collect();
        Summary {
            rows: d.rows,
            duplicate_rows: d.duplicate_rows(),
            measurements: ms.len(),
            configurations: d.configs().count(),
            candidates: d.candidates().iter().map(|c| c.to_string()).collect(),
            procs: u32s(set(&|m| m.config.procs.into())),
            nodes: u32s(set(&|m| m.config.nodes.into())),
            mappings: ms
                .iter()
                .map(|m| m.config.mapping)
                .collect::<BTreeSet<_>>()
                .iter()
                .map(|m| m.to_string())
                .collect(),
            msg_bytes: set(&|m| m.config.msg_bytes).into_iter().collect(),
            arrivals: arrivals(d),
            machines: d.provenance.machines.iter().cloned().collect(),
            mpis: d.provenance.mpis.iter().cloned().collect(),
            collective: d.provenance.collective(),
            headroom: headroom(d),
        }
    }

    pub fn to_text(&self, title: &str) -> String {
        let mut s = String::new();
        let range = |v: &[u64], f: &dyn Fn(u64) -> String| match (v.first(), v.last()) {
            (Some(a), Some(b)) if a != b => format!("{} – {} ({} values)", f(*a), f(*b), v.len()),
            (Some(a), _) => f(*a),
            _ => "none".into(),
        };
        let procs: Vec<u64> = self.procs.iter().map(|&p| p.into()).collect();
        let nodes: Vec<u64> = self.nodes.iter().map(|&p| p.into()).collect();
        let h = &self.headroom;
        let _ = writeln!(s, "{title}");
        let _ = writeln!(
            s,
            "  rows             {} ({} duplicate rows combined by median)",
            self.rows, self.duplicate_rows
        );
        let _ = writeln!(s, "  configurations   {}", self.configurations);
        let _ = writeln!(
            s,
            "  candidates       {}: {}",
            self.candidates.len(),
            self.candidates.join(", ")
        );
        let _ = writeln!(
            s,
            "  procs            {}",
            range(&procs, &|v| v.to_string())
        );
        let _ = writeln!(
            s,
            "  nodes            {}",
            range(&nodes, &|v| v.to_string())
        );
        let _ = writeln!(s, "  mappings         {}", self.mappings.join(", "));
        let _ = writeln!(
            s,
            "  message sizes    {}",
            range(&self.msg_bytes, &format_bytes)
        );
        let _ = writeln!(s, "  arrivals         {}", self.arrivals.join(", "));
        if !self.machines.is_empty() || !self.mpis.is_empty() {
            let _ = writeln!(
                s,
                "  measured on      {} ({})",
                self.machines.join(", "),
                self.mpis.join(", ")
            );
        }
        // Broadcast's summaries predate other collectives.
        if self.collective != Collective::LEGACY {
            let _ = writeln!(s, "  collective       {}", self.collective.function());
        }
        if h.comparable_configs == 0 {
            let _ = writeln!(
                s,
                "  headroom         n/a: no configuration has both a 'default' row and another candidate"
            );
        } else {
            let _ = writeln!(
                s,
                "  headroom         default is not the best candidate in {:.1}% of {} configurations \
                 ({:.1}% by more than 5%)",
                100.0 * h.default_not_best_rate,
                h.comparable_configs,
                100.0 * h.default_beaten_5pct_rate
            );
            let _ = writeln!(
                s,
                "                   geometric mean of t_default / t_best = {:.3}",
                h.geomean_default_over_best
            );
        }
        s
    }
}

/// Each arrival pattern with the range of its imbalance factors.
fn arrivals(d: &Dataset) -> Vec<String> {
    let mut xs: std::collections::BTreeMap<Arrival, (f64, f64)> = Default::default();
    for c in d.configs() {
        let e = xs.entry(c.arrival).or_insert((c.imbalance, c.imbalance));
        *e = (e.0.min(c.imbalance), e.1.max(c.imbalance));
    }
    xs.into_iter()
        .map(|(a, (lo, hi))| match a {
            Arrival::Barrier => a.to_string(),
            _ if lo == hi => format!("{a} X={lo}"),
            _ => format!("{a} X={lo}-{hi}"),
        })
        .collect()
}

fn headroom(d: &Dataset) -> Headroom {
    // `default`'s own slowdown against the best measured candidate.
    let mut tally = Tally::default();
    for group in d.by_config() {
        let Some(default) = group.iter().find(|m| m.candidate.is_default()) else {
            continue;
        };
        if group.len() < 2 {
            continue;
        }
        let best = group
            .iter()
            .map(|m| m.time_us)
            .fold(f64::INFINITY, f64::min);
        tally.add(default.time_us / best, None);
    }
    let n = tally.n;
    let or = |v: f64, empty: f64| if n == 0 { empty } else { v };
    Headroom {
        comparable_configs: n,
        default_not_best_rate: or(1.0 - tally.best_rate(), 0.0),
        default_beaten_5pct_rate: or(1.0 - tally.near_rate(), 0.0),
        geomean_default_over_best: or(tally.geomean_slowdown(), 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Provenance};

    #[test]
    fn headroom_counts_only_comparable_configs() {
        let rows = vec![
            // default best: ratio 1
            row(2, 1, Algorithm::Default, 1.0),
            row(2, 1, Algorithm::Linear, 2.0),
            // default 4x slower than binomial
            row(2, 2, Algorithm::Default, 4.0),
            row(2, 2, Algorithm::Binomial, 1.0),
            row(2, 2, Algorithm::Linear, 3.0),
            // no default row: not comparable
            row(2, 4, Algorithm::Linear, 1.0),
            // default alone: not comparable
            row(2, 8, Algorithm::Default, 1.0),
        ];
        let h = headroom(&Dataset::from_rows(rows, Provenance::default()));
        assert_eq!(h.comparable_configs, 2);
        assert_eq!(h.default_not_best_rate, 0.5);
        assert_eq!(h.default_beaten_5pct_rate, 0.5);
        assert!((h.geomean_default_over_best - 2.0).abs() < 1e-12);
    }
}
