//! What the training data measured, where it measured it. At a
//! configuration the data hold, with `default` and other candidates timed,
//! the measurement is better evidence than any model fitted across
//! configurations (the models smooth over neighbours, and their margins
//! are set by how well they predict sizes they never saw): `auto` there
//! picks the measured best, unless it beat `default` by no more than the
//! margin cross-validation chose (then `default` stays). A rerun of the
//! same job sizes — the same machine weeks later, or a user's production
//! jobs at the benchmarked sizes — is decided by what was measured.
//!
//! Where the rows say how much their runs varied (`ci95_us`, or
//! `time_min_us`/`time_max_us`), the measured best must also beat
//! `default` by more than that noise: a difference the runs themselves do
//! not resolve is as likely to reverse in the next campaign.
//!
//! Between measured jobs a model decides, but not against the nearest
//! job's measurement: where that job timed `default` at least as fast as
//! the model's pick, `default` stays. The model's margin is what
//! cross-validation showed it can be trusted with on average; the nearest
//! job is the evidence about this size in particular.

use crate::data::{Arrival, Candidate, Config, Dataset, Mapping};
use crate::select::{prefer_default, Ranked};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A candidate's measured time (µs) at a configuration and its noise (a
/// standard deviation of ln time; 0 where the data gave none).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Timed {
    candidate: Candidate,
    time_us: f64,
    noise_ln: f64,
}

/// Per measured configuration, the time of each candidate measured there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    times: HashMap<Config, Vec<Timed>>,
    /// The measured jobs of each configuration but its job size (see
    /// [`Measured::nearest`]).
    jobs: HashMap<Key, Vec<Config>>,
}

/// What must match for one job's measurement to stand in for another's:
/// mapping, message size, imbalance (bits) and arrival.
pub type Key = (Mapping, u64, u64, Arrival);

/// The key of `c`.
pub fn key(c: &Config) -> Key {
    (c.mapping, c.msg_bytes, c.imbalance.to_bits(), c.arrival)
}

/// How far the job (procs, nodes) lies from `c`'s, in the order a job is
/// nearer: procs in log scale, then nodes in log scale, then the smaller.
pub fn job_distance(procs: u32, nodes: u32, c: &Config) -> (f64, f64, u32) {
    let far = |a: u32, b: u32| (f64::from(a.max(1)) / f64::from(b.max(1))).ln().abs();
    (far(procs, c.procs), far(nodes, c.nodes), procs)
}

impl Measured {
    fn with(times: HashMap<Config, Vec<Timed>>) -> Measured {
        let mut jobs: HashMap<Key, Vec<Config>> = HashMap::new();
        for c in times.keys() {
            jobs.entry(key(c)).or_default().push(*c);
        }
        // In one order, whatever the map's: a measurement and its file
        // compare equal.
        jobs.values_mut().for_each(|v| v.sort());
        Measured { times, jobs }
    }

    /// The times measured at the job nearest `config` (see
    /// [`job_distance`]) among the measured configurations that differ
    /// from it in job size only: the naive choice's evidence, and a price
    /// for `default` where a model has none.
    pub fn nearest(&self, config: &Config) -> Option<impl Iterator<Item = (Candidate, f64)> + '_> {
        let near = self.jobs.get(&key(config))?.iter().min_by(|a, b| {
            job_distance(a.procs, a.nodes, config)
                .partial_cmp(&job_distance(b.procs, b.nodes, config))
                .unwrap_or(std::cmp::Ordering::Equal)
        })?;
        Some(self.times[near].iter().map(|t| (t.candidate, t.time_us)))
    }

    /// `candidate`'s time at the job nearest `config` (see
    /// [`Measured::nearest`]), if it was measured there.
    pub fn nearest_time(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        self.nearest(config)?
            .find(|(c, _)| c == candidate)
            .map(|(_, t)| t)
    }

    /// `default`'s time over `candidate`'s at the job nearest `config`
    /// (see [`Measured::nearest`]), where both were measured there.
    fn nearest_ratio(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        let (mut default, mut pick) = (None, None);
        for (c, t) in self.nearest(config)? {
            if c.is_default() {
                default = Some(t);
            }
            if c == *candidate {
                pick = Some(t);
            }
        }
        Some(default? / pick?)
    }

    /// The configurations of `d` with `default` and another of `candidates`
    /// measured.
    pub fn of(d: &Dataset, candidates: &[Candidate]) -> Measured {
        let times = d
            .by_config()
            .filter_map(|group| {
                let offered: Vec<Timed> = group
                    .iter()
                    .filter(|m| candidates.binary_search(&m.candidate).is_ok())
                    .map(|m| Timed {
                        candidate: m.candidate,
                        time_us: m.time_us,
                        noise_ln: m.noise_ln().unwrap_or(0.0),
                    })
                    .collect();
                let with_default = offered.iter().any(|t| t.candidate.is_default());
                (with_default && offered.len() >= 2).then(|| (group[0].config, offered))
            })
            .collect();
        Measured::with(times)
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
    /// fastest beat it by more than `margin` and by more than the two
    /// measurements' noise. Elsewhere the model's order stands unless the
    /// nearest measured job timed `default` at least as fast as the
    /// model's pick (see [`Measured::nearest_contradicts`]): then
    /// `default` goes first.
    pub fn decide(&self, config: &Config, ranked: &mut [Ranked], margin: f64) {
        let Some(times) = self.times.get(config) else {
            if self.nearest_contradicts(config, ranked) {
                prefer_default(ranked, 1.0);
            }
            return;
        };
        let timed = |c: &Candidate| times.iter().find(|t| t.candidate == *c);
        let measured = |c: &Candidate| timed(c).map(|t| t.time_us);
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
        // ln(t_default / t_best) must exceed the noise of that difference.
        let noise = |t: Option<&Timed>| t.map_or(0.0, |t| t.noise_ln);
        let default = times.iter().find(|t| t.candidate.is_default());
        let pair = noise(timed(&ranked[0].candidate)).hypot(noise(default));
        prefer_default(ranked, margin.max(1.0 - (-pair).exp()));
    }

    /// Whether the job nearest `config` timed `default` at least as fast
    /// as the model's pick (the first of `ranked`, if not `default`); see
    /// the module's note. (Weighing the two instead, the predicted and the
    /// measured advantage by their geometric mean, almost never overruled
    /// a model: its losses come with large predicted gains.)
    fn nearest_contradicts(&self, config: &Config, ranked: &[Ranked]) -> bool {
        ranked
            .first()
            .filter(|r| !r.candidate.is_default())
            .and_then(|r| self.nearest_ratio(config, &r.candidate))
            .is_some_and(|ratio| ratio <= 1.0)
    }

    /// `candidate`'s time measured at `config`, if it was.
    pub fn time(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        let times = self.times.get(config)?;
        let timed = times.iter().find(|t| t.candidate == *candidate)?;
        Some(timed.time_us)
    }

    /// The fastest time measured at each message size, over every
    /// candidate and configuration (see [`Floor`]).
    pub fn floor(&self) -> Floor {
        let mut fastest: Vec<(u64, f64)> = Vec::new();
        for (config, times) in &self.times {
            let least = times
                .iter()
                .map(|t| t.time_us)
                .fold(f64::INFINITY, f64::min);
            match fastest.iter_mut().find(|(m, _)| *m == config.msg_bytes) {
                Some((_, t)) => *t = t.min(least),
                None => fastest.push((config.msg_bytes, least)),
            }
        }
        fastest.sort_by_key(|(m, _)| *m);
        Floor { fastest }
    }

    /// The table as stored, in configuration order (so that a retraining
    /// writes the same file): candidates by their index in `candidates`.
    pub fn to_file(&self, candidates: &[Candidate]) -> Vec<Entry> {
        let mut configs: Vec<(&Config, &Vec<Timed>)> = self.times.iter().collect();
        configs.sort_by_key(|(c, _)| **c);
        configs
            .into_iter()
            .map(|(c, times)| {
                let kept: Vec<(usize, &Timed)> = times
                    .iter()
                    .filter_map(|t| Some((candidates.binary_search(&t.candidate).ok()?, t)))
                    .collect();
                let noisy = kept.iter().any(|(_, t)| t.noise_ln > 0.0);
                Entry {
                    procs: c.procs,
                    nodes: c.nodes,
                    ppn: c.ppn,
                    mapping: c.mapping,
                    msg_bytes: c.msg_bytes,
                    imbalance: c.imbalance,
                    arrival: c.arrival.to_string(),
                    times: kept.iter().map(|(k, t)| (*k, t.time_us)).collect(),
                    noise_ln: if noisy {
                        kept.iter().map(|(_, t)| t.noise_ln).collect()
                    } else {
                        Vec::new()
                    },
                }
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
            if !e.noise_ln.is_empty() && e.noise_ln.len() != e.times.len() {
                return Err(bad("noise_ln does not have one value per time"));
            }
            let measured = e
                .times
                .iter()
                .enumerate()
                .map(|(j, &(k, t))| {
                    let candidate = *candidates
                        .get(k)
                        .ok_or_else(|| bad("candidate index out of range"))?;
                    let noise_ln = e.noise_ln.get(j).copied().unwrap_or(0.0);
                    if !(t.is_finite() && t > 0.0) {
                        return Err(bad("time not finite and positive"));
                    }
                    if !(noise_ln.is_finite() && noise_ln >= 0.0) {
                        return Err(bad("noise not finite and non-negative"));
                    }
                    Ok(Timed {
                        candidate,
                        time_us: t,
                        noise_ln,
                    })
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
        Ok(Measured::with(times))
    }
}

/// The least time a prediction may show at a message size: the fastest
/// measured there, by any candidate on any job of the training data. A
/// model extrapolated far enough (a spline's slope carried to 10^5 ranks, a
/// linear fit's) can predict a time of zero or overflow; a collective on
/// any job takes at least what the fastest measured one took at that size
/// (more ranks only add to it), so a prediction below that is the model's
/// failure, not a forecast.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Floor {
    /// (message size, fastest time in µs), by message size.
    fastest: Vec<(u64, f64)>,
}

impl Floor {
    /// The floor at `msg_bytes`: the fastest time measured at that size,
    /// else at the nearest measured size below it (times grow with the
    /// message), else at the smallest measured size; `None` where nothing
    /// was measured.
    pub fn at(&self, msg_bytes: u64) -> Option<f64> {
        let below = self.fastest.partition_point(|(m, _)| *m <= msg_bytes);
        self.fastest.get(below.saturating_sub(1)).map(|(_, t)| *t)
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
    /// The noise of each time (standard deviation of ln time), in the
    /// order of `times`; absent where the data gave none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noise_ln: Vec<f64>,
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
            row(8, 1024, Algorithm::Binomial, 12.0),
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
            "not measured: the model's, which 8 procs measured faster than default"
        );
        assert_eq!(
            at(16, 1024, 0.0),
            Algorithm::Default,
            "not measured, and 8 procs measured default faster than the model's pick"
        );
        assert_eq!(
            at(16, 4096, 0.0),
            Algorithm::Binomial,
            "no job measured 4 KiB: the model's"
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

    /// The nearest job is the nearest in procs (log scale), the smaller on
    /// a tie; only jobs of the same mapping, size and arrival count.
    #[test]
    fn the_nearest_job_stands_in() {
        let mut rows = Vec::new();
        for (procs, t) in [(2, 1.0), (8, 4.0), (32, 16.0)] {
            rows.push(row(procs, 64, Algorithm::Default, t));
            rows.push(row(procs, 64, Algorithm::Linear, t / 2.0));
        }
        rows.push(row(4, 1024, Algorithm::Default, 100.0));
        rows.push(row(4, 1024, Algorithm::Linear, 50.0));
        let d = Dataset::from_rows(rows, Provenance::default());
        let candidates: Vec<Candidate> = d.candidates().into_iter().collect();
        let measured = Measured::of(&d, &candidates);
        let default = |procs, msg| {
            let config = row(procs, msg, Algorithm::Default, 1.0).config;
            measured.nearest_time(&config, &Candidate::DEFAULT)
        };
        assert_eq!(default(8, 64), Some(4.0), "measured there");
        assert_eq!(default(12, 64), Some(4.0), "12/8 is nearer than 32/12");
        assert_eq!(default(4, 64), Some(1.0), "4 is as far from 2 as from 8");
        assert_eq!(default(1000, 64), Some(16.0), "beyond: the largest");
        assert_eq!(default(8, 1024), Some(100.0), "only 4 measured 1 KiB");
        assert_eq!(default(8, 512), None, "no job measured 512 B");
        let back = Measured::from_file(&measured.to_file(&candidates), &candidates).unwrap();
        assert_eq!(back, measured, "the index is rebuilt from the file");
    }

    /// The floor at a size is the fastest time measured there on any job;
    /// between measured sizes, the one below's; outside, the nearest end's.
    #[test]
    fn the_floor_is_the_fastest_time_measured_at_or_below_a_size() {
        let rows = vec![
            row(8, 64, Algorithm::Default, 10.0),
            row(8, 64, Algorithm::Linear, 5.0),
            row(4, 64, Algorithm::Default, 7.0),
            row(4, 64, Algorithm::Linear, 8.0),
            row(8, 1024, Algorithm::Default, 30.0),
            row(8, 1024, Algorithm::Linear, 20.0),
        ];
        let d = Dataset::from_rows(rows, Provenance::default());
        let candidates: Vec<Candidate> = d.candidates().into_iter().collect();
        let floor = Measured::of(&d, &candidates).floor();
        assert_eq!(floor.at(64), Some(5.0));
        assert_eq!(floor.at(1024), Some(20.0));
        assert_eq!(floor.at(512), Some(5.0));
        assert_eq!(floor.at(1 << 30), Some(20.0));
        assert_eq!(floor.at(1), Some(5.0));
        assert_eq!(Floor::default().at(64), None);
    }

    /// A measured advantage inside the runs' own spread keeps `default`;
    /// the same advantage from tight runs does not. The noise survives the
    /// model file.
    #[test]
    fn noisy_advantages_keep_default() {
        let timed = |algorithm, t: f64, spread: f64| {
            let mut m = row(8, 64, algorithm, t);
            m.time_min_us = Some(t / spread);
            m.time_max_us = Some(t * spread);
            m
        };
        let pick = |spread: f64| {
            let d = Dataset::from_rows(
                vec![
                    timed(Algorithm::Default, 10.0, spread),
                    timed(Algorithm::Linear, 8.0, spread),
                ],
                Provenance::default(),
            );
            let candidates: Vec<Candidate> = d.candidates().into_iter().collect();
            let measured = Measured::of(&d, &candidates);
            let back = Measured::from_file(&measured.to_file(&candidates), &candidates).unwrap();
            assert_eq!(back, measured);
            let mut r = ranked(&candidates);
            measured.decide(&d.measurements()[0].config, &mut r, 0.0);
            r[0].candidate.algorithm
        };
        // 20% faster (ln 0.22); runs spanning x1.1 either way: noise
        // ln(1.21)/4 = 0.048 each, 0.067 for the pair.
        assert_eq!(pick(1.1), Algorithm::Linear);
        // Runs spanning x2 either way: ln(4)/4 = 0.35 each, 0.49 the pair.
        assert_eq!(pick(2.0), Algorithm::Default);
    }
}
