//! MPICH's collective-selection JSON (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`):
//! a tree of conditions in which the first true key of an object wins, so
//! key order matters (serde_json's map would sort them; this module keeps
//! its own ordered tree). Open MPI's algorithms map to MPICH's where it has
//! an equivalent; `default` becomes MPICH's own shipped bcast rule for that
//! range. Not checked against a real MPICH here.

use crate::data::{Algorithm, Candidate};
use crate::decision::DecisionTable;
use crate::error::{Error, Result};
use std::fmt::Write;

/// A JSON object whose values are objects, in insertion order.
#[derive(Clone, Debug, PartialEq, Default)]
struct Node(Vec<(String, Node)>);

impl Node {
    fn with(mut self, key: impl Into<String>, value: Node) -> Node {
        self.0.push((key.into(), value));
        self
    }

    fn write(&self, out: &mut String, indent: usize) {
        if self.0.is_empty() {
            out.push_str("{}");
            return;
        }
        out.push_str("{\n");
        for (i, (k, v)) in self.0.iter().enumerate() {
            let key = serde_json::to_string(k).unwrap_or_default();
            let _ = write!(out, "{:w$}{key}: ", "", w = indent + 2);
            v.write(out, indent + 2);
            out.push_str(if i + 1 < self.0.len() { ",\n" } else { "\n" });
        }
        let _ = write!(out, "{:w$}}}", "", w = indent);
    }
}

pub fn render(tables: &[DecisionTable]) -> Result<String> {
    let mut by_comm = Node::default();
    for (i, t) in tables.iter().enumerate() {
        // Each job size covers the sizes up to it; the largest all the rest.
        let key = if i + 1 == tables.len() {
            "comm_size=any".to_string()
        } else {
            format!("comm_size<={}", t.job.procs)
        };
        by_comm = by_comm.with(key, size_tree(t)?);
    }
    let doc = Node::default().with(
        "collective=bcast",
        Node::default().with("comm_type=intra", by_comm).with(
            "comm_type=inter",
            leaf("MPIR_Bcast_inter_remote_send_local_bcast", &[]),
        ),
    );
    let mut s = String::new();
    doc.write(&mut s, 0);
    s.push('\n');
    Ok(s)
}

/// `avg_msg_size<=X` conditions in increasing order, the last one `any`.
fn size_tree(t: &DecisionTable) -> Result<Node> {
    let p = t.job.procs;
    // (last size covered, None = no bound; leaf), in size order.
    let mut pieces: Vec<(Option<u64>, Node)> = Vec::new();
    let mut push = |end: Option<u64>, value: Node| match pieces.last_mut() {
        Some((last_end, last)) if *last == value => *last_end = end,
        _ => pieces.push((end, value)),
    };
    let rules = t.rules();
    for (i, (from, c)) in rules.iter().enumerate() {
        let to = rules.get(i + 1).map(|(next, _)| next - 1);
        if c.algorithm != Algorithm::Default {
            push(to, algorithm(c, p)?);
            continue;
        }
        // MPICH's own rule, cut to [from, to].
        let mut lo = 0;
        for (upto, name) in mpich_default(p) {
            let start = lo.max(*from);
            let end = match (upto, to) {
                (Some(u), Some(t)) => Some(u.min(t)),
                (u, t) => u.or(t),
            };
            if end.is_none_or(|e| e >= start) {
                push(end, leaf(name, &[]));
            }
            match upto {
                Some(u) => lo = u + 1,
                None => break,
            }
        }
    }
    let last = pieces.len().saturating_sub(1);
    Ok(pieces
        .into_iter()
        .enumerate()
        .fold(Node::default(), |tree, (i, (end, value))| {
            let key = match end {
                Some(end) if i < last => format!("avg_msg_size<={end}"),
                _ => "avg_msg_size=any".to_string(),
            };
            tree.with(key, value)
        }))
}

/// MPICH's shipped bcast choice for `p` ranks: (largest size, algorithm).
fn mpich_default(p: u32) -> Vec<(Option<u64>, &'static str)> {
    const BINOMIAL: &str = "MPIR_Bcast_intra_binomial";
    const RING: &str = "MPIR_Bcast_intra_scatter_ring_allgather";
    if p < 8 {
        vec![(None, BINOMIAL)]
    } else if p.is_power_of_two() {
        vec![
            (Some(12288), BINOMIAL),
            (
                Some(524288),
                "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
            ),
            (None, RING),
        ]
    } else {
        vec![(Some(12288), BINOMIAL), (None, RING)]
    }
}

fn leaf(name: &str, params: &[(&str, String)]) -> Node {
    let inner = params.iter().fold(Node::default(), |n, (k, v)| {
        n.with(format!("{k}={v}"), Node::default())
    });
    Node::default().with(format!("algorithm={name}"), inner)
}

/// Whether MPICH runs the same schedule as this candidate (`default` is
/// MPICH's own choice): what `predict --format mpich-json` decides among.
pub fn has_equivalent(c: &Candidate) -> bool {
    !matches!(
        c.algorithm,
        Algorithm::Chain | Algorithm::SplitBinary | Algorithm::Arrival
    )
}

/// MPICH's equivalent of a candidate, or an error when it has none.
fn algorithm(c: &Candidate, p: u32) -> Result<Node> {
    let tree = |tree_type: &str, k: u32| match c.segsize.unwrap_or(0) {
        0 => leaf(
            "MPIR_Bcast_intra_tree",
            &[
                ("tree_type", tree_type.into()),
                ("k", k.to_string()),
                ("is_non_blocking", "1".into()),
            ],
        ),
        seg => leaf(
            "MPIR_Bcast_intra_pipelined_tree",
            &[
                ("tree_type", tree_type.into()),
                ("k", k.to_string()),
                ("is_non_blocking", "1".into()),
                ("chunk_size", seg.to_string()),
                ("recv_pre_posted", "0".into()),
            ],
        ),
    };
    Ok(match c.algorithm {
        // sbbt is MPICH's binomial: blocking and unsegmented.
        Algorithm::Binomial | Algorithm::Sbbt => leaf("MPIR_Bcast_intra_binomial", &[]),
        Algorithm::ScatterAllgather => {
            leaf("MPIR_Bcast_intra_scatter_recursive_doubling_allgather", &[])
        }
        Algorithm::ScatterAllgatherRing => leaf("MPIR_Bcast_intra_scatter_ring_allgather", &[]),
        Algorithm::Pipeline => tree("kary", 1),
        Algorithm::Binary => tree("kary", 2),
        Algorithm::Linear => tree("kary", p.saturating_sub(1).max(1)),
        Algorithm::Knomial => tree(
            "knomial_1",
            c.fanout.unwrap_or(crate::schedule::DEFAULT_FANOUT),
        ),
        Algorithm::Chain | Algorithm::SplitBinary | Algorithm::Default | Algorithm::Arrival => {
            return Err(Error::Other(format!(
                "the decision picks '{}', which MPICH does not have (only candidates with an \
                 MPICH equivalent should have been offered)",
                c.algorithm
            )))
        }
    })
}
