//! The stage structure the analytical models price, per (configuration,
//! candidate). The simulator's [`stage_structure`] is the definition; for
//! the algorithms on Open MPI's generic pipelined executor (chain, pipeline,
//! binary, binomial, knomial) and for linear it has a closed form, which the
//! tests check against the simulation: with unit steps and concurrent sends
//! a rank at depth d posts its sends of segment k at step d + k (it has the
//! segment then, and its sends of k − 1 completed). So stage s holds the
//! fan-outs of the tree levels d with 0 ≤ s − d < n, and a shape costs at
//! most levels² bit operations instead of segments × ranks simulated
//! transfers. Split-binary has a closed form of its own ([`split_binary`]);
//! only `sbbt` is still simulated.

mod split_binary;

use crate::data::{Algorithm, Candidate, Config, Impl, Placement};
use crate::schedule::{split_halves, Schedule, Segments, Spec, Tree};
use crate::sim::stage_structure;
use rustc_hash::FxHashMap;
use split_binary::SplitTree;
use std::hash::Hash;
use std::sync::{Arc, LazyLock, Mutex};

/// A broadcast as the model needs it: its stages, each as its distinct
/// fan-outs. Stage order does not change the sum, so identical stages (most
/// of a pipeline's) are kept once with their count: the model's cost is
/// then independent of the number of segments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shape {
    pub(super) stages: Vec<(u32, Vec<Fanout>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Fanout {
    pub children: u32,
    pub cross_node: u32,
    pub bytes: u64,
}

/// A process-wide memo of a pure function, bounded so that a long-lived
/// caller cannot grow it without limit. Fx hashing: keys are small plain
/// values of our own, and a lookup is on selection's warm path.
struct Memo<K, V>(LazyLock<Mutex<FxHashMap<K, V>>>);

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    const MOST: usize = 1 << 20;

    const fn new() -> Self {
        Memo(LazyLock::new(Mutex::default))
    }

    fn get_or(&self, key: K, compute: impl FnOnce() -> V) -> V {
        if let Some(hit) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return hit;
        }
        let value = compute();
        if let Ok(mut memo) = self.0.lock() {
            if memo.len() >= Self::MOST {
                memo.clear();
            }
            memo.insert(key, value.clone());
        }
        value
    }

    fn clear(&self) {
        if let Ok(mut memo) = self.0.lock() {
            memo.clear();
        }
    }
}

/// Shapes by (configuration, candidate); see [`Shape::cached`].
static SHAPES: Memo<(Config, Candidate), Option<Arc<Shape>>> = Memo::new();
/// Levels by (algorithm, fan-out, placement): shared by every message
/// size and segment size of a job.
type LevelKey = (Algorithm, Option<u32>, Placement);
static LEVELS: Memo<LevelKey, Option<Arc<Levels>>> = Memo::new();
/// Split-binary's sends by placement, likewise.
static SPLITS: Memo<Placement, Option<Arc<SplitTree>>> = Memo::new();

impl Shape {
    /// The stage structure of `candidate` on `config` (root 0); `None` for
    /// candidates without a schedule (the library default, scatter-allgather).
    pub fn of(config: &Config, candidate: &Candidate) -> Option<Shape> {
        use Algorithm::*;
        let algorithm = candidate.algorithm;
        if !crate::schedule::SCHEDULED.contains(&algorithm) || config.procs == 0 {
            return None;
        }
        if config.procs == 1 || config.msg_bytes == 0 {
            return Some(Shape::default()); // nothing to send
        }
        match algorithm {
            Linear | Chain | Pipeline | Binary | Binomial | Knomial => {
                let key = (algorithm, candidate.fanout, config.placement());
                let levels = LEVELS.get_or(key, || Levels::of(&key).map(Arc::new))?;
                let segsize = match algorithm {
                    Linear => 0,
                    _ => candidate.segsize.unwrap_or(0),
                };
                levels.wave(Segments::new(0, config.msg_bytes, segsize))
            }
            SplitBinary => {
                let segsize = candidate.segsize.unwrap_or(0);
                let Some(halves) = split_halves(config.msg_bytes, segsize) else {
                    // Open MPI runs a pipeline instead.
                    let pipeline = Candidate {
                        algorithm: Pipeline,
                        fanout: None,
                        ..*candidate
                    };
                    return Self::of(config, &pipeline);
                };
                let placement = config.placement();
                let split = SPLITS.get_or(placement, || SplitTree::of(&placement).map(Arc::new));
                split?.shape(&halves)
            }
            // Sbbt's blocking sends are no wave.
            _ => Self::simulated(config, candidate),
        }
    }

    /// [`Shape::of`], remembered: training prices the same configurations
    /// once per cross-validation fold and learner, and a shape is a pure
    /// function of its key.
    pub fn cached(config: &Config, candidate: &Candidate) -> Option<Arc<Shape>> {
        // Our implementation and Open MPI's run one schedule: one shape.
        let key = Candidate {
            implementation: Impl::Own,
            ..*candidate
        };
        SHAPES.get_or((*config, key), || Shape::of(config, &key).map(Arc::new))
    }

    /// Forgets every remembered shape (for benchmarks of cold pricing).
    pub fn clear_cache() {
        SHAPES.clear();
        LEVELS.clear();
        SPLITS.clear();
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

    /// The shape read off a simulation of the schedule.
    fn simulated(config: &Config, candidate: &Candidate) -> Option<Shape> {
        let schedule = Schedule::new(Self::spec(config, candidate)).ok()?;
        let structure = stage_structure(&schedule, &config.placement()).ok()?;
        let stages = structure.stages.iter().map(|stage| {
            let fanouts = stage.nbfts.iter().map(|n| Fanout {
                children: n.children,
                cross_node: n.cross_node,
                bytes: n.bytes,
            });
            (1, fanouts.collect())
        });
        Some(Shape::canonical(stages.collect()))
    }

    /// Each stage's fan-outs sorted and deduplicated, equal stages merged
    /// (counts summed): one representation whichever way it was derived.
    fn canonical(mut stages: Vec<(u32, Vec<Fanout>)>) -> Shape {
        for (_, fanouts) in &mut stages {
            fanouts.sort_unstable();
            fanouts.dedup();
        }
        stages.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        let mut merged: Vec<(u32, Vec<Fanout>)> = Vec::with_capacity(stages.len());
        for (count, fanouts) in stages {
            match merged.last_mut() {
                Some((c, last)) if *last == fanouts => *c += count,
                _ => merged.push((count, fanouts)),
            }
        }
        Shape { stages: merged }
    }

    pub fn has_network(&self) -> bool {
        self.stages
            .iter()
            .flat_map(|(_, kinds)| kinds)
            .any(|f| f.cross_node > 0)
    }
}

/// Which fan-outs each depth of a broadcast tree sends: the distinct
/// (children, cross-node children) kinds of a job, and per depth the set of
/// kinds its senders have, as a bit set over `kinds`.
struct Levels {
    kinds: Vec<(u32, u32)>,
    masks: Vec<u64>,
}

impl Levels {
    /// `None` for an invalid fan-out or more than 64 distinct kinds (the
    /// caller then has no wave; no tree here comes close).
    fn of(&(algorithm, fanout, placement): &LevelKey) -> Option<Levels> {
        let procs = placement.procs;
        let cross = |from: u32, to: &[u32]| {
            to.iter()
                .filter(|&&r| placement.crosses_nodes(from, r))
                .count() as u32
        };
        if algorithm == Algorithm::Linear {
            let others: Vec<u32> = (1..procs).collect();
            return Some(Levels {
                kinds: vec![(procs - 1, cross(0, &others))],
                masks: vec![1],
            });
        }
        // A 1-byte message puts these algorithms on the pipelined executor.
        let spec = Spec {
            algorithm,
            procs,
            root: 0,
            msg_bytes: 1,
            segsize: 0,
            fanout,
        };
        let schedule = Schedule::new(spec).ok()?;
        let (tree, _) = schedule.pipelined()?;
        let mut levels = Levels {
            kinds: Vec::new(),
            masks: Vec::new(),
        };
        for (depth, rank) in breadth_first(tree) {
            let children = &tree.children[rank as usize];
            if children.is_empty() {
                continue;
            }
            let kind = (children.len() as u32, cross(rank, children));
            let bit = match levels.kinds.iter().position(|k| *k == kind) {
                Some(bit) => bit,
                None if levels.kinds.len() < 64 => {
                    levels.kinds.push(kind);
                    levels.kinds.len() - 1
                }
                None => return None,
            };
            if levels.masks.len() <= depth {
                levels.masks.resize(depth + 1, 0);
            }
            levels.masks[depth] |= 1 << bit;
        }
        Some(levels)
    }

    /// The shape of `segments` sent down these levels. Level d sends
    /// segment k at stage d + k, so stage s holds the full-size segments
    /// of levels s − n + 2 ..= s and the last segment of level s − n + 1.
    /// Stages between the fill and the drain (all levels busy with full
    /// segments) are identical and counted at once.
    fn wave(&self, segments: Segments) -> Option<Shape> {
        let n = segments.count();
        let h = self.masks.len() as u64;
        if n == 0 || h == 0 {
            return Some(Shape::default());
        }
        let (full, last) = (segments.span(0).len(), segments.span(n - 1).len());
        let stage = |s: u64| {
            let lo = (s + 2).saturating_sub(n);
            let hi = s.min(h - 1);
            let full_mask = (lo..=hi).fold(0, |m, d| m | self.masks[d as usize]);
            let last_mask = (s + 1)
                .checked_sub(n)
                .filter(|&d| d < h)
                .map_or(0, |d| self.masks[d as usize]);
            (full_mask, last_mask)
        };
        // Stages s in [h − 1, n − 1) are the steady state.
        let steady = (h - 1)..(n - 1);
        let mut counted: Vec<((u64, u64), u64)> = Vec::new();
        let mut count = |key: (u64, u64), times: u64| match counted.last_mut() {
            Some((k, c)) if *k == key => *c += times,
            _ => counted.push((key, times)),
        };
        for s in 0..(n + h - 1) {
            if steady.contains(&s) {
                if s == steady.start {
                    count(stage(s), steady.end - steady.start);
                }
                continue;
            }
            count(stage(s), 1);
        }
        let fanouts = |mask: u64, bytes: u64| {
            self.kinds
                .iter()
                .enumerate()
                .filter(move |(bit, _)| (mask >> bit) & 1 == 1)
                .map(move |(_, &(children, cross_node))| Fanout {
                    children,
                    cross_node,
                    bytes,
                })
        };
        let mut stages = Vec::with_capacity(counted.len());
        for ((full_mask, last_mask), times) in counted {
            let kinds = fanouts(full_mask, full).chain(fanouts(last_mask, last));
            stages.push((u32::try_from(times).ok()?, kinds.collect()));
        }
        Some(Shape::canonical(stages))
    }
}

/// (depth, rank) of every rank of `tree`, parents before children.
fn breadth_first(tree: &Tree) -> Vec<(usize, u32)> {
    let mut order = vec![(0, tree.root)];
    let mut i = 0;
    while let Some(&(depth, rank)) = order.get(i) {
        order.extend(tree.children[rank as usize].iter().map(|&c| (depth + 1, c)));
        i += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Impl, Mapping};
    use rand::{Rng, SeedableRng};

    /// The closed forms are the simulation's stage structure, for every
    /// algorithm they cover (split-binary's fallback to a pipeline included), on random jobs (one node and several, block and
    /// cyclic placements), segment counts below, at and far beyond the tree
    /// depth, full and short last segments, and default and odd fan-outs.
    #[test]
    fn wave_is_the_simulated_stage_structure() {
        use Algorithm::*;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for trial in 0..700 {
            let algorithm = [
                Linear,
                Chain,
                Pipeline,
                Binary,
                Binomial,
                Knomial,
                SplitBinary,
            ][trial % 7];
            let procs = rng.random_range(1..=40);
            let nodes = rng.random_range(1..=procs.min(5));
            let mapping = [Mapping::Core, Mapping::Node][rng.random_range(0..2)];
            let segsize = [0, 1000][rng.random_range(0..2)];
            let segments = rng.random_range(1..=90u64);
            let last = rng.random_range(1..=1000u64);
            let candidate = Candidate {
                algorithm,
                segsize: (segsize > 0).then_some(segsize),
                fanout: match algorithm {
                    Chain | Knomial => [None, Some(2), Some(3), Some(7)][rng.random_range(0..4)],
                    _ => None,
                },
                implementation: Impl::Own,
            };
            let config = Config {
                procs,
                nodes,
                ppn: procs.div_ceil(nodes),
                mapping,
                msg_bytes: (segments - 1) * segsize.max(1) + last,
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

    #[test]
    fn pipeline_shape_counts_fill_steady_state_and_drain() {
        // 4 ranks in a chain on one node (3 sending levels), 10 segments
        // of 100 bytes, the last one 50: 12 stages of 1-child fan-outs; the
        // short segment leaves the three levels at stages 9, 10 and 11, the
        // first two while full segments still move further down.
        let config = Config {
            procs: 4,
            nodes: 1,
            ppn: 4,
            mapping: Mapping::Core,
            msg_bytes: 950,
            imbalance: 0.0,
            arrival: crate::data::Arrival::Barrier,
        };
        let candidate = Candidate {
            algorithm: Algorithm::Pipeline,
            segsize: Some(100),
            fanout: None,
            implementation: Impl::Own,
        };
        let one = |bytes| Fanout {
            children: 1,
            cross_node: 0,
            bytes,
        };
        let shape = Shape::of(&config, &candidate).unwrap();
        assert_eq!(
            shape.stages,
            [
                (1, vec![one(50)]),
                (2, vec![one(50), one(100)]),
                (9, vec![one(100)])
            ]
        );
    }
}
