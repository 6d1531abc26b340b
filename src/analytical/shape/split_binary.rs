//! Split-binary's stage structure in closed form (the simulation is the
//! definition; the tests compare both). With unit steps and eager sends a
//! rank's timing depends only on when its segments arrive:
//!
//! - the root sends segment k of half j to its child j at step 2k + j (one
//!   blocking send after the other; with a single child, p = 2, at step k);
//! - every other rank receives segment k of its half at F + 2k, F being the
//!   arrival of segment 0, and forwards it at once to its children in turn
//!   (child j at F + 2k + j): one or two blocking sends per two steps, so it
//!   never falls behind and child j's F is the parent's F + j + 1;
//! - after its tree part (its last segment received and forwarded) a rank
//!   sends its whole half to its exchange partner; with an even number of
//!   ranks the root sends the second half to the last rank instead.
//!
//! Each send is a stage entry of one child. The sends of a rank to one child
//! are a progression in steps, so a shape costs a sweep over the distinct
//! progressions of a job, never a simulation.

use super::{breadth_first, Fanout, Shape};
use crate::data::{Algorithm, Placement};
use crate::schedule::{Schedule, Segments, Spec};

/// A job's split-binary sends, without the message: which ranks send what,
/// when, relative to the segment counts of the halves.
pub(super) struct SplitTree {
    /// 2, or 1 when the root has one child.
    stride: u64,
    /// Tree sends, one per distinct (F + j, half, crosses nodes): segment k
    /// of `half` goes at step F + j + stride·k.
    sends: Vec<(u64, usize, bool)>,
    /// Exchange sends of non-root ranks, one per distinct (F + children,
    /// half, crosses nodes): the whole half at step F + children +
    /// stride·(segments of the half − 1).
    swaps: Vec<(u64, usize, bool)>,
    /// With even p, whether the root's send of the second half to the last
    /// rank crosses nodes; it leaves after all the root's tree sends.
    root_swap: Option<bool>,
    /// How many halves the root sends down the tree (its children).
    root_children: usize,
}

impl SplitTree {
    /// The sends of split-binary on `placement` (root 0); `None` for fewer
    /// than two ranks.
    pub(super) fn of(placement: &Placement) -> Option<SplitTree> {
        let p = placement.procs;
        let spec = Spec {
            algorithm: Algorithm::SplitBinary,
            procs: p,
            root: 0,
            msg_bytes: 2, // the smallest message it splits
            segsize: 0,
            fanout: None,
        };
        let schedule = Schedule::new(spec).ok()?;
        let tree = schedule.tree()?;
        let root = tree.root;
        let root_children = tree.children[root as usize].len().min(2);
        if root_children == 0 {
            return None;
        }
        let stride = root_children as u64;
        // A non-root rank's half: odd virtual ranks carry the first.
        let half = |rank: u32| ((rank + p - root) % p + 1) as usize % 2;
        let last = (root + p - 1) % p;
        let mut first_arrival = vec![0u64; p as usize];
        let (mut sends, mut swaps) = (Vec::new(), Vec::new());
        for (_, rank) in breadth_first(tree) {
            let f = first_arrival[rank as usize];
            let children = &tree.children[rank as usize];
            for (j, &child) in children.iter().enumerate().take(2) {
                let carried = if rank == root { j } else { half(rank) };
                let step = f + j as u64;
                sends.push((step, carried, placement.crosses_nodes(rank, child)));
                first_arrival[child as usize] = step + 1;
            }
            if rank == root || (p % 2 == 0 && rank == last) {
                continue;
            }
            let h = half(rank);
            let partner = if h == 0 {
                (rank + 1) % p
            } else {
                (rank + p - 1) % p
            };
            let done = f + children.len() as u64;
            swaps.push((done, h, placement.crosses_nodes(rank, partner)));
        }
        for list in [&mut sends, &mut swaps] {
            list.sort_unstable();
            list.dedup();
        }
        Some(SplitTree {
            stride,
            sends,
            swaps,
            root_swap: (p % 2 == 0).then(|| placement.crosses_nodes(root, last)),
            root_children,
        })
    }

    /// The shape of a broadcast of these `halves`.
    pub(super) fn shape(&self, halves: &[Segments; 2]) -> Option<Shape> {
        let n = halves.map(|h| h.count());
        if n.contains(&0) {
            return None;
        }
        let one = |cross: bool, bytes: u64| Fanout {
            children: 1,
            cross_node: u32::from(cross),
            bytes,
        };
        // (first step, stride, count, fan-out)
        let mut runs: Vec<(u64, u64, u64, Fanout)> = Vec::new();
        for &(step, h, cross) in &self.sends {
            let last = n[h] - 1;
            if last > 0 {
                runs.push((step, self.stride, last, one(cross, halves[h].span(0).len())));
            }
            let bytes = halves[h].span(last).len();
            runs.push((step + self.stride * last, 1, 1, one(cross, bytes)));
        }
        for &(done, h, cross) in &self.swaps {
            let step = done + self.stride * (n[h] - 1);
            runs.push((step, 1, 1, one(cross, halves[h].total)));
        }
        if let Some(cross) = self.root_swap {
            let step = n[..self.root_children].iter().sum();
            runs.push((step, 1, 1, one(cross, halves[1].total)));
        }
        stages(&runs)
    }
}

/// The stages of send runs (first step, stride 1 or 2, count, fan-out): a
/// sweep over the steps where some run starts or ends, within which each
/// run covers all steps, or every other one (so even and odd steps are
/// counted apart). Steps in between with no send are empty stages, as the
/// simulation has them.
fn stages(runs: &[(u64, u64, u64, Fanout)]) -> Option<Shape> {
    let end =
        |&(first, stride, count, _): &(u64, u64, u64, Fanout)| first + stride * (count - 1) + 1;
    let mut cuts: Vec<u64> = runs.iter().flat_map(|r| [r.0, end(r)]).collect();
    cuts.push(0);
    cuts.sort_unstable();
    cuts.dedup();
    // Steps of parity `odd` in [0, x).
    let below = |x: u64, odd: u64| (x + 1 - odd) / 2;
    let mut stages = Vec::new();
    for window in cuts.windows(2) {
        let (from, to) = (window[0], window[1]);
        for odd in [0, 1] {
            let count = below(to, odd) - below(from, odd);
            if count == 0 {
                continue;
            }
            let fanouts = runs
                .iter()
                .filter(|r| r.0 <= from && to <= end(r))
                .filter(|r| r.1 == 1 || r.0 % 2 == odd)
                .map(|r| r.3)
                .collect();
            stages.push((u32::try_from(count).ok()?, fanouts));
        }
    }
    Some(Shape::canonical(stages))
}
