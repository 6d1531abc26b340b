//! Selection: predict every candidate's time for a configuration and rank
//! them; the fastest predicted is the choice — unless the evidence for
//! leaving the library's choice is too weak ([`Policy`]).

pub mod decision;
pub mod measured;
pub mod validation;

use measured::{Floor, Measured};

use crate::analytical::Fitted;
use crate::data::{Candidate, Config, Dataset, Mapping};
use crate::learn::features;
use crate::learn::hybrid::{self, Terms};
use crate::learn::target::Target;
use crate::learn::{LearnerKind, Model};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A candidate with its predicted time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranked {
    pub index: usize,
    pub candidate: Candidate,
    /// NaN for `default` where the predictor cannot price it (it is then
    /// kept: nothing shows another candidate is faster).
    pub predicted_us: f64,
}

/// A way of choosing: the analytical model alone, a learner, or the
/// nearest measured job's times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SelectorKind {
    Analytical,
    Learner(LearnerKind),
    /// Each candidate's time measured at the nearest trained job with the
    /// same mapping, size and arrival: the naive choice, under a policy.
    Nearest,
}

impl SelectorKind {
    /// The analytical selector, each of `learners`, then the nearest job.
    pub fn all(learners: &[LearnerKind]) -> Vec<SelectorKind> {
        std::iter::once(SelectorKind::Analytical)
            .chain(learners.iter().map(|&k| SelectorKind::Learner(k)))
            .chain(std::iter::once(SelectorKind::Nearest))
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            SelectorKind::Analytical => "analytical",
            SelectorKind::Learner(k) => k.name(),
            SelectorKind::Nearest => "nearest",
        }
    }
}

impl fmt::Display for SelectorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SelectorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("analytical") {
            return Ok(SelectorKind::Analytical);
        }
        if s.trim().eq_ignore_ascii_case("nearest") {
            return Ok(SelectorKind::Nearest);
        }
        s.parse()
            .map(SelectorKind::Learner)
            .map_err(|e| format!("{e}, analytical or nearest"))
    }
}

impl Serialize for SelectorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SelectorKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// What `auto` uses: one selector between the measured sizes, maybe
/// another beyond them (where cross-validation saw it extrapolate best).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Auto {
    pub inside: SelectorKind,
    pub outside: SelectorKind,
    /// What chose `inside`.
    #[serde(default)]
    pub evidence: Evidence,
}

/// What cross-validation's choice between selectors rests on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// Held-out job sizes inside the trained range, two or more.
    Jobs,
    /// The message sizes of the one job size held out inside the range.
    MessageSizes,
    /// Nothing held out inside the range: the first selector.
    #[default]
    None,
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Evidence::Jobs => "held-out job sizes",
            Evidence::MessageSizes => {
                "thin evidence (one job size held out inside the trained range): auto \
                 takes the nearest job's measurements, with margins chosen on the held-out \
                 message sizes"
            }
            Evidence::None => "no held-out job size inside the trained range",
        })
    }
}

impl fmt::Display for Auto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inside == self.outside {
            write!(f, "{}", self.inside)
        } else {
            write!(
                f,
                "{} + {} beyond the trained sizes",
                self.inside, self.outside
            )
        }
    }
}

/// How decisions are made: one selector between the trained sizes, maybe
/// another beyond them; `auto` also decides the configurations the
/// training data measured by their measurement ([`Measured::decide`]).
/// `predict`, `tune` and `evaluate` all decide through this.
pub struct Decider<'a> {
    pub inside: Selector<'a>,
    pub outside: Selector<'a>,
    pub measured: Option<&'a Measured>,
    /// The least time a prediction may show, per message size.
    pub floor: Floor,
}

impl Decider<'_> {
    /// How far `config` lies outside the trained range, in doublings.
    pub fn distance(&self, config: &Config) -> f64 {
        self.inside.range.distance(config)
    }

    /// The candidates (those `allowed`, if given) in the order decided:
    /// the choice first.
    /// Whether `choice`'s time at `config` is the floor it was raised to,
    /// not a prediction (a time measured there that equals the floor is a
    /// measurement).
    pub fn at_floor(&self, config: &Config, choice: &decision::Choice) -> bool {
        let measured = self
            .measured
            .is_some_and(|m| m.time(config, &choice.candidate).is_some());
        let floor = self.floor.at(config.msg_bytes);
        !measured && floor.is_some_and(|f| choice.predicted_us <= f)
    }

    /// Every time shown is finite and at least the floor: a candidate
    /// whose prediction overflowed is not offered (`default` is, unpriced),
    /// one predicted below the floor is raised to it, and the policy then
    /// decides again (candidates raised to the same floor are a tie, which
    /// `default` wins).
    pub fn rank(&self, config: &Config, allowed: Option<&[bool]>) -> Vec<Ranked> {
        let selector = match self.distance(config) > 0.0 {
            true => &self.outside,
            false => &self.inside,
        };
        let mut ranked = selector.rank(config, allowed);
        bound(&mut ranked, self.floor.at(config.msg_bytes));
        prefer_default(
            &mut ranked,
            selector.policy.margin_at(selector.range.distance(config)),
        );
        if let Some(measured) = self.measured {
            measured.decide(config, &mut ranked, self.inside.policy.margin);
        }
        ranked
    }
}

/// Where a candidate's predicted time comes from.
#[derive(Clone, Copy)]
pub enum Predictor<'a> {
    /// One regressor per candidate on the base features.
    Learned(&'a [Model]),
    /// One regressor per candidate on the hybrid features (see
    /// [`crate::learn::hybrid`]), predicting ln time relative to the model.
    Hybrid(&'a [Model], &'a Fitted),
    /// The analytical model alone; candidates it cannot price are not
    /// offered.
    Analytical(&'a Fitted),
    /// The times measured at the nearest trained job; candidates not
    /// measured there are not offered.
    Nearest(&'a Measured),
}

impl<'a> Predictor<'a> {
    /// The predictor of a selector: learners need their per-candidate
    /// `models`, hybrid ones and the analytical selector the model, the
    /// nearest job the measurements.
    pub fn of(
        kind: SelectorKind,
        models: &'a [Model],
        analytical: &'a Fitted,
        measured: &'a Measured,
    ) -> Predictor<'a> {
        match kind {
            SelectorKind::Analytical => Predictor::Analytical(analytical),
            SelectorKind::Learner(k) if k.is_hybrid() => Predictor::Hybrid(models, analytical),
            SelectorKind::Learner(_) => Predictor::Learned(models),
            SelectorKind::Nearest => Predictor::Nearest(measured),
        }
    }
}

/// The job and message sizes a model was trained on: where its predictions
/// interpolate, and how far beyond it a configuration lies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainedRange {
    pub procs: (u32, u32),
    pub nodes: (u32, u32),
    pub ppn: (u32, u32),
    pub msg_bytes: (u64, u64),
    /// The procs of the trained jobs across nodes, if any: a job across
    /// nodes is as far from what was measured as from these, whatever the
    /// single-node jobs around it.
    pub across_nodes: Option<(u32, u32)>,
    /// The message sizes measured across nodes, likewise: the network's
    /// cost at sizes it never carried is a guess, however well the shared
    /// memory's is known there.
    #[serde(default)]
    pub across_msg_bytes: Option<(u64, u64)>,
}

impl TrainedRange {
    pub fn of(d: &Dataset) -> TrainedRange {
        let mut configs = d.configs();
        let Some(first) = configs.next() else {
            return TrainedRange::default();
        };
        let across = |c: &Config| (c.nodes > 1).then_some((c.procs, c.procs));
        let across_msg = |c: &Config| (c.nodes > 1).then_some((c.msg_bytes, c.msg_bytes));
        let one = |c: &Config| TrainedRange {
            procs: (c.procs, c.procs),
            nodes: (c.nodes, c.nodes),
            ppn: (c.ppn, c.ppn),
            msg_bytes: (c.msg_bytes, c.msg_bytes),
            across_nodes: across(c),
            across_msg_bytes: across_msg(c),
        };
        configs.fold(one(&first), |r, c| {
            let widen = |(lo, hi): (u32, u32), v: u32| (lo.min(v), hi.max(v));
            TrainedRange {
                procs: widen(r.procs, c.procs),
                nodes: widen(r.nodes, c.nodes),
                ppn: widen(r.ppn, c.ppn),
                msg_bytes: (
                    r.msg_bytes.0.min(c.msg_bytes),
                    r.msg_bytes.1.max(c.msg_bytes),
                ),
                across_nodes: match (r.across_nodes, across(&c)) {
                    (Some(a), Some(_)) => Some(widen(a, c.procs)),
                    (a, b) => a.or(b),
                },
                across_msg_bytes: match (r.across_msg_bytes, across_msg(&c)) {
                    (Some((lo, hi)), Some(_)) => Some((lo.min(c.msg_bytes), hi.max(c.msg_bytes))),
                    (a, b) => a.or(b),
                },
            }
        })
    }

    /// How far `c` lies outside the range, in doublings: the largest over
    /// procs, nodes, ranks per node and message size; 0 inside. A job
    /// across nodes counts its procs and message size against the trained
    /// jobs across nodes only (its messages cross the network, theirs
    /// did), and is infinitely far when every trained job ran on one node:
    /// nothing measured the network.
    pub fn distance(&self, c: &Config) -> f64 {
        let (procs, msg_bytes) = match self.across_nodes {
            _ if c.nodes <= 1 => (self.procs, self.msg_bytes),
            Some(across) => (across, self.across_msg_bytes.unwrap_or(self.msg_bytes)),
            None => return f64::INFINITY,
        };
        let out = |(lo, hi): (u64, u64), v: u64| {
            let (lo, hi, v) = (lo.max(1) as f64, hi.max(1) as f64, v.max(1) as f64);
            (v / hi).log2().max((lo / v).log2()).max(0.0)
        };
        let wide = |(lo, hi): (u32, u32)| (u64::from(lo), u64::from(hi));
        out(wide(procs), c.procs.into())
            .max(out(wide(self.nodes), c.nodes.into()))
            .max(out(wide(self.ppn), c.ppn.into()))
            .max(out(msg_bytes, c.msg_bytes))
    }
}

/// When another candidate may replace `default`: only when predicted
/// faster by more than `margin` (a fraction of default's time), plus
/// `per_doubling` for every doubling the configuration lies outside the
/// trained range; never where that reaches 1, nor farther out than
/// cross-validation tested the selector (`validated_doublings`). All three
/// come from cross-validation ([`crate::train::cv`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    pub margin: f64,
    pub per_doubling: f64,
    pub validated_doublings: f64,
}

impl Policy {
    /// Leave the library's choice alone outside the trained range.
    pub const CAUTIOUS: Policy = Policy {
        margin: 0.0,
        per_doubling: 1.0,
        validated_doublings: 0.0,
    };

    /// No margin anywhere: the raw ranking.
    pub const NONE: Policy = Policy {
        margin: 0.0,
        per_doubling: 0.0,
        validated_doublings: f64::INFINITY,
    };

    /// The margin at `distance` doublings outside the trained range.
    pub fn margin_at(&self, distance: f64) -> f64 {
        if distance <= 0.0 {
            return self.margin.min(1.0);
        }
        if distance > self.validated_doublings {
            return 1.0;
        }
        (self.margin + self.per_doubling * distance).min(1.0)
    }
}

/// The candidates with their predictor and the mappings each candidate was
/// measured under.
pub struct Selector<'a> {
    pub collective: crate::data::Collective,
    pub candidates: &'a [Candidate],
    pub predictor: Predictor<'a>,
    /// What the training data measured: `default`'s price where the
    /// predictor has none (a model that cannot price the library's own
    /// choice must not keep it for that reason alone).
    pub measured: &'a Measured,
    /// What the learners' models predict.
    pub target: Target,
    pub mappings: &'a [Vec<Mapping>],
    pub policy: Policy,
    pub range: TrainedRange,
}

impl Selector<'_> {
    /// Candidates (those `allowed`, if given) fastest predicted first,
    /// `default` first where the policy keeps it. A candidate never
    /// measured under the configuration's mapping is not offered (its
    /// prediction there would be pure extrapolation), unless no candidate
    /// was; nor is one the predictor cannot price, except `default`
    /// (priced by the nearest job's measurement where the predictor has
    /// no price, unpriced where neither has); nor one that cannot run on
    /// the configuration's ranks (two_proc off 2). Empty only when nothing
    /// is left.
    pub fn rank(&self, config: &Config, allowed: Option<&[bool]>) -> Vec<Ranked> {
        let base = features::base(config);
        let terms = match self.predictor {
            Predictor::Hybrid(_, fitted) => Some(Terms::new(fitted, config, self.candidates)),
            _ => None,
        };
        // ln of a candidate's own model's prediction (a hybrid's with its
        // term added back).
        let own = |i: usize, candidate: &Candidate| match self.predictor {
            Predictor::Learned(models) => Some(models[i].predict(&base)),
            Predictor::Hybrid(models, _) => {
                let term = terms.as_ref()?.of(candidate);
                Some(models[i].predict(&hybrid::row(config, term)) + term)
            }
            Predictor::Analytical(_) | Predictor::Nearest(_) => None,
        };
        // `default`'s ln time, for the ratios to it (a hybrid's ratio holds
        // `default`'s term too, taken off here).
        let once = std::cell::OnceCell::new();
        let ln_default = || {
            *once.get_or_init(|| {
                let d = self.candidates.iter().position(|c| c.is_default())?;
                let default = &self.candidates[d];
                let term = terms.as_ref().map_or(0.0, |t| t.of(default));
                Some(own(d, default)? - term)
            })
        };
        let predict = |i: usize, candidate: &Candidate| match self.predictor {
            Predictor::Learned(_) | Predictor::Hybrid(..) => {
                let ln = self
                    .target
                    .decode(candidate, own(i, candidate)?, ln_default)?;
                Some(ln.exp())
            }
            Predictor::Analytical(fitted) => fitted.predict_us(config, candidate),
            Predictor::Nearest(measured) => measured.nearest_time(config, candidate),
        };
        let mut ranked: Vec<Ranked> = self
            .candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| allowed.is_none_or(|a| a[*i]))
            .filter(|(_, c)| self.collective.runs_on(c.algorithm, config.procs))
            .filter_map(|(index, candidate)| {
                let predicted_us = predict(index, candidate).or_else(|| {
                    candidate.is_default().then(|| {
                        self.measured
                            .nearest_time(config, candidate)
                            .unwrap_or(f64::NAN)
                    })
                })?;
                Some(Ranked {
                    index,
                    candidate: *candidate,
                    predicted_us,
                })
            })
            .collect();
        let seen = |r: &Ranked| self.mappings[r.index].contains(&config.mapping);
        if ranked.iter().any(seen) {
            ranked.retain(seen);
        }
        // NaN (unpriced, or a broken model) sorts last.
        ranked.sort_by(|a, b| a.predicted_us.total_cmp(&b.predicted_us));
        let margin = self.policy.margin_at(self.range.distance(config));
        prefer_default(&mut ranked, margin);
        ranked
    }
}

/// Keeps predicted times finite and at least `floor` (see
/// [`measured::Floor`]), fastest first: a candidate whose prediction
/// overflowed is dropped (`default` stays, unpriced: NaN), one below the
/// floor is raised to it (candidates raised alike tie, in their order).
pub fn bound(ranked: &mut Vec<Ranked>, floor: Option<f64>) {
    ranked.retain(|r| r.predicted_us.is_finite() || r.candidate.is_default());
    for r in ranked.iter_mut() {
        r.predicted_us = match (r.predicted_us.is_finite(), floor) {
            (false, _) => f64::NAN,
            (true, Some(f)) => r.predicted_us.max(f),
            (true, None) => r.predicted_us.max(f64::MIN_POSITIVE),
        };
    }
    ranked.sort_by(|a, b| a.predicted_us.total_cmp(&b.predicted_us));
}

/// Moves `default` to the front unless the fastest candidate is predicted
/// faster than it by more than `margin`: leaving the choice to the library
/// is the safe decision when the models cannot tell the candidates apart.
/// An unpriced `default` (NaN) stays first: nothing shows it is slower.
pub fn prefer_default(ranked: &mut [Ranked], margin: f64) {
    let Some(d) = ranked.iter().position(|r| r.candidate.is_default()) else {
        return;
    };
    let keep = ranked[d].predicted_us.is_nan()
        || margin >= 1.0
        || ranked[0].predicted_us >= (1.0 - margin) * ranked[d].predicted_us;
    if d > 0 && keep {
        ranked[..=d].rotate_right(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::{config, row};
    use crate::data::{Algorithm, Candidate, Provenance};

    fn r(index: usize, algorithm: Algorithm, predicted_us: f64) -> Ranked {
        Ranked {
            index,
            candidate: Candidate {
                algorithm,
                ..Candidate::DEFAULT
            },
            predicted_us,
        }
    }

    #[test]
    fn default_keeps_its_place_unless_clearly_beaten() {
        let ranked = [
            r(0, Algorithm::Binomial, 9.5),
            r(1, Algorithm::Linear, 9.8),
            r(2, Algorithm::Default, 10.0),
        ];
        let mut a = ranked;
        prefer_default(&mut a, 0.1);
        assert_eq!(
            a.map(|x| x.index),
            [2, 0, 1],
            "5% faster is not enough at 10%"
        );
        let mut b = ranked;
        prefer_default(&mut b, 0.02);
        assert_eq!(b.map(|x| x.index), [0, 1, 2], "5% faster is enough at 2%");
        let mut c = ranked;
        prefer_default(&mut c, 0.0);
        assert_eq!(c.map(|x| x.index), [0, 1, 2]);
        let mut d = [
            r(0, Algorithm::Binomial, 1.0),
            r(1, Algorithm::Default, f64::NAN),
        ];
        prefer_default(&mut d, 0.0);
        assert_eq!(d.map(|x| x.index), [1, 0], "an unpriced default is kept");
    }

    #[test]
    fn margins_grow_outside_the_trained_range() {
        let rows = [2u32, 4, 8]
            .iter()
            .flat_map(|&p| {
                [
                    row(p, 16, Algorithm::Default, 1.0),
                    row(p, 1024, Algorithm::Linear, 1.0),
                ]
            })
            .collect();
        let range = TrainedRange::of(&Dataset::from_rows(rows, Provenance::default()));
        assert_eq!(range.procs, (2, 8));
        assert_eq!(range.distance(&config(4, 64)), 0.0);
        assert_eq!(
            range.distance(&config(32, 64)),
            2.0,
            "procs and ppn 4x beyond"
        );
        assert_eq!(range.distance(&config(4, 4096)), 2.0, "4x the largest size");
        assert_eq!(
            range.distance(&config(4, 4)),
            2.0,
            "a quarter of the smallest"
        );
        let mut two_nodes = config(8, 64);
        two_nodes.nodes = 2;
        two_nodes.ppn = 4;
        assert!(
            range.distance(&two_nodes).is_infinite(),
            "network never measured"
        );
        let mut rows: Vec<_> = [2u32, 8, 32]
            .iter()
            .map(|&p| row(p, 64, Algorithm::Default, 1.0))
            .collect();
        let mut across = row(64, 64, Algorithm::Default, 1.0);
        across.config.nodes = 2;
        rows.push(across);
        let range = TrainedRange::of(&Dataset::from_rows(rows, Provenance::default()));
        assert_eq!(range.across_nodes, Some((64, 64)));
        let job = |procs, nodes| {
            let mut c = config(procs, 64);
            c.nodes = nodes;
            c.ppn = procs / nodes;
            c
        };
        assert_eq!(range.distance(&job(16, 1)), 0.0);
        assert_eq!(
            range.distance(&job(32, 2)),
            1.0,
            "half the only job across nodes"
        );
        let policy = Policy {
            margin: 0.02,
            per_doubling: 0.1,
            validated_doublings: 3.0,
        };
        assert_eq!(policy.margin_at(0.0), 0.02);
        assert!((policy.margin_at(2.0) - 0.22).abs() < 1e-12);
        assert_eq!(policy.margin_at(3.5), 1.0, "farther than validated");
        assert_eq!(policy.margin_at(f64::INFINITY), 1.0);
        assert_eq!(Policy::CAUTIOUS.margin_at(0.5), 1.0);
    }

    /// A model that cannot price `default` (the analytical model on MPICH,
    /// whose own choice runs in its device layer) prices it by the
    /// nearest job's measurement, so that a candidate predicted far faster
    /// replaces it; with nothing measured, `default` stays, unpriced.
    #[test]
    fn an_unpriced_default_takes_its_measured_time() {
        let mut rows = Vec::new();
        for procs in [2u32, 4, 8] {
            for msg in [64u64, 4096, 65536] {
                let t = f64::from(procs) * (1.0 + msg as f64 / 1024.0);
                rows.push(row(procs, msg, Algorithm::Linear, t));
                rows.push(row(procs, msg, Algorithm::Binomial, t));
                rows.push(row(procs, msg, Algorithm::Default, 1000.0 * t));
            }
        }
        let d = Dataset::from_rows(rows, Provenance::default());
        let mut fitted = crate::analytical::fit::fit_dataset(&d);
        fitted.library = crate::library::Library::Mpich;
        let candidates: Vec<Candidate> = d.candidates().into_iter().collect();
        let at = config(6, 4096);
        assert!(fitted.predict_us(&at, &Candidate::DEFAULT).is_none());
        let measured = Measured::of(&d, &candidates);
        let none = Measured::default();
        let mappings = vec![vec![Mapping::Core]; candidates.len()];
        let rank = |measured: &Measured| {
            let selector = Selector {
                collective: d.provenance.collective(),
                candidates: &candidates,
                predictor: Predictor::Analytical(&fitted),
                measured,
                target: Target::RatioToDefault,
                mappings: &mappings,
                policy: Policy::NONE,
                range: TrainedRange::of(&d),
            };
            selector.rank(&at, None)
        };
        let priced = rank(&measured);
        let default = priced.iter().find(|r| r.candidate.is_default()).unwrap();
        let at_8 = measured.time(&config(8, 4096), &Candidate::DEFAULT);
        assert_eq!(Some(default.predicted_us), at_8, "8 ranks is nearest 6");
        assert!(!priced[0].candidate.is_default(), "{priced:?}");
        let unpriced = rank(&none);
        assert!(unpriced[0].candidate.is_default() && unpriced[0].predicted_us.is_nan());
    }

    #[test]
    fn selector_kinds_read_and_write_their_names() {
        for name in ["analytical", "knn", "hybrid-gbm", "nearest"] {
            let kind: SelectorKind = name.parse().unwrap();
            assert_eq!(kind.name(), name);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(serde_json::from_str::<SelectorKind>(&json).unwrap(), kind);
        }
        assert!("forest".parse::<SelectorKind>().is_err());
    }
}
