//! `arrival`: the arrival-aware broadcast of Patarasuk & Yuan (their
//! arrival_b, papers/patarasuk-yuan-bcast-arrival-patterns.md). Each
//! receiver announces its arrival to the root with a small control message;
//! the root repeatedly takes everyone who has announced since its last round
//! and broadcasts to that group down a pipelined chain, the group list (the
//! header) sent ahead of the data so each member knows its neighbours.
//!
//! Unlike the other algorithms there is no fixed schedule: the groups depend
//! on when ranks arrive. This module holds what is fixed once they are
//! known — the root's grouping rule, the header, every rank's data
//! operations (Open MPI's pipeline over the group's chain) — so the
//! simulator can prove delivery for any arrival order; `bench::exec_arrival`
//! runs it over MPI.

use super::{Op, Schedule, Spec};
use crate::data::Algorithm;

/// One round: the root, then the receivers in the order they announced.
/// This chain is also the header the root sends ahead of the data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group(Vec<u32>);

impl Group {
    pub fn new(root: u32, receivers: &[u32]) -> Group {
        Group(
            std::iter::once(root)
                .chain(receivers.iter().copied())
                .collect(),
        )
    }

    /// Reads a header `me` received from `procs` ranks' root; an error if it
    /// is not a chain of distinct ranks with `me` among the receivers.
    pub fn from_header(header: Vec<u32>, me: u32, procs: u32) -> Result<Group, String> {
        let mut seen = vec![false; procs as usize];
        for &r in &header {
            if r >= procs || std::mem::replace(&mut seen[r as usize], true) {
                return Err(format!("header {header:?}: rank {r} invalid or repeated"));
            }
        }
        if !header.iter().skip(1).any(|&r| r == me) {
            return Err(format!("header {header:?} does not list receiver {me}"));
        }
        Ok(Group(header))
    }

    pub fn header(&self) -> &[u32] {
        &self.0
    }

    pub fn receivers(&self) -> &[u32] {
        &self.0[1..]
    }

    /// The rank `rank` passes the header and the data to.
    pub fn next(&self, rank: u32) -> Option<u32> {
        let i = self.0.iter().position(|&r| r == rank)?;
        self.0.get(i + 1).copied()
    }

    /// `rank`'s data operations: Open MPI's pipeline (one chain, segments
    /// of `segsize`) over the positions in the chain, renamed to ranks.
    pub fn ops(&self, rank: u32, msg_bytes: u64, segsize: u64) -> Vec<Op> {
        let Some(position) = self.0.iter().position(|&r| r == rank) else {
            return Vec::new();
        };
        let chain = Schedule::new(Spec {
            collective: crate::data::Collective::Bcast,
            algorithm: Algorithm::Pipeline,
            procs: self.0.len() as u32,
            root: 0,
            msg_bytes,
            segsize,
            fanout: None,
        });
        // A pipeline over ≥ 1 ranks rooted at 0 always has a schedule.
        chain.map_or_else(
            |_| Vec::new(),
            |s| {
                s.ops(position as u32)
                    .into_iter()
                    .map(|op| op.with_peer(|p| self.0[p as usize]))
                    .collect()
            },
        )
    }
}

/// The root's bookkeeping: who announced and was not served yet.
#[derive(Clone, Debug)]
pub struct Waiting {
    root: u32,
    announced: Vec<bool>,
    arrived: Vec<u32>,
    unserved: u32,
}

impl Waiting {
    pub fn new(procs: u32, root: u32) -> Waiting {
        Waiting {
            root,
            announced: vec![false; procs as usize],
            arrived: Vec::new(),
            unserved: procs.saturating_sub(1),
        }
    }

    /// Records an arrival announcement.
    pub fn arrived(&mut self, rank: u32) -> Result<(), String> {
        match self.announced.get_mut(rank as usize) {
            Some(seen) if !*seen && rank != self.root => {
                *seen = true;
                self.arrived.push(rank);
                Ok(())
            }
            _ => Err(format!(
                "unexpected arrival announcement from rank {rank} (root {}, {} ranks)",
                self.root,
                self.announced.len()
            )),
        }
    }

    /// Everyone who arrived since the last round, in order of arrival.
    pub fn take(&mut self) -> Option<Group> {
        if self.arrived.is_empty() {
            return None;
        }
        self.unserved -= self.arrived.len() as u32;
        Some(Group::new(self.root, &std::mem::take(&mut self.arrived)))
    }

    /// Whether every receiver has been served.
    pub fn done(&self) -> bool {
        self.unserved == 0
    }
}

/// One broadcast's rounds, for the simulator (which runs them as
/// [`crate::sim::Programs`]): the root runs them in turn, each receiver only
/// its own.
#[derive(Clone, Debug)]
pub struct Rounds {
    pub procs: u32,
    pub root: u32,
    pub msg_bytes: u64,
    pub segsize: u64,
    pub groups: Vec<Group>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Placement;
    use crate::sim::{simulate, CostModel};
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    /// Runs the root's rule over announcements arriving at `times`: each
    /// round takes whoever announced by the time the previous one ended and
    /// lasts one unit per member.
    fn rounds(procs: u32, root: u32, times: &[(f64, u32)]) -> Vec<Group> {
        let mut waiting = Waiting::new(procs, root);
        let mut queue = times.to_vec();
        queue.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut now, mut next, mut groups) = (0.0, 0, Vec::new());
        while !waiting.done() {
            // Block for the first announcement, then drain what is there.
            now = f64::max(now, queue[next].0);
            while next < queue.len() && queue[next].0 <= now {
                waiting.arrived(queue[next].1).unwrap();
                next += 1;
            }
            let g = waiting.take().unwrap();
            now += g.header().len() as f64;
            groups.push(g);
        }
        groups
    }

    #[test]
    fn every_arrival_order_delivers() {
        let mut rng = StdRng::seed_from_u64(7);
        for trial in 0..300 {
            let procs = rng.random_range(1..=24u32);
            let root = rng.random_range(0..procs);
            let mut receivers: Vec<u32> = (0..procs).filter(|&r| r != root).collect();
            receivers.shuffle(&mut rng);
            let spread = [0.0, 2.0, 50.0][trial % 3];
            let times: Vec<(f64, u32)> = receivers
                .iter()
                .map(|&r| (rng.random::<f64>() * spread, r))
                .collect();
            let groups = rounds(procs, root, &times);
            // A partition of the receivers, each group in arrival order.
            let mut served: Vec<u32> = groups.iter().flat_map(|g| g.receivers().to_vec()).collect();
            let mut by_time = times.clone();
            by_time.sort_by(|a, b| a.0.total_cmp(&b.0));
            assert_eq!(served, by_time.iter().map(|t| t.1).collect::<Vec<_>>());
            served.sort();
            assert_eq!(served, {
                let mut r = receivers.clone();
                r.sort();
                r
            });
            for (msg, seg) in [(0, 0), (1, 0), (1000, 0), (1000, 64), (4097, 1024)] {
                let r = Rounds {
                    procs,
                    root,
                    msg_bytes: msg,
                    segsize: seg,
                    groups: groups.clone(),
                };
                let nodes = rng.random_range(1..=procs.min(3));
                let placement = Placement::new(
                    procs,
                    nodes,
                    procs.div_ceil(nodes),
                    crate::data::NodeOrder::Block,
                )
                .unwrap();
                simulate(&r, &placement, &CostModel::UNIT_STEPS).unwrap_or_else(|e| {
                    panic!("p={procs} root={root} m={msg} seg={seg} groups={groups:?}: {e}")
                });
            }
        }
    }

    #[test]
    fn simultaneous_arrivals_form_one_chain() {
        let times: Vec<(f64, u32)> = [3, 1, 2].iter().map(|&r| (0.0, r)).collect();
        let groups = rounds(4, 0, &times);
        assert_eq!(groups, [Group::new(0, &[3, 1, 2])]);
        let g = &groups[0];
        assert_eq!(g.next(0), Some(3));
        assert_eq!(g.next(2), None);
        // The chain's first receiver gets everything from the root, the
        // last from its predecessor.
        let first = g.ops(3, 100, 0);
        assert!(first
            .iter()
            .any(|op| matches!(op, Op::Irecv { peer: 0, .. })));
        assert!(first
            .iter()
            .any(|op| matches!(op, Op::Isend { peer: 1, .. })));
        let last = g.ops(2, 100, 0);
        assert!(last.iter().all(|op| !matches!(op, Op::Isend { .. })));
        assert!(g.ops(5, 100, 0).is_empty(), "not a member");
    }

    #[test]
    fn late_ranks_get_rounds_of_their_own() {
        let times = [(0.0, 1), (0.0, 2), (100.0, 3), (200.0, 4)];
        let groups = rounds(5, 0, &times);
        assert_eq!(
            groups,
            [
                Group::new(0, &[1, 2]),
                Group::new(0, &[3]),
                Group::new(0, &[4])
            ]
        );
    }

    #[test]
    fn bad_headers_and_announcements_are_refused() {
        assert!(Group::from_header(vec![0, 2, 1], 1, 3).is_ok());
        assert!(Group::from_header(vec![0, 2, 2], 2, 3).is_err());
        assert!(Group::from_header(vec![0, 2], 1, 3).is_err());
        assert!(Group::from_header(vec![0, 5], 5, 3).is_err());
        let mut w = Waiting::new(3, 0);
        assert!(w.arrived(0).is_err(), "the root does not announce");
        assert!(w.arrived(1).is_ok());
        assert!(w.arrived(1).is_err());
        assert!(w.arrived(3).is_err());
        assert_eq!(w.take(), Some(Group::new(0, &[1])));
        assert_eq!(w.take(), None);
        assert!(!w.done());
    }
}
