//! What the training data measured, where it measured it. At a
//! configuration the data hold, with `default` and other candidates timed,
//! the measurement is better evidence than any model fitted across
//! configurations (the models smooth over neighbours, and their margins
//! are set by how well they predict sizes they never saw): `auto` there
//! picks the measured best, unless it beat `default` by no more than the
//! margin cross-validation chose (then `default` stays). A rerun of the
//! same job sizes — the same machine weeks later, or a user's production
//! jobs at the benchmarked sizes — is decided by what was measured.

use crate::data::{Arrival, Candidate, Config, Dataset, Mapping};
use crate::select::{prefer_default, Rank, Ranked};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Per measured configuration, the time of each candidate measured there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    times: HashMap<Config, Vec<(Candidate, f64)>>,
}

impl Measured {
    /// The configurations of `d` with `default` and another of `candidates`
    /// measured.
    pub fn of(d: &Dataset, candidates: &[Candidate]) -> Measured {
        let times = d
            .by_config()
            .filter_map(|group| {
                let offered: Vec<(Candidate, f64)> = group
                    .iter()
                    .filter(|m| candidates.binary_search(&m.candidate).is_ok())
                    .map(|m| (m.candidate, m.time_us))
                    .collect();
                let with_default = offered.iter().any(|(c, _)| c.is_default());
                (with_default && offered.len() >= 2).then(|| (group[0].config, offered))
            })
            .collect();
        Measured { times }
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// At a measured `config`, the candidates of `ranked` measured there
    /// take their measured times and go first, fastest first, then the
    /// others in their order; `default` is moved to the front unless the
    /// fastest beat it by more than `margin`. Elsewhere `ranked` is left
    /// alone.
    pub fn decide(&self, config: &Config, ranked: &mut [Ranked], margin: f64) {
        let Some(times) = self.times.get(config) else {
            return;
        };
        let measured = |c: &Candidate| times.iter().find(|(t, _)| t == c).map(|&(_, t)| t);
        let default_measured = ranked
            .iter()
            .any(|r| r.candidate.is_default() && measured(&r.candidate).is_some());
        if !default_measured {
            return; // not allowed here: nothing to compare with
        }
        for r in ranked.iter_mut() {
            if let Some(t) = measured(&r.candidate) {
                r.predicted_us = t;
            }
        }
        // Stable: the unmeasured keep their order behind the measured.
        ranked.sort_by(|a, b| {
            let key = |r: &Ranked| measured(&r.candidate).map_or(f64::INFINITY, |_| r.predicted_us);
            key(a).total_cmp(&key(b))
        });
        prefer_default(ranked, margin);
    }

    /// The table as stored, in configuration order (so that a retraining
    /// writes the same file): candidates by their index in `candidates`.
    pub fn to_file(&self, candidates: &[Candidate]) -> Vec<Entry> {
        let mut configs: Vec<(&Config, &Vec<(Candidate, f64)>)> = self.times.iter().collect();
        configs.sort_by_key(|(c, _)| **c);
        configs
            .into_iter()
            .map(|(c, times)| Entry {
                procs: c.procs,
                nodes: c.nodes,
                ppn: c.ppn,
                mapping: c.mapping,
                msg_bytes: c.msg_bytes,
                imbalance: c.imbalance,
                arrival: c.arrival.to_string(),
                times: times
                    .iter()
                    .filter_map(|(k, t)| Some((candidates.binary_search(k).ok()?, *t)))
                    .collect(),
            })
            .collect()
    }

    /// The table read back, checked: every index among `candidates`, every
    /// time finite and positive, every configuration valid. The error says
    /// which entry is wrong.
    pub fn from_file(entries: &[Entry], candidates: &[Candidate]) -> Result<Measured, String> {
        let mut times = HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let bad = |what: &str| format!("entry {}: {what}", i + 1);
            let measured = e
                .times
                .iter()
                .map(|&(k, t)| {
                    let c = *candidates
                        .get(k)
                        .ok_or_else(|| bad("candidate index out of range"))?;
                    if t.is_finite() && t > 0.0 {
                        Ok((c, t))
                    } else {
                        Err(bad("time not finite and positive"))
                    }
                })
                .collect::<Result<Vec<_>, String>>()?;
            if !(e.imbalance.is_finite() && e.imbalance >= 0.0) {
                return Err(bad("imbalance not finite and non-negative"));
            }
            if e.procs == 0 || e.nodes == 0 || e.ppn == 0 {
                return Err(bad("procs, nodes and ppn must be positive"));
            }
            let arrival: Arrival = e.arrival.parse().map_err(|why: String| bad(&why))?;
            let config = Config {
                procs: e.procs,
                nodes: e.nodes,
                ppn: e.ppn,
                mapping: e.mapping,
                msg_bytes: e.msg_bytes,
                imbalance: e.imbalance,
                arrival,
            };
            times.insert(config, measured);
        }
        Ok(Measured { times })
    }
}

/// A selector whose picks at measured configurations follow the
/// measurement (`auto` in `predict` and `evaluate`).
pub struct Decided<'a> {
    pub selector: &'a dyn Rank,
    pub measured: &'a Measured,
    /// The margin of the selector used inside the trained range.
    pub margin: f64,
}

impl Rank for Decided<'_> {
    fn distance(&self, config: &Config) -> f64 {
        self.selector.distance(config)
    }

    fn rank(&self, config: &Config, allowed: Option<&[bool]>) -> Vec<Ranked> {
        let mut ranked = self.selector.rank(config, allowed);
        self.measured.decide(config, &mut ranked, self.margin);
        ranked
    }
}

/// One measured configuration as `measured.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub procs: u32,
    pub nodes: u32,
    pub ppn: u32,
    pub mapping: Mapping,
    pub msg_bytes: u64,
    pub imbalance: f64,
    pub arrival: String,
    /// (index in the model's candidate list, time in µs) of each
    /// candidate measured there.
    pub times: Vec<(usize, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Provenance};

    fn ranked(candidates: &[Candidate]) -> Vec<Ranked> {
        candidates
            .iter()
            .enumerate()
            .map(|(index, &candidate)| Ranked {
                index,
                candidate,
                predicted_us: index as f64 + 1.0,
            })
            .collect()
    }

    #[test]
    fn measured_configurations_follow_their_measurement() {
        let rows = vec![
            row(8, 64, Algorithm::Default, 10.0),
            row(8, 64, Algorithm::Linear, 5.0),
            row(8, 64, Algorithm::Binomial, 6.0),
            row(8, 1024, Algorithm::Default, 10.0),
            row(8, 1024, Algorithm::Linear, 9.5),
            row(16, 64, Algorithm::Linear, 1.0),
        ];
        let d = Dataset::from_rows(rows, Provenance::default());
        let candidates: Vec<Candidate> = d.candidates().into_iter().collect();
        let measured = Measured::of(&d, &candidates);
        assert_eq!(measured.len(), 2, "16 procs has no default row");
        let at = |procs, msg, margin| {
            let config = row(procs, msg, Algorithm::Default, 1.0).config;
            // The model's own order: binomial, default, linear.
            let order = [Algorithm::Binomial, Algorithm::Default, Algorithm::Linear]
                .map(|a| *candidates.iter().find(|c| c.algorithm == a).unwrap());
            let mut r = ranked(&order);
            measured.decide(&config, &mut r, margin);
            r[0].candidate.algorithm
        };
        assert_eq!(candidates[0].algorithm, Algorithm::Default);
        assert_eq!(
            at(8, 64, 0.1),
            Algorithm::Linear,
            "2x faster: measured best"
        );
        assert_eq!(at(8, 1024, 0.1), Algorithm::Default, "5% is within 10%");
        assert_eq!(at(8, 1024, 0.0), Algorithm::Linear);
        assert_eq!(
            at(16, 64, 0.1),
            Algorithm::Binomial,
            "not measured: the model's"
        );

        let back = Measured::from_file(&measured.to_file(&candidates), &candidates).unwrap();
        assert_eq!(back, measured);
        let mut entries = measured.to_file(&candidates);
        entries[0].times[0].0 = 9;
        assert!(Measured::from_file(&entries, &candidates).is_err());
        let mut entries = measured.to_file(&candidates);
        entries[1].times[1].1 = f64::NAN;
        let err = Measured::from_file(&entries, &candidates).unwrap_err();
        assert!(err.starts_with("entry 2:"), "{err}");
    }
}
