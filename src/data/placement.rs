//! Where ranks run: the `mapping` column and the rank → node function that the
//! simulator, the analytical models and the harness share.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Rank placement as recorded in the CSV. `core` and `socket` both fill a node
/// before the next (block across nodes) but differ inside a node, so they stay
/// distinct configurations; `node` deals ranks round-robin over nodes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Mapping {
    /// Consecutive ranks on consecutive cores (`core`, alias `block`).
    #[default]
    Core,
    /// Ranks alternate between the sockets of a node, nodes filled in turn.
    Socket,
    /// Ranks dealt round-robin over nodes (`node`, alias `cyclic`).
    Node,
}

impl Mapping {
    pub const ALL: [Mapping; 3] = [Mapping::Core, Mapping::Socket, Mapping::Node];

    pub fn name(self) -> &'static str {
        match self {
            Mapping::Core => "core",
            Mapping::Socket => "socket",
            Mapping::Node => "node",
        }
    }

    /// How ranks are spread over nodes.
    pub fn node_order(self) -> NodeOrder {
        match self {
            Mapping::Core | Mapping::Socket => NodeOrder::Block,
            Mapping::Node => NodeOrder::Cyclic,
        }
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mapping {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "core" | "block" => Ok(Mapping::Core),
            "socket" => Ok(Mapping::Socket),
            "node" | "cyclic" => Ok(Mapping::Node),
            _ => Err(format!("unknown mapping {s:?}")),
        }
    }
}

/// Order in which ranks fill nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeOrder {
    /// Fill node 0 with `ppn` ranks, then node 1, ...
    Block,
    /// Rank r on node r mod nodes.
    Cyclic,
}

/// Rank → node for one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub procs: u32,
    pub nodes: u32,
    pub ppn: u32,
    pub order: NodeOrder,
}

impl Placement {
    /// A placement of `procs` ranks over `nodes` nodes, at most `ppn` per node.
    /// Returns an error when the numbers cannot describe a real job.
    pub fn new(procs: u32, nodes: u32, ppn: u32, order: NodeOrder) -> Result<Self, String> {
        if procs == 0 || nodes == 0 || ppn == 0 {
            return Err("procs, nodes and ppn must all be at least 1".into());
        }
        if nodes > procs {
            return Err(format!("{nodes} nodes cannot hold only {procs} ranks"));
        }
        if u64::from(nodes) * u64::from(ppn) < u64::from(procs) {
            return Err(format!(
                "{nodes} nodes with at most {ppn} ranks each cannot hold {procs} ranks"
            ));
        }
        if ppn > procs {
            return Err(format!(
                "ppn {ppn} exceeds the {procs} ranks of the communicator"
            ));
        }
        Ok(Placement {
            procs,
            nodes,
            ppn,
            order,
        })
    }

    /// Everything on one node.
    pub fn single_node(procs: u32) -> Self {
        Placement {
            procs,
            nodes: 1,
            ppn: procs.max(1),
            order: NodeOrder::Block,
        }
    }

    /// The node that runs `rank`.
    pub fn node_of(&self, rank: u32) -> u32 {
        match self.order {
            NodeOrder::Block => rank / self.ppn,
            NodeOrder::Cyclic => rank % self.nodes,
        }
    }

    /// The position of `rank` among the ranks of its node (its core, when
    /// ranks are bound in order).
    pub fn slot_of(&self, rank: u32) -> u32 {
        match self.order {
            NodeOrder::Block => rank % self.ppn,
            NodeOrder::Cyclic => rank / self.nodes,
        }
    }

    /// How many doublings apart two ranks sit: log2 of the distance
    /// between their slots on one node (0 for neighbours), or between
    /// their nodes. Nearby cores share caches and memory controllers, so
    /// this is a machine-independent proxy for how far a copy travels.
    pub fn doublings_apart(&self, a: u32, b: u32) -> f64 {
        let (x, y) = if self.crosses_nodes(a, b) {
            (self.node_of(a), self.node_of(b))
        } else {
            (self.slot_of(a), self.slot_of(b))
        };
        f64::from(x.abs_diff(y).max(1)).log2()
    }

    /// Whether a message from `a` to `b` crosses the network.
    pub fn crosses_nodes(&self, a: u32, b: u32) -> bool {
        self.node_of(a) != self.node_of(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_fills_nodes_in_turn() {
        let p = Placement::new(10, 3, 4, NodeOrder::Block).unwrap();
        let nodes: Vec<u32> = (0..10).map(|r| p.node_of(r)).collect();
        assert_eq!(nodes, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
        assert!(p.crosses_nodes(3, 4));
        assert!(!p.crosses_nodes(4, 7));
        assert_eq!(p.slot_of(6), 2);
        assert_eq!(p.doublings_apart(4, 5), 0.0);
        assert_eq!(p.doublings_apart(4, 7), 3f64.log2());
        assert_eq!(p.doublings_apart(0, 9), 1.0, "nodes 0 and 2");
    }

    #[test]
    fn cyclic_deals_round_robin() {
        let p = Placement::new(7, 2, 4, NodeOrder::Cyclic).unwrap();
        let nodes: Vec<u32> = (0..7).map(|r| p.node_of(r)).collect();
        assert_eq!(nodes, [0, 1, 0, 1, 0, 1, 0]);
        assert_eq!(p.slot_of(5), 2);
        assert_eq!(p.doublings_apart(0, 4), 1.0, "slots 0 and 2 of node 0");
    }

    #[test]
    fn impossible_jobs_are_rejected() {
        assert!(Placement::new(8, 2, 3, NodeOrder::Block).is_err());
        assert!(Placement::new(2, 3, 1, NodeOrder::Block).is_err());
        assert!(Placement::new(4, 1, 5, NodeOrder::Block).is_err());
        assert!(Placement::new(0, 1, 1, NodeOrder::Block).is_err());
    }

    #[test]
    fn mapping_spellings() {
        assert_eq!("block".parse(), Ok(Mapping::Core));
        assert_eq!("CYCLIC".parse(), Ok(Mapping::Node));
        assert_eq!("socket".parse(), Ok(Mapping::Socket));
        assert_eq!(Mapping::Socket.node_order(), NodeOrder::Block);
        assert!("numa".parse::<Mapping>().is_err());
    }
}
