//! `data arrival`: how each candidate's time grows with the imbalance factor
//! X, one panel per job, message size and arrival pattern — the table and
//! plots of Patarasuk & Yuan's experiments, from `bench --imbalance` data.

use crate::data::{Candidate, Config, Dataset};
use crate::units::format_bytes;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One candidate's times over a panel's imbalance factors (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub candidate: Candidate,
    /// Mean per-rank time from own arrival, per factor (`None`: not measured).
    pub mean_us: Vec<Option<f64>>,
    /// The slowest rank's time, per factor.
    pub worst_us: Vec<Option<f64>>,
}

/// One job, message size and arrival pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The configuration, its imbalance set to 0.
    pub config: Config,
    pub imbalances: Vec<f64>,
    pub series: Vec<Series>,
}

impl Panel {
    pub fn title(&self) -> String {
        let c = &self.config;
        format!(
            "{} ranks ({} node(s) x {}, {}), {}, arrival {}",
            c.procs,
            c.nodes,
            c.ppn,
            c.mapping,
            format_bytes(c.msg_bytes),
            c.arrival
        )
    }

    /// A file-name stem, e.g. `arrival_uniform_8p_1048576`.
    pub fn stem(&self) -> String {
        let c = &self.config;
        let pattern: String = c
            .arrival
            .to_string()
            .chars()
            .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '.')
            .collect();
        format!(
            "arrival_{pattern}_{}p_{}n_{}_{}",
            c.procs, c.nodes, c.mapping, c.msg_bytes
        )
    }

    /// The candidate with the smallest mean time at factor index `i`.
    pub fn best(&self, i: usize) -> Option<&Series> {
        self.series
            .iter()
            .filter(|s| s.mean_us[i].is_some())
            .min_by(|a, b| {
                a.mean_us[i]
                    .unwrap_or(0.0)
                    .total_cmp(&b.mean_us[i].unwrap_or(0.0))
            })
    }
}

/// The panels of every configuration with an arrival pattern.
pub fn panels(d: &Dataset) -> Vec<Panel> {
    let mut by: BTreeMap<Config, Vec<&crate::data::Measurement>> = BTreeMap::new();
    for m in d.measurements() {
        if m.config.arrival.per_rank_time() {
            let key = Config {
                imbalance: 0.0,
                ..m.config
            };
            by.entry(key).or_default().push(m);
        }
    }
    by.into_iter()
        .map(|(config, ms)| {
            let mut imbalances: Vec<f64> = ms.iter().map(|m| m.config.imbalance).collect();
            imbalances.sort_by(f64::total_cmp);
            imbalances.dedup();
            let mut series: BTreeMap<Candidate, Series> = BTreeMap::new();
            for m in ms {
                let s = series.entry(m.candidate).or_insert_with(|| Series {
                    candidate: m.candidate,
                    mean_us: vec![None; imbalances.len()],
                    worst_us: vec![None; imbalances.len()],
                });
                let i = imbalances
                    .iter()
                    .position(|&x| x == m.config.imbalance)
                    .unwrap_or(0);
                s.mean_us[i] = Some(m.time_us);
                s.worst_us[i] = m.time_max_us;
            }
            Panel {
                config,
                imbalances,
                series: series.into_values().collect(),
            }
        })
        .collect()
}

/// Markdown: per panel, candidates × factors, the mean per-rank time with
/// the slowest rank's in parentheses, the fastest per factor in bold.
pub fn markdown(panels: &[Panel]) -> String {
    let mut s = String::new();
    for p in panels {
        let _ = writeln!(s, "### {}\n", p.title());
        let _ = writeln!(
            s,
            "Mean per-rank time from own arrival to own completion, µs (slowest rank in \
             parentheses); fastest per imbalance factor X in bold.\n"
        );
        let xs: Vec<String> = p.imbalances.iter().map(|x| format!("X={x}")).collect();
        let _ = writeln!(s, "| candidate | {} |", xs.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(xs.len()));
        for series in &p.series {
            let cells: Vec<String> = (0..p.imbalances.len())
                .map(|i| {
                    let Some(t) = series.mean_us[i] else {
                        return "–".into();
                    };
                    let worst = series.worst_us[i].map_or(String::new(), |w| format!(" ({w:.0})"));
                    let best = p.best(i).is_some_and(|b| b.candidate == series.candidate);
                    if best {
                        format!("**{t:.0}**{worst}")
                    } else {
                        format!("{t:.0}{worst}")
                    }
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", series.candidate, cells.join(" | "));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Arrival, Provenance};

    #[test]
    fn panels_gather_factors_and_mark_the_fastest() {
        let at = |a: Algorithm, x: f64, arrival: Arrival, t: f64| {
            let mut m = row(8, 1 << 20, a, t);
            m.config.imbalance = x;
            m.config.arrival = arrival;
            m.time_max_us = Some(2.0 * t);
            m
        };
        let late = Arrival::late(0.2).unwrap();
        let d = Dataset::from_rows(
            vec![
                at(Algorithm::Linear, 0.0, Arrival::Uniform, 10.0),
                at(Algorithm::Linear, 4.0, Arrival::Uniform, 30.0),
                at(Algorithm::Arrival, 0.0, Arrival::Uniform, 12.0),
                at(Algorithm::Arrival, 4.0, Arrival::Uniform, 20.0),
                at(Algorithm::Linear, 4.0, late, 25.0),
                // Barrier rows have no panel.
                row(8, 1 << 20, Algorithm::Linear, 5.0),
            ],
            Provenance::default(),
        );
        let ps = panels(&d);
        assert_eq!(ps.len(), 2);
        let uniform = &ps[0];
        assert_eq!(uniform.config.arrival, Arrival::Uniform);
        assert_eq!(uniform.imbalances, [0.0, 4.0]);
        assert_eq!(
            uniform.best(0).unwrap().candidate.algorithm,
            Algorithm::Linear
        );
        assert_eq!(
            uniform.best(1).unwrap().candidate.algorithm,
            Algorithm::Arrival
        );
        assert_eq!(ps[1].series[0].mean_us, [Some(25.0)]);
        let md = markdown(&ps);
        assert!(md.contains("| linear | **10** (20) | 30 (60) |"), "{md}");
        assert!(md.contains("| arrival | 12 (24) | **20** (40) |"), "{md}");
        assert!(md.contains("arrival late:0.2"), "{md}");
        assert_eq!(uniform.stem(), "arrival_uniform_8p_1n_core_1048576");
        assert_eq!(ps[1].stem(), "arrival_late0.2_8p_1n_core_1048576");
    }
}
