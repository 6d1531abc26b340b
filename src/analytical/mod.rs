//! Analytical cost models of the broadcast algorithms, derived from the
//! schedules the harness runs (the model-based selection paper, §4): a
//! broadcast is the sum of its stages, a stage costs its slowest concurrent
//! flat-tree fan-out (NBFT), and a fan-out of k children costs γ(k) times one
//! point-to-point transfer of its segment on its channel (Hockney α + β·m,
//! shared memory within a node, network across). A fan-out that mixes the
//! channels counts as a network fan-out in which every Q shared-memory
//! children weigh like one network child (the paper's eq. 4).
//!
//! γ(k) = 1 + s·(k − 1) between full overlap (s = 0) and serialized sends
//! (s = 1) and the channel ratio Q are shared by all algorithms; (overhead,
//! α, β per channel) are fitted per candidate ([`fit`]).

pub mod fit;

use crate::data::{Algorithm, Candidate, Config};
use crate::schedule::{Schedule, Spec};
use crate::sim::stage_structure;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// One candidate's fit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateFit {
    pub candidate: Candidate,
    pub rows: usize,
    pub params: Params,
    /// R² of ln(time) in sample.
    pub r2_log: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fitted {
    pub shared: Shared,
    pub fits: Vec<CandidateFit>,
    /// Candidates without a model (no schedule: default, scatter-allgather).
    pub unmodeled: Vec<Candidate>,
}

impl Fitted {
    /// Where `candidate`'s fit is in `fits` (kept in candidate order).
    pub fn position(&self, candidate: &Candidate) -> Option<usize> {
        self.fits
            .binary_search_by(|f| f.candidate.cmp(candidate))
            .ok()
    }

    pub fn params(&self, candidate: &Candidate) -> Option<Params> {
        self.position(candidate).map(|i| self.fits[i].params)
    }

    /// Predicted time (µs) of `candidate` on `config`; `None` without a
    /// model for it.
    pub fn predict_us(&self, config: &Config, candidate: &Candidate) -> Option<f64> {
        let params = self.params(candidate)?;
        let shape = Shape::cached(config, candidate)?;
        Some(predict(&shape, &self.shared, &params))
    }
}

type Cache = HashMap<(Config, Candidate), Option<Arc<Shape>>>;
/// Shapes by (configuration, candidate); see [`Shape::cached`].
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

/// A broadcast as the model needs it: its stages, each as its distinct
/// fan-outs. Stage order does not change the sum, so identical stages (most
/// of a pipeline's) are kept once with their count: the model's cost is
/// then independent of the number of segments.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    stages: Vec<(u32, Vec<Fanout>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fanout {
    children: u32,
    cross_node: u32,
    bytes: u64,
}

impl Shape {
    /// The stage structure of `candidate` on `config` (root 0); `None` for
    /// candidates without a schedule (the library default, scatter-allgather).
    ///
    /// Simulating every transfer costs segments × ranks; once the pipeline
    /// is full (as many segments as the tree is deep) every further segment
    /// only repeats the steady-state stages. So a long segmented broadcast
    /// is simulated at two short lengths of the same segment size and last
    /// segment, and each stage's count extended linearly; the tests check
    /// this is exact against full simulations. Not for split-binary, whose
    /// exchange phase sends half the message whatever its segments.
    pub fn of(config: &Config, candidate: &Candidate) -> Option<Shape> {
        if !crate::schedule::SCHEDULED.contains(&candidate.algorithm) {
            return None;
        }
        let segsize = candidate.segsize.unwrap_or(0);
        let m = config.msg_bytes;
        let segments = if segsize == 0 { 1 } else { m.div_ceil(segsize) };
        let depth = Schedule::new(Self::spec(config, candidate))
            .ok()?
            .tree()
            .map_or(u64::from(config.procs), |t| u64::from(t.depth()));
        // Well past the fill; the tests check that the extension is exact.
        let short = 2 * depth + 4;
        if segments <= short + 1 || candidate.algorithm == Algorithm::SplitBinary {
            return Self::simulated(config, candidate);
        }
        let last = m - (segments - 1) * segsize;
        let at = |n: u64| {
            let c = Config {
                msg_bytes: (n - 1) * segsize + last,
                ..*config
            };
            Self::simulated(&c, candidate)
        };
        let (a, b) = (at(short)?, at(short + 1)?);
        let extra = segments - short;
        let mut stages = Vec::with_capacity(b.stages.len());
        for (count_b, kinds) in b.stages {
            let count_a = a
                .stages
                .iter()
                .find(|(_, k)| *k == kinds)
                .map_or(0, |s| s.0);
            // A stage kind that shrinks with length breaks the premise.
            let step = count_b.checked_sub(count_a)?;
            let count = u64::from(count_b) + (extra - 1) * u64::from(step);
            stages.push((u32::try_from(count).ok()?, kinds));
        }
        if a.stages
            .iter()
            .any(|(_, k)| !stages.iter().any(|s| s.1 == *k))
        {
            return Self::simulated(config, candidate);
        }
        Some(Shape { stages })
    }

    /// [`Shape::of`], remembered: training prices the same configurations
    /// once per cross-validation fold and learner, and a shape is a pure
    /// function of its key. Process-wide because shapes do not depend on any
    /// fitted parameter; bounded so a long-lived caller cannot grow it
    /// without limit.
    pub fn cached(config: &Config, candidate: &Candidate) -> Option<Arc<Shape>> {
        const MOST: usize = 1 << 20;
        let key = (*config, *candidate);
        if let Some(hit) = CACHE.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return hit;
        }
        let shape = Shape::of(config, candidate).map(Arc::new);
        if let Ok(mut cache) = CACHE.lock() {
            if cache.len() >= MOST {
                cache.clear();
            }
            cache.insert(key, shape.clone());
        }
        shape
    }

    /// Forgets every remembered shape (for benchmarks of cold pricing).
    pub fn clear_cache() {
        if let Ok(mut cache) = CACHE.lock() {
            cache.clear();
        }
    }

    fn spec(config: &Config, candidate: &Candidate) -> Spec {
        Spec {
            algorithm: candidate.algorithm,
            procs: config.procs,
            root: 0,
            msg_bytes: config.msg_bytes,
            segsize: candidate.segsize.unwrap_or(0),
            fanout: candidate.fanout,
        }
    }

    fn simulated(config: &Config, candidate: &Candidate) -> Option<Shape> {
        let schedule = Schedule::new(Self::spec(config, candidate)).ok()?;
        let structure = stage_structure(&schedule, &config.placement()).ok()?;
        let mut distinct: Vec<Vec<Fanout>> = structure
            .stages
            .iter()
            .map(|stage| {
                let mut kinds: Vec<Fanout> = stage
                    .nbfts
                    .iter()
                    .map(|n| Fanout {
                        children: n.children,
                        cross_node: n.cross_node,
                        bytes: n.bytes,
                    })
                    .collect();
                kinds.sort_unstable();
                kinds.dedup();
                kinds
            })
            .collect();
        distinct.sort_unstable();
        let mut stages: Vec<(u32, Vec<Fanout>)> = Vec::new();
        for kinds in distinct {
            match stages.last_mut() {
                Some((count, last)) if *last == kinds => *count += 1,
                _ => stages.push((1, kinds)),
            }
        }
        Some(Shape { stages })
    }

    pub fn has_network(&self) -> bool {
        self.stages
            .iter()
            .flat_map(|(_, kinds)| kinds)
            .any(|f| f.cross_node > 0)
    }
}

/// Parameters shared by every algorithm of a platform.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    /// Slope s of γ(k) = 1 + s·(k − 1).
    pub gamma_slope: f64,
    /// How many shared-memory children weigh like one network child.
    pub q: f64,
}

impl Shared {
    fn gamma(&self, children: f64) -> f64 {
        1.0 + self.gamma_slope * (children - 1.0).max(0.0)
    }
}

/// One candidate's fitted parameters (µs, µs per byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub overhead_us: f64,
    pub shm_alpha_us: f64,
    pub shm_beta_us_per_byte: f64,
    pub net_alpha_us: f64,
    pub net_beta_us_per_byte: f64,
}

/// Number of coefficients in [`Params`], in the order of [`Params::to_vec`].
pub const WIDTH: usize = 5;

impl Params {
    pub fn to_vec(self) -> [f64; WIDTH] {
        [
            self.overhead_us,
            self.shm_alpha_us,
            self.shm_beta_us_per_byte,
            self.net_alpha_us,
            self.net_beta_us_per_byte,
        ]
    }

    pub fn from_slice(v: &[f64]) -> Params {
        Params {
            overhead_us: v[0],
            shm_alpha_us: v[1],
            shm_beta_us_per_byte: v[2],
            net_alpha_us: v[3],
            net_beta_us_per_byte: v[4],
        }
    }
}

/// The model's time as a linear function of the parameters: the
/// coefficients of (overhead, α_shm, β_shm, α_net, β_net), given which
/// fan-out dominates each stage under `params`.
pub fn design(shape: &Shape, shared: &Shared, params: &Params) -> [f64; WIDTH] {
    let mut row = [1.0, 0.0, 0.0, 0.0, 0.0];
    for (count, stage) in &shape.stages {
        let terms = stage.iter().map(|f| terms(f, shared));
        let cost = |t: &[f64; WIDTH]| {
            t[1] * params.shm_alpha_us
                + t[2] * params.shm_beta_us_per_byte
                + t[3] * params.net_alpha_us
                + t[4] * params.net_beta_us_per_byte
        };
        if let Some(slowest) = terms.max_by(|a, b| cost(a).total_cmp(&cost(b))) {
            for (r, t) in row.iter_mut().zip(slowest).skip(1) {
                *r += f64::from(*count) * t;
            }
        }
    }
    row
}

/// One fan-out's coefficients (the overhead slot stays 0).
fn terms(f: &Fanout, shared: &Shared) -> [f64; WIDTH] {
    let k = f64::from(f.children);
    let bytes = f.bytes as f64;
    if f.cross_node == 0 {
        let g = shared.gamma(k);
        [0.0, g, g * bytes, 0.0, 0.0]
    } else {
        let c = f64::from(f.cross_node);
        let g = shared.gamma(c + ((k - c) / shared.q).floor());
        [0.0, 0.0, 0.0, g, g * bytes]
    }
}

/// Predicted time (µs) of a shape.
pub fn predict(shape: &Shape, shared: &Shared, params: &Params) -> f64 {
    let row = design(shape, shared, params);
    row.iter().zip(params.to_vec()).map(|(x, p)| x * p).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Impl, Mapping};

    /// The extended shape of a long segmented broadcast is the shape a full
    /// simulation gives, for every scheduled algorithm, on one node and
    /// across nodes, with a full and a short last segment.
    #[test]
    fn long_messages_extend_exactly() {
        for algorithm in crate::schedule::SCHEDULED {
            let candidate = Candidate {
                algorithm,
                segsize: (algorithm != Algorithm::Linear).then_some(1000),
                fanout: match algorithm {
                    Algorithm::Chain => Some(3),
                    Algorithm::Knomial => Some(4),
                    _ => None,
                },
                implementation: Impl::Own,
            };
            for (procs, nodes, mapping) in [
                (5, 1, Mapping::Core),
                (7, 2, Mapping::Core),
                (12, 3, Mapping::Node),
                (33, 4, Mapping::Core),
            ] {
                for (segments, last) in [(9, 1000), (16, 1), (31, 7), (80, 1000), (200, 999)] {
                    let config = Config {
                        procs,
                        nodes,
                        ppn: procs.div_ceil(nodes),
                        mapping,
                        msg_bytes: (segments - 1) * 1000 + last,
                        imbalance: 0.0,
                        arrival: crate::data::Arrival::Barrier,
                    };
                    assert_eq!(
                        Shape::of(&config, &candidate),
                        Shape::simulated(&config, &candidate),
                        "{candidate} on {config}"
                    );
                }
            }
        }
    }
}
