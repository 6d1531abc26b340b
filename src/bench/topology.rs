//! Placement detected from the running job, never assumed: which ranks share
//! a node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), hence nodes, ppn
//! and whether ranks fill nodes in blocks or are dealt round-robin.

use crate::data::Mapping;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

/// Nodes, ranks on the most loaded node, and mapping of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub nodes: u32,
    pub ppn: u32,
    pub mapping: Mapping,
}

/// Collective over `world`: every rank learns the job's placement.
pub fn detect(world: &SimpleCommunicator) -> Result<Detected, String> {
    classify(&node_names(world))
}

/// Collective over `world`: each rank's node, named by the lowest world
/// rank on it, in rank order.
pub fn node_names(world: &SimpleCommunicator) -> Vec<i32> {
    let node = world.split_shared(world.rank());
    let mut leader = world.rank();
    node.process_at_rank(0).broadcast_into(&mut leader);
    let mut leaders = vec![0i32; world.size() as usize];
    world.all_gather_into(&leader, &mut leaders[..]);
    leaders
}

/// The CPUs this process may run on, as a bit mask of 64 words (CPUs
/// 0-4095), from Linux's `/proc/self/status`; all zero elsewhere.
pub fn allowed_cpus() -> Vec<u64> {
    let mut mask = vec![0u64; 64];
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or_default();
    for range in list.trim().split(',').filter(|r| !r.is_empty()) {
        let (a, b) = range.split_once('-').unwrap_or((range, range));
        let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) else {
            continue;
        };
        for cpu in a..=b.min(mask.len() * 64 - 1) {
            mask[cpu / 64] |= 1 << (cpu % 64);
        }
    }
    mask
}

/// The world ranks of a `procs`-rank sub-communicator (ascending, rank 0
/// always in): with `Mapping::Core` nodes are filled in turn (the first
/// ranks of each node, node after node); with `Mapping::Node` ranks are
/// dealt over the nodes round-robin. `None` when the job has fewer ranks.
pub fn members(node_names: &[i32], procs: usize, mapping: Mapping) -> Option<Vec<i32>> {
    if procs > node_names.len() {
        return None;
    }
    // Ranks of each node, nodes in order of their first rank.
    let mut nodes: Vec<(i32, Vec<i32>)> = Vec::new();
    for (rank, name) in node_names.iter().enumerate() {
        match nodes.iter_mut().find(|(n, _)| n == name) {
            Some((_, ranks)) => ranks.push(rank as i32),
            None => nodes.push((*name, vec![rank as i32])),
        }
    }
    let mut chosen: Vec<i32> = match mapping {
        Mapping::Core | Mapping::Socket => nodes
            .into_iter()
            .flat_map(|(_, ranks)| ranks)
            .take(procs)
            .collect(),
        Mapping::Node => {
            let deepest = nodes.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
            (0..deepest)
                .flat_map(|i| nodes.iter().filter_map(move |(_, r)| r.get(i).copied()))
                .take(procs)
                .collect()
        }
    };
    chosen.sort_unstable();
    Some(chosen)
}

/// Placement from each rank's node name (any value shared by the ranks of
/// one node), in rank order.
pub fn classify(node_names: &[i32]) -> Result<Detected, String> {
    // Number nodes in order of their first rank.
    let mut names: Vec<i32> = Vec::new();
    let node_of: Vec<usize> = node_names
        .iter()
        .map(|n| match names.iter().position(|m| m == n) {
            Some(i) => i,
            None => {
                names.push(*n);
                names.len() - 1
            }
        })
        .collect();
    let nodes = names.len();
    let mut per_node = vec![0u32; nodes];
    for &n in &node_of {
        per_node[n] += 1;
    }
    let ppn = per_node.iter().copied().max().unwrap_or(0);
    let contiguous = node_of.windows(2).all(|w| w[0] <= w[1]);
    let round_robin = node_of.iter().enumerate().all(|(r, &n)| n == r % nodes);
    let mapping = if contiguous {
        Mapping::Core
    } else if round_robin {
        Mapping::Node
    } else {
        return Err(format!(
            "ranks are placed neither in blocks nor round-robin over the {nodes} nodes \
             (rank -> node: {node_of:?}); launch with --map-by core or --map-by node"
        ));
    };
    Ok(Detected {
        nodes: nodes as u32,
        ppn,
        mapping,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_communicators_fill_nodes_or_deal_over_them() {
        // Two nodes of three ranks, launched by core: 0 1 2 | 3 4 5.
        let names = [0, 0, 0, 3, 3, 3];
        assert_eq!(members(&names, 4, Mapping::Core), Some(vec![0, 1, 2, 3]));
        assert_eq!(members(&names, 4, Mapping::Node), Some(vec![0, 1, 3, 4]));
        assert_eq!(members(&names, 7, Mapping::Core), None);
        // Launched round-robin: 0 2 4 on one node, 1 3 5 on the other.
        let names = [0, 1, 0, 1, 0, 1];
        assert_eq!(members(&names, 3, Mapping::Core), Some(vec![0, 2, 4]));
        assert_eq!(members(&names, 3, Mapping::Node), Some(vec![0, 1, 2]));
        let placed = |ranks: &[i32]| {
            classify(&ranks.iter().map(|&r| names[r as usize]).collect::<Vec<_>>()).unwrap()
        };
        assert_eq!(placed(&[0, 2, 4]).mapping, Mapping::Core);
        assert_eq!(placed(&[0, 1, 2, 3]).mapping, Mapping::Node);
    }

    fn detected(nodes: u32, ppn: u32, mapping: Mapping) -> Result<Detected, String> {
        Ok(Detected {
            nodes,
            ppn,
            mapping,
        })
    }

    #[test]
    fn one_node() {
        assert_eq!(classify(&[0, 0, 0, 0]), detected(1, 4, Mapping::Core));
    }

    #[test]
    fn blocks_even_and_uneven() {
        assert_eq!(classify(&[0, 0, 4, 4]), detected(2, 2, Mapping::Core));
        assert_eq!(classify(&[0, 0, 0, 3, 3]), detected(2, 3, Mapping::Core));
    }

    #[test]
    fn round_robin() {
        assert_eq!(classify(&[0, 1, 0, 1, 0]), detected(2, 3, Mapping::Node));
        assert_eq!(classify(&[0, 1, 2, 0, 1, 2]), detected(3, 2, Mapping::Node));
    }

    #[test]
    fn irregular_is_refused() {
        let err = classify(&[0, 1, 1, 0]).unwrap_err();
        assert!(err.contains("neither in blocks nor round-robin"), "{err}");
    }
}
