//! What `tune` measures first and what a run covered.
//!
//! The first pass measures every collective's *base* points: each
//! algorithm once per configuration, at the segment size and fan-out Open
//! MPI's fixed decision runs it with (unsegmented, the library's default
//! fan-out) — `default` among them. It takes the job's own communicator
//! size first (what the application's communicator runs), then the
//! sub-communicators, largest first, and only then do other segment sizes,
//! fan-outs and the models' doubts compete for the budget. Without it a
//! collective with many segmenting algorithms (broadcast, reduce) spent
//! the budget on three segment sizes of each before the others had
//! measured their plain algorithms once.
//!
//! A collective is *explored* at a communicator size when every base point
//! there is measured: every algorithm that can run there, at every
//! message size. Where it is not, the rules keep `default` for want of
//! measurements, which the report says, with what a full first pass
//! would cost on this job ([`Costs`]).

use crate::bench::machine_state::DISTURBED;
use crate::data::{Candidate, Collective, Config, Dataset};
pub use crate::report::tune::Covered;
use std::collections::{BTreeMap, BTreeSet};

/// The point's segment size and fan-out in the order of the first pass:
/// unsegmented (or the library's own segmenting) and the library's default
/// fan-out first.
fn parameters(c: &Candidate) -> (u64, u32) {
    (c.segsize.unwrap_or(0), c.fanout.unwrap_or(0))
}

/// Which of `points` are base points: per configuration, algorithm and
/// implementation, the one with the smallest segment size and fan-out
/// (unsegmented and the default fan-out where the grid has them).
pub fn base(points: &[(Config, Candidate)]) -> Vec<bool> {
    let mut first: BTreeMap<(Config, Candidate), usize> = BTreeMap::new();
    for (i, (config, candidate)) in points.iter().enumerate() {
        let key = (
            *config,
            Candidate {
                segsize: None,
                fanout: None,
                ..*candidate
            },
        );
        let better = |j: &usize| parameters(candidate) < parameters(&points[*j].1);
        match first.get(&key) {
            Some(j) if !better(j) => {}
            _ => {
                first.insert(key, i);
            }
        }
    }
    let mut is_base = vec![false; points.len()];
    first.into_values().for_each(|i| is_base[i] = true);
    is_base
}

/// The first pass's communicator sizes, the order they are measured in:
/// largest (the job's own) first.
pub fn order(points: &[(Config, Candidate)]) -> Vec<u32> {
    let procs: BTreeSet<u32> = points.iter().map(|(c, _)| c.procs).collect();
    procs.into_iter().rev().collect()
}

/// The points `data` holds a measurement of.
pub fn measured_points(data: &Dataset) -> BTreeSet<(Config, Candidate)> {
    data.measurements()
        .iter()
        .map(|m| (m.config, m.candidate))
        .collect()
}

/// Per communicator size of one collective's grid (`is_base` from
/// [`base`]), what `data` holds.
pub fn covered(points: &[(Config, Candidate)], is_base: &[bool], data: &Dataset) -> Vec<Covered> {
    let done = measured_points(data);
    let mut out = Vec::new();
    for procs in order(points) {
        // Per message size: (candidates in the grid, measured).
        let mut per_size: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
        let (mut base, mut base_measured) = (0, 0);
        // Per message size: (base points, measured).
        let mut base_by_size: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
        for (point, &b) in points.iter().zip(is_base) {
            if point.0.procs != procs {
                continue;
            }
            let measured = done.contains(point);
            let size = per_size.entry(point.0.msg_bytes).or_default();
            size.0 += 1;
            size.1 += usize::from(measured);
            if b {
                base += 1;
                base_measured += usize::from(measured);
                let at = base_by_size.entry(point.0.msg_bytes).or_default();
                at.0 += 1;
                at.1 += usize::from(measured);
            }
        }
        let counts = per_size.values().map(|&(_, m)| m);
        // Sizes in order, up to the first with a base point missing.
        let explored_to = base_by_size
            .iter()
            .take_while(|(_, &(all, measured))| measured == all)
            .map(|(&m, _)| m)
            .last();
        out.push(Covered {
            procs,
            sizes: per_size.len(),
            measured: (counts.clone().min().unwrap_or(0), counts.max().unwrap_or(0)),
            grid: per_size.values().map(|&(g, _)| g).max().unwrap_or(0),
            base_measured,
            base,
            explored_to,
        });
    }
    out
}

/// What measuring cost on this job: wall seconds and points per collective
/// and communicator size, as the harness reported them, and the machine's
/// quietest state it met per communicator size.
#[derive(Clone, Debug, Default)]
pub struct Costs {
    spent: BTreeMap<(Collective, u32), (f64, usize)>,
    quietest: BTreeMap<u32, f64>,
}

impl Costs {
    /// A campaign at `procs` ranks met the machine's state at `probe` µs
    /// at its quietest.
    pub fn probed(&mut self, procs: u32, probe: f64) {
        let level = self.quietest.entry(procs).or_insert(f64::INFINITY);
        *level = level.min(probe);
    }

    /// Where exploring never met the state that validation met: the
    /// communicator size, exploring's quietest probe and validation's
    /// (µs), the widest apart, where exploring's is above
    /// [`DISTURBED`] times validation's. Exploring ranks the algorithms
    /// by the state it measured in; on the 2-core VM a job disturbed
    /// through all of its exploring never proposed the reduce's 2x winner
    /// at 4 KiB (mc81 in `experiments/validation.md`), and the machine
    /// measures its own quiet level only by meeting it.
    pub fn explored_disturbed(&self, validated: &BTreeMap<u32, f64>) -> Option<(u32, f64, f64)> {
        self.quietest
            .iter()
            .filter_map(|(&procs, &explored)| {
                let quiet = *validated.get(&procs)?;
                (explored > DISTURBED * quiet).then_some((procs, explored, quiet))
            })
            .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)))
    }

    pub fn add(&mut self, collective: Collective, procs: u32, seconds: f64, points: usize) {
        let entry = self.spent.entry((collective, procs)).or_default();
        entry.0 += seconds;
        entry.1 += points;
    }

    /// Seconds per point of `collective` at `procs`: measured there, else
    /// the collective's at any size scaled by the sizes' ratio (a
    /// collective's cost grows about linearly with the ranks at the sizes
    /// that dominate it), else every collective's at that size, else every
    /// point's; `None` before anything was measured.
    pub fn per_point(&self, collective: Collective, procs: u32) -> Option<f64> {
        let rate = |(s, n): (f64, usize)| (n > 0).then(|| s / n as f64);
        let sum = |keep: &dyn Fn(&(Collective, u32)) -> bool| {
            self.spent
                .iter()
                .filter(|(k, _)| keep(k))
                .fold((0.0, 0), |(s, n), (_, &(s2, n2))| (s + s2, n + n2))
        };
        if let Some(r) = self.spent.get(&(collective, procs)).copied().and_then(rate) {
            return Some(r);
        }
        let own: Vec<(u32, f64)> = self
            .spent
            .iter()
            .filter(|((c, _), _)| *c == collective)
            .filter_map(|((_, p), &v)| rate(v).map(|r| (*p, r)))
            .collect();
        if let Some(&(p, r)) = own.iter().min_by_key(|(p, _)| p.abs_diff(procs)) {
            return Some(r * f64::from(procs) / f64::from(p));
        }
        rate(sum(&|(_, p)| *p == procs)).or_else(|| rate(sum(&|_| true)))
    }

    /// Seconds the `points` (collective, communicator size) would take.
    pub fn estimate(&self, collective: Collective, points: &[u32]) -> Option<f64> {
        points
            .iter()
            .map(|&p| self.per_point(collective, p))
            .sum::<Option<f64>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Algorithm, Arrival, Impl, Mapping, Measurement};

    fn config(procs: u32, msg_bytes: u64) -> Config {
        Config {
            procs,
            nodes: 1,
            ppn: procs,
            mapping: Mapping::Core,
            msg_bytes,
            imbalance: 0.0,
            arrival: Arrival::Barrier,
        }
    }

    fn candidate(algorithm: Algorithm, segsize: Option<u64>, fanout: Option<u32>) -> Candidate {
        Candidate {
            algorithm,
            segsize,
            fanout,
            implementation: Impl::Ompi,
        }
    }

    fn grid() -> Vec<(Config, Candidate)> {
        let mut points = Vec::new();
        for p in [2, 4] {
            for m in [1, 1024] {
                points.push((config(p, m), Candidate::DEFAULT));
                points.push((config(p, m), candidate(Algorithm::Linear, None, None)));
                for s in [8192, 0, 65536] {
                    points.push((config(p, m), candidate(Algorithm::Pipeline, Some(s), None)));
                    for f in [Some(4), None] {
                        points.push((config(p, m), candidate(Algorithm::Chain, Some(s), f)));
                    }
                }
            }
        }
        points
    }

    #[test]
    fn the_base_is_each_algorithm_unsegmented_with_its_default_fanout() {
        let points = grid();
        let is_base = base(&points);
        let chosen: BTreeSet<(u32, u64, Candidate)> = points
            .iter()
            .zip(&is_base)
            .filter(|(_, &b)| b)
            .map(|((c, k), _)| (c.procs, c.msg_bytes, *k))
            .collect();
        let mut expected = BTreeSet::new();
        for p in [2, 4] {
            for m in [1, 1024] {
                expected.insert((p, m, Candidate::DEFAULT));
                expected.insert((p, m, candidate(Algorithm::Linear, None, None)));
                expected.insert((p, m, candidate(Algorithm::Pipeline, Some(0), None)));
                expected.insert((p, m, candidate(Algorithm::Chain, Some(0), None)));
            }
        }
        assert_eq!(chosen, expected);
        assert_eq!(order(&points), [4, 2]);
    }

    #[test]
    fn explored_where_every_base_point_is_measured() {
        let points = grid();
        let is_base = base(&points);
        let measure = |keep: &dyn Fn(&Config, &Candidate, bool) -> bool| {
            let rows: Vec<Measurement> = points
                .iter()
                .zip(&is_base)
                .filter(|((c, k), &b)| keep(c, k, b))
                .map(|((c, k), _)| Measurement {
                    config: *c,
                    candidate: *k,
                    time_us: 10.0,
                    time_min_us: None,
                    time_max_us: None,
                    ci95_us: None,
                    reps: None,
                    rows: 1,
                })
                .collect();
            Dataset::from_rows(rows, Default::default())
        };
        // Every base point at 4 ranks, and one more candidate at 1 B; at 2
        // ranks only `default`.
        let data = measure(&|c, k, b| {
            (c.procs == 4 && (b || (c.msg_bytes == 1 && k.segsize == Some(8192)))) || k.is_default()
        });
        let covered = covered(&points, &is_base, &data);
        assert_eq!(covered.len(), 2);
        let (four, two) = (&covered[0], &covered[1]);
        assert_eq!(four.procs, 4);
        assert!(four.explored(), "{four:?}");
        assert_eq!((four.base_measured, four.base), (8, 8));
        assert_eq!(four.sizes, 2);
        // 4 base candidates at each size, 1 B also a segmented pipeline's
        // and two segmented chains' (of 11 candidates a size).
        assert_eq!(four.measured, (4, 4 + 3));
        assert_eq!(four.grid, 11);
        assert!(!two.explored(), "{two:?}");
        assert_eq!((two.base_measured, two.base), (2, 8));
        assert_eq!(two.measured, (1, 1));
        assert_eq!(two.explored_to, None);
        let largest = points.iter().map(|(c, _)| c.msg_bytes).max();
        assert_eq!(four.explored_to, largest);
        // Every base point at 2 ranks at the smallest size only: explored up
        // to it.
        let partly = measure(&|c, _, b| b && (c.procs == 4 || c.msg_bytes == 1));
        let two = &super::covered(&points, &is_base, &partly)[1];
        assert!(!two.explored(), "{two:?}");
        assert_eq!(two.explored_to, Some(1));
    }

    #[test]
    fn exploring_disturbed_where_validation_met_a_quieter_state() {
        let mut costs = Costs::default();
        let validated = BTreeMap::from([(2, 0.2), (4, 0.3)]);
        assert_eq!(
            costs.explored_disturbed(&validated),
            None,
            "nothing explored"
        );
        // Two campaigns at 2 ranks, one of them in the quiet state; at 4
        // ranks 0.40 against 0.3, within the 1.5x.
        costs.probed(2, 0.45);
        costs.probed(2, 0.21);
        costs.probed(4, 0.40);
        assert_eq!(costs.explored_disturbed(&validated), None);
        // Disturbed at both sizes (2.25x and 1.67x): the wider reported,
        // then, once 2 ranks met the quiet state, 4 ranks.
        let mut disturbed = Costs::default();
        disturbed.probed(4, 0.5);
        disturbed.probed(2, 0.45);
        assert_eq!(
            disturbed.explored_disturbed(&validated),
            Some((2, 0.45, 0.2)),
            "the widest apart"
        );
        disturbed.probed(2, 0.2);
        assert_eq!(
            disturbed.explored_disturbed(&validated),
            Some((4, 0.5, 0.3))
        );
        // A size explored only while disturbed: said where validation
        // timed it, and nothing where validation did not.
        costs.probed(8, 1.0);
        assert_eq!(
            costs.explored_disturbed(&BTreeMap::from([(8, 0.1)])),
            Some((8, 1.0, 0.1))
        );
        assert_eq!(costs.explored_disturbed(&BTreeMap::from([(16, 0.1)])), None);
    }

    #[test]
    fn costs_are_taken_from_the_nearest_measurement() {
        let mut costs = Costs::default();
        assert_eq!(costs.per_point(Collective::Bcast, 8), None);
        costs.add(Collective::Bcast, 8, 4.0, 40);
        costs.add(Collective::Reduce, 4, 1.0, 5);
        assert_eq!(costs.per_point(Collective::Bcast, 8), Some(0.1));
        // Bcast at 4 ranks: half of what 8 ranks cost a point.
        assert_eq!(costs.per_point(Collective::Bcast, 4), Some(0.05));
        // Allreduce, never measured: every collective's at its size.
        assert_eq!(costs.per_point(Collective::Allreduce, 4), Some(0.2));
        // Nothing at 2 ranks: every point's.
        let all = 5.0 / 45.0;
        assert_eq!(costs.per_point(Collective::Allreduce, 2), Some(all));
        assert_eq!(costs.estimate(Collective::Bcast, &[8, 8, 4]), Some(0.25));
    }
}
