//! MPICH's collective-selection JSON (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`):
//! a tree of conditions in which the first true key of an object wins, so
//! key order matters (serde_json's map would sort them; this module keeps
//! its own ordered tree). Open MPI's algorithms map to MPICH's where it has
//! an equivalent; `default` becomes MPICH's own shipped rule for that
//! range.
//!
//! MPICH reads one file for every collective and aborts at `MPI_Init` when
//! a collective it needs has no entry (checked with MPICH 5.0.2), so the
//! file written is the user's own MPICH selection file ([`Base`]) with only
//! the subtrees of the collectives decided (`collective=bcast`,
//! `collective=reduce`, `collective=allreduce`) replaced: every other
//! collective keeps MPICH's choice. MPICH consults this file for a
//! collective only when it is not left to its device layer
//! (`MPIR_CVAR_DEVICE_COLLECTIVES=percoll` and
//! `MPIR_CVAR_<COLLECTIVE>_DEVICE_COLLECTIVE=0`); see the README.

use super::Section;
use crate::collective::Restriction;
use crate::data::{Algorithm, Candidate, Collective, Impl};
use crate::error::{Error, InputError, Result};
use crate::select::decision::DecisionTable;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use std::fmt::Write;
use std::path::Path;

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

/// Read in document order (serde hands map entries over as they come),
/// which a `serde_json::Map` without the `preserve_order` feature would not
/// keep.
impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Node, D::Error> {
        struct Objects;
        impl<'de> Visitor<'de> for Objects {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object whose values are objects, as in MPICH's selection files")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Node>()? {
                    entries.push((key, value));
                }
                Ok(Node(entries))
            }
        }
        deserializer.deserialize_map(Objects)
    }
}

/// The user's MPICH collective-selection file, which the export keeps but
/// for the parts of the collectives decided.
#[derive(Clone, Debug)]
pub struct Base(Node);

impl Base {
    /// Reads the selection file at `path` (`predict --mpich-base`).
    pub fn read(path: &Path) -> std::result::Result<Base, InputError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            InputError::new(
                path,
                format!("cannot read ({e}); expected MPICH's selection JSON"),
            )
        })?;
        Base::parse(path, &text)
    }

    /// Parses a selection file; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> std::result::Result<Base, InputError> {
        let node: Node = serde_json::from_str(text).map_err(|e| {
            InputError::new(path, format!("not an MPICH collective-selection file: {e}"))
                .at(e.line().max(1), e.column().max(1))
        })?;
        let collectives = node
            .0
            .iter()
            .filter(|(k, _)| k.starts_with("collective="))
            .count();
        if collectives == 0 {
            return Err(InputError::new(
                path,
                "no \"collective=...\" entries; expected MPICH's selection file \
                 (maint/tuning/coll/mpir/generic.json in MPICH's sources)",
            )
            .at(1, 1));
        }
        Ok(Base(node))
    }
}

/// One call as MPICH's selection tree sees it: an intra-communicator call
/// by the harness (one thread, MPI_SUM over floats, buffers not in place).
#[derive(Clone, Copy, Debug)]
pub struct Call {
    pub collective: Collective,
    pub procs: u32,
    pub nodes: u32,
    /// Ranks numbered node after node.
    pub node_consecutive: bool,
    pub msg_bytes: u64,
}

/// An algorithm a selection file names, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    /// `MPIR_Bcast_intra_binomial`.
    pub function: String,
    /// `(key, value)` as the file spells them.
    pub params: Vec<(String, String)>,
}

impl Base {
    /// The collectives the file has an entry for (`bcast`, `ibcast`, ...).
    pub fn collectives(&self) -> Vec<&str> {
        self.0
             .0
            .iter()
            .filter_map(|(k, _)| k.strip_prefix("collective="))
            .collect()
    }

    /// The algorithm MPICH's selection picks for `call` from this file, as
    /// MPICH 5.0's `csel.c` walks it: in each object the first key whose
    /// condition holds leads on. An error names a key this reading does
    /// not know, or where no key holds (MPICH stops there).
    pub fn select(&self, call: &Call) -> std::result::Result<Selected, String> {
        let entry = format!("collective={}", call.collective.name());
        let mut node = match self.0 .0.iter().find(|(k, _)| *k == entry) {
            Some((_, n)) => n,
            None => return Err(format!("the file has no \"{entry}\"")),
        };
        loop {
            if let Some((key, params)) = node.0.first() {
                if let Some(function) = key.strip_prefix("algorithm=") {
                    let params = params
                        .0
                        .iter()
                        .filter_map(|(k, _)| k.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect();
                    return Ok(Selected {
                        function: function.to_string(),
                        params,
                    });
                }
            }
            let mut next = None;
            for (key, child) in &node.0 {
                if holds(key, call)? {
                    next = Some(child);
                    break;
                }
            }
            node = next.ok_or_else(|| {
                let keys: Vec<&str> = node.0.iter().map(|(k, _)| k.as_str()).collect();
                format!("no condition holds among {}", keys.join(", "))
            })?;
        }
    }
}

/// Whether a selection file's condition holds for `call` (MPICH 5.0's
/// `csel.c`: its keys and what it compares them with).
fn holds(key: &str, call: &Call) -> std::result::Result<bool, String> {
    let p = u64::from(call.procs);
    let count = call.msg_bytes / call.collective.element_bytes();
    let total = call.msg_bytes * p;
    let pof2 = 1u64 << (63 - p.max(1).leading_zeros());
    let parent = call.nodes < call.procs;
    let number = |prefix: &str| -> Option<u64> { key.strip_prefix(prefix)?.trim().parse().ok() };
    if key == "any" || key.ends_with("=any") {
        return Ok(true);
    }
    let exact = match key {
        "comm_type=intra"
        | "is_multi_threaded=no"
        | "is_commutative=yes"
        | "is_op_built_in=yes"
        | "is_sendbuf_inplace=no"
        | "is_block_regular=yes" => Some(true),
        "comm_type=inter"
        | "is_multi_threaded=yes"
        | "is_commutative=no"
        | "is_op_built_in=no"
        | "is_sendbuf_inplace=yes"
        | "is_block_regular=no" => Some(false),
        "comm_size=pow2" => Some(p.is_power_of_two()),
        "comm_size=node_comm_size" => Some(call.nodes == 1),
        "count<pow2" => Some(count < pof2),
        "is_node_consecutive=yes" => Some(call.node_consecutive),
        "is_node_consecutive=no" => Some(!call.node_consecutive),
        "comm_hierarchy=parent" => Some(parent),
        "comm_hierarchy=node_roots" | "comm_hierarchy=node" | "comm_hierarchy=flat" => {
            Some(!parent)
        }
        _ => None,
    };
    if let Some(value) = exact {
        return Ok(value);
    }
    let nodes = u64::from(call.nodes);
    let compared = [
        ("comm_size<=", p, true),
        ("comm_size<", p, false),
        ("count<=", count, true),
        ("avg_msg_size<=", call.msg_bytes, true),
        ("avg_msg_size<", call.msg_bytes, false),
        ("total_msg_size<=", total, true),
        ("total_msg_size<", total, false),
    ];
    for (prefix, value, or_equal) in compared {
        // `<=` before `<`: the shorter prefix matches both.
        if let Some(limit) = number(prefix) {
            return Ok(if or_equal {
                value <= limit
            } else {
                value < limit
            });
        }
    }
    // MPICH compares ranks with ppn × nodes.
    if let Some(ppn) = number("comm_avg_ppn<=") {
        return Ok(p <= ppn * nodes);
    }
    if let Some(ppn) = number("comm_avg_ppn<") {
        return Ok(p < ppn * nodes);
    }
    Err(format!("a condition this reading does not know: {key:?}"))
}

/// The base file with each section's collective entry replaced by its
/// decisions (in the same place; first when it had none).
pub fn render(sections: &[Section], base: Option<&Base>) -> Result<String> {
    let Some(base) = base else {
        return Err(Error::Usage(
            "MPICH reads one selection file for every collective and aborts at start-up \
             when one is missing, so a file of the decided collectives alone cannot be used: \
             give your MPICH's selection file with --mpich-base FILE \
             (maint/tuning/coll/mpir/generic.json in the sources of your MPICH version); only \
             the parts of the collectives decided are replaced"
                .into(),
        ));
    };
    let mut doc = base.0.clone();
    for section in sections {
        let subtree = subtree(section.collective, &section.tables)?;
        let key = format!("collective={}", section.collective.name());
        match doc.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, value)) => *value = subtree,
            None => doc.0.insert(0, (key, subtree)),
        }
    }
    let mut s = String::new();
    doc.write(&mut s, 0);
    s.push('\n');
    Ok(s)
}

/// A collective's subtree: intra-communicators by size, then by processes
/// per node, then message size. A communicator denser than the job
/// measured (more ranks per node: `comm_avg_ppn` is MPICH's ranks / nodes)
/// keeps MPICH's own choice: the decisions were not measured there.
fn subtree(collective: Collective, tables: &[DecisionTable]) -> Result<Node> {
    let mut by_comm = Node::default();
    for (i, t) in tables.iter().enumerate() {
        // Each job size covers the sizes up to it; the largest all the rest.
        let key = if i + 1 == tables.len() {
            "comm_size=any".to_string()
        } else {
            format!("comm_size<={}", t.job.procs)
        };
        let by_ppn = Node::default()
            .with(
                format!("comm_avg_ppn<={}", t.job.ppn),
                size_tree(collective, t)?,
            )
            .with("comm_avg_ppn=any", mpich_tree(collective, t.job.procs));
        by_comm = by_comm.with(key, by_ppn);
    }
    let mpich = &collective.describe().mpich;
    // The measured decisions hold for commutative operations (the
    // harness's MPI_SUM) and separate buffers; MPICH's own choice for the
    // others stays.
    let intra = match (mpich.noncommutative, mpich.in_place) {
        (Some(algorithm), _) => Node::default().with("is_commutative=yes", by_comm).with(
            "is_commutative=no",
            leaf(&collective.mpich_function(algorithm), &[]),
        ),
        (None, Some(function)) => Node::default()
            .with("is_sendbuf_inplace=yes", leaf(function, &[]))
            .with("is_sendbuf_inplace=no", by_comm),
        (None, None) => by_comm,
    };
    Ok(Node::default()
        .with("comm_type=intra", intra)
        .with("comm_type=inter", leaf(mpich.inter, &[])))
}

/// The size MPICH selects `collective` by, and a message size on `p`
/// ranks in it: the average message (a broadcast's or reduction's
/// buffer), or the total of an allgather, gather, scatter or
/// reduce-scatter (all p blocks: MPICH's own `generic.json` bounds
/// allgathers and reduce-scatters so, and MPICH 5.0 defines no average for
/// a gather or scatter).
fn size_key(collective: Collective, p: u32, msg_bytes: u64) -> (&'static str, u64) {
    // A barrier's decision has no size (see `size_tree`).
    match collective.describe().mpich.by_total {
        true => ("total_msg_size", u64::from(p) * msg_bytes),
        false => ("avg_msg_size", msg_bytes),
    }
}

/// `avg_msg_size<=X` (or `total_msg_size<=X`) conditions in increasing
/// order, the last one `any`.
fn size_tree(collective: Collective, t: &DecisionTable) -> Result<Node> {
    let p = t.job.procs;
    let (key, _) = size_key(collective, p, 0);
    // (last size covered, None = no bound; leaf), in size order, in the
    // key's bytes.
    let mut pieces: Vec<(Option<u64>, Node)> = Vec::new();
    let mut push = |end: Option<u64>, value: Node| match pieces.last_mut() {
        Some((last_end, last)) if *last == value => *last_end = end,
        _ => pieces.push((end, value)),
    };
    let rules = t.rules();
    for (i, (from, c)) in rules.iter().enumerate() {
        let bytes = |m| size_key(collective, p, m).1;
        let from = bytes(*from);
        let to = rules.get(i + 1).map(|(next, _)| bytes(*next) - 1);
        if c.algorithm != Algorithm::Default {
            push(to, algorithm(collective, c, p)?);
            continue;
        }
        // MPICH's own rule, cut to [from, to].
        let mut lo = 0;
        for (upto, node) in mpich_default(collective, p) {
            let start = lo.max(from);
            let end = match (upto, to) {
                (Some(u), Some(t)) => Some(u.min(t)),
                (u, t) => u.or(t),
            };
            if end.is_none_or(|e| e >= start) {
                push(end, node);
            }
            match upto {
                Some(u) => lo = u + 1,
                None => break,
            }
        }
    }
    // MPICH selects a barrier by no message size (it defines none for
    // it): the decision at size 0 is the whole tree.
    if collective == Collective::Barrier {
        return Ok(pieces
            .into_iter()
            .next()
            .map_or(Node::default(), |(_, n)| n));
    }
    let last = pieces.len().saturating_sub(1);
    Ok(pieces
        .into_iter()
        .enumerate()
        .fold(Node::default(), |tree, (i, (end, value))| {
            let key = match end {
                Some(end) if i < last => format!("{key}<={end}"),
                _ => format!("{key}=any"),
            };
            tree.with(key, value)
        }))
}

/// MPICH's shipped rule for `p` ranks as a message-size tree.
fn mpich_tree(collective: Collective, p: u32) -> Node {
    let (key, _) = size_key(collective, p, 0);
    mpich_default(collective, p)
        .into_iter()
        .fold(Node::default(), |tree, (upto, node)| {
            let key = upto.map_or(format!("{key}=any"), |u| format!("{key}<={u}"));
            tree.with(key, node)
        })
}

/// MPICH's shipped choice for `p` ranks: (largest size in the bytes of
/// [`size_key`], what runs).
fn mpich_default(collective: Collective, p: u32) -> Vec<(Option<u64>, Node)> {
    match collective {
        Collective::Bcast => bcast_default(p),
        Collective::Allgather => {
            // MPICH 5.0.1's generic.json on all p blocks: recursive
            // doubling below 512 KiB on powers of two, Bruck below 80 KiB
            // elsewhere, then the ring.
            let (below, short) = match p.is_power_of_two() {
                true => (524288, "MPIR_Allgather_intra_recursive_doubling"),
                false => (81920, "MPIR_Allgather_intra_brucks"),
            };
            vec![
                (Some(below - 1), leaf(short, &[])),
                (None, leaf("MPIR_Allgather_intra_ring", &[])),
            ]
        }
        Collective::Alltoall => {
            // MPICH 5.0.1's generic.json for a send buffer not in place:
            // Bruck up to 256 B from 8 ranks, scattered up to 32 KiB, then
            // pairwise.
            let scattered = (Some(32768), leaf("MPIR_Alltoall_intra_scattered", &[]));
            let pairwise = (None, leaf("MPIR_Alltoall_intra_pairwise", &[]));
            match p < 8 {
                true => vec![scattered, pairwise],
                false => vec![
                    (Some(256), leaf("MPIR_Alltoall_intra_brucks", &[])),
                    scattered,
                    pairwise,
                ],
            }
        }
        // MPICH 5.0.1's generic.json: the SMP barrier on communicators it
        // splits into nodes, else dissemination of radix 2.
        Collective::Barrier => vec![(
            None,
            Node::default()
                .with("comm_hierarchy=parent", leaf("MPIR_Barrier_intra_smp", &[]))
                .with("comm_hierarchy=any", dissemination()),
        )],
        // MPICH 5.0.1's generic.json for commutative operations: recursive
        // halving below 512 KiB in all, then pairwise.
        Collective::ReduceScatter | Collective::ReduceScatterBlock => vec![
            (
                Some(524288 - 1),
                leaf(&collective.mpich_function(Algorithm::RecursiveHalving), &[]),
            ),
            (
                None,
                leaf(&collective.mpich_function(Algorithm::Pairwise), &[]),
            ),
        ],
        // MPICH 5.0.1's generic.json: binomial, whatever the size.
        Collective::Gather | Collective::Scatter => {
            vec![(
                None,
                leaf(&collective.mpich_function(Algorithm::Binomial), &[]),
            )]
        }
        Collective::Reduce => {
            // MPICH 5.0.1's generic.json: binomial up to 2 KiB, then
            // reduce-scatter + gather for built-in operations.
            let binomial = || leaf(REDUCE_BINOMIAL, &[]);
            let large = Node::default()
                .with("is_op_built_in=yes", reduce_scatter_gather())
                .with("is_op_built_in=no", binomial());
            vec![(Some(2048), binomial()), (None, large)]
        }
        Collective::Allreduce => {
            // MPICH 5.0.1's generic.json: the SMP algorithm for empty
            // commutative messages, recursive doubling up to 8 bytes, then
            // reduce-scatter + allgather for built-in operations.
            let empty = Node::default()
                .with("is_commutative=yes", leaf("MPIR_Allreduce_intra_smp", &[]))
                .with("is_commutative=no", leaf(ALLREDUCE_DOUBLING, &[]));
            let large = Node::default()
                .with("is_op_built_in=no", leaf(ALLREDUCE_DOUBLING, &[]))
                .with("is_op_built_in=yes", reduce_scatter_allgather());
            vec![
                (Some(0), empty),
                (Some(8), leaf(ALLREDUCE_DOUBLING, &[])),
                (None, large),
            ]
        }
    }
}

/// MPICH 5.0.1's broadcast by job size: binomial, then scatter +
/// allgather (recursive doubling for powers of two, else the ring).
fn bcast_default(p: u32) -> Vec<(Option<u64>, Node)> {
    let binomial = || leaf("MPIR_Bcast_intra_binomial", &[]);
    let ring = || leaf("MPIR_Bcast_intra_scatter_ring_allgather", &[]);
    if p < 8 {
        vec![(None, binomial())]
    } else if p.is_power_of_two() {
        vec![
            (Some(12288), binomial()),
            (
                Some(524288),
                leaf("MPIR_Bcast_intra_scatter_recursive_doubling_allgather", &[]),
            ),
            (None, ring()),
        ]
    } else {
        vec![(Some(12288), binomial()), (None, ring())]
    }
}

/// MPICH's barrier by dissemination of radix 2: Open MPI's bruck.
fn dissemination() -> Node {
    leaf(
        "MPIR_Barrier_intra_k_dissemination",
        &[("k", "2".to_string())],
    )
}

const REDUCE_BINOMIAL: &str = "MPIR_Reduce_intra_binomial";
const ALLREDUCE_DOUBLING: &str = "MPIR_Allreduce_intra_recursive_doubling";

/// MPICH's reduce-scatter + allgather where it has an element per
/// power-of-two rank (MPICH guards it so), recursive doubling otherwise.
fn reduce_scatter_allgather() -> Node {
    Node::default()
        .with("count<pow2", leaf(ALLREDUCE_DOUBLING, &[]))
        .with(
            "count=any",
            leaf("MPIR_Allreduce_intra_reduce_scatter_allgather", &[]),
        )
}

/// MPICH's reduce-scatter + gather where it has a float per power-of-two
/// rank (MPICH guards it so), binomial otherwise.
fn reduce_scatter_gather() -> Node {
    Node::default()
        .with("count<pow2", leaf(REDUCE_BINOMIAL, &[]))
        .with(
            "count=any",
            leaf("MPIR_Reduce_intra_reduce_scatter_gather", &[]),
        )
}

fn leaf(name: &str, params: &[(&str, String)]) -> Node {
    let inner = params.iter().fold(Node::default(), |n, (k, v)| {
        n.with(format!("{k}={v}"), Node::default())
    });
    Node::default().with(format!("algorithm={name}"), inner)
}

/// Whether MPICH runs the same schedule as this candidate of `collective`
/// measured under Open MPI (`default` is MPICH's own choice): what
/// `predict --format mpich-json` decides among for such a model.
pub fn has_equivalent(collective: Collective, c: &Candidate) -> bool {
    match c.implementation {
        Impl::Mpich => collective.mpich_algorithm(c.algorithm).is_some(),
        Impl::Ompi | Impl::Own => {
            c.algorithm == Algorithm::Default
                || collective
                    .describe()
                    .mpich
                    .equivalents
                    .contains(&c.algorithm)
        }
    }
}

/// MPICH's algorithm of a candidate measured under MPICH, with the
/// parameters it was measured with. Where MPICH would not run it (too few
/// elements for a reduce-scatter), the file names what MPICH's own file
/// names there.
fn mpich_node(collective: Collective, c: &Candidate, p: u32) -> Option<Node> {
    let m = collective.mpich_algorithm(c.algorithm)?;
    let params: Vec<(&str, String)> = m
        .params
        .iter()
        .map(|p| (p.key, m.value(p, c.segsize, c.fanout)))
        .collect();
    let node = leaf(&collective.mpich_function(c.algorithm), &params);
    // Only MPICH's reduce has the first, only its allreduce the second.
    Some(match c.algorithm {
        Algorithm::ReduceScatterGather => reduce_scatter_gather(),
        Algorithm::ReduceScatterAllgather => reduce_scatter_allgather(),
        _ if m.restrictions.contains(&Restriction::PowerOfTwo) => {
            // MPICH's own choice on a communicator of about as many ranks
            // that is no power of two.
            let other = if p.is_power_of_two() { p + 1 } else { p };
            on_power_of_two(node, mpich_tree(collective, other))
        }
        _ => node,
    })
}

/// `node` on communicators whose ranks are a power of two, `elsewhere` on
/// the others. A file's comm_size range holds sizes of both kinds, and
/// MPICH checks an algorithm's restrictions only where a control variable
/// forces it: one for powers of two named by the file fails an assertion
/// on any other size (MPICH 5.0's noncommutative reduce-scatter does).
fn on_power_of_two(node: Node, elsewhere: Node) -> Node {
    Node::default()
        .with("comm_size=pow2", node)
        .with("comm_size=any", elsewhere)
}

/// MPICH's equivalent of a candidate, or an error when it has none.
fn algorithm(collective: Collective, c: &Candidate, p: u32) -> Result<Node> {
    if c.implementation == Impl::Mpich {
        return mpich_node(collective, c, p).ok_or_else(|| {
            Error::Other(format!(
                "the {collective} decision picks MPICH's '{}', which is no MPICH {collective} \
                 algorithm",
                c.algorithm
            ))
        });
    }
    let node = match collective {
        Collective::Bcast => bcast_algorithm(c, p),
        Collective::Reduce => match c.algorithm {
            Algorithm::Binomial => Some(leaf(REDUCE_BINOMIAL, &[])),
            Algorithm::Rabenseifner => Some(reduce_scatter_gather()),
            _ => None,
        },
        Collective::Allreduce => match c.algorithm {
            Algorithm::RecursiveDoubling => Some(leaf(ALLREDUCE_DOUBLING, &[])),
            // Both rings reduce-scatter then allgather p blocks around the
            // ring (MPICH's also for fewer elements than ranks, where Open
            // MPI's falls back to recursive doubling).
            Algorithm::Ring => Some(leaf("MPIR_Allreduce_intra_ring", &[])),
            Algorithm::Rabenseifner => Some(reduce_scatter_allgather()),
            _ => None,
        },
        Collective::Allgather => match c.algorithm {
            Algorithm::Bruck => Some(leaf("MPIR_Allgather_intra_brucks", &[])),
            // Open MPI's recursive doubling off powers of two runs Bruck.
            Algorithm::RecursiveDoubling => Some(on_power_of_two(
                leaf("MPIR_Allgather_intra_recursive_doubling", &[]),
                leaf("MPIR_Allgather_intra_brucks", &[]),
            )),
            Algorithm::Ring => Some(leaf("MPIR_Allgather_intra_ring", &[])),
            _ => None,
        },
        Collective::Alltoall => match c.algorithm {
            // Both rotate, then at step d send rank + d the blocks whose
            // rotated index has bit d, and rotate back.
            Algorithm::ModifiedBruck => Some(leaf("MPIR_Alltoall_intra_brucks", &[])),
            _ => None,
        },
        Collective::Gather | Collective::Scatter => match c.algorithm {
            Algorithm::Binomial => Some(leaf(&collective.mpich_function(Algorithm::Binomial), &[])),
            _ => None,
        },
        // No Open MPI reduce-scatter runs as one of MPICH's (the
        // descriptions' `equivalents` are empty).
        Collective::ReduceScatter | Collective::ReduceScatterBlock => None,
        Collective::Barrier => match c.algorithm {
            Algorithm::Bruck => Some(dissemination()),
            _ => None,
        },
    };
    node.ok_or_else(|| {
        Error::Other(format!(
            "the {collective} decision picks '{}', which MPICH does not have (only candidates \
             with an MPICH equivalent should have been offered)",
            c.algorithm
        ))
    })
}

/// MPICH's broadcast that runs as candidate `c` does.
fn bcast_algorithm(c: &Candidate, p: u32) -> Option<Node> {
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
    Some(match c.algorithm {
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
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::data::Impl;
    use crate::export::fixtures::*;
    use crate::export::*;

    #[test]
    fn mpich_json_replaces_only_the_bcast_part_of_the_base_file() {
        let t = table(4, [cand(Algorithm::Binary, Some(0), None); 3]);
        let text = render(
            &bcast(std::slice::from_ref(&t)),
            Format::MpichJson,
            &opts(1),
        )
        .unwrap();
        let pos = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{needle}:\n{text}"))
        };
        // bcast stays first and is ours; barrier follows, its conditions in
        // the base file's order (`<8` before `any`: first true key wins).
        assert!(pos("collective=bcast") < pos("collective=barrier"));
        assert!(pos("algorithm=MPIR_Bcast_intra_tree") < pos("collective=barrier"));
        assert!(!text.contains("MPIR_Bcast_intra_smp"), "{text}");
        assert!(pos("comm_size<8") < pos("\"comm_size=any\": {\n        \"algorithm=A\""));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value.as_object().unwrap().len(), 2);
        // Measured at 4 ranks per node; denser communicators keep MPICH's rule.
        let sizes = &value["collective=bcast"]["comm_type=intra"]["comm_size=any"];
        assert!(sizes["comm_avg_ppn<=4"]
            .to_string()
            .contains("MPIR_Bcast_intra_tree"));
        assert!(sizes["comm_avg_ppn=any"]
            .to_string()
            .contains("MPIR_Bcast_intra_binomial"));
        assert!(pos("comm_avg_ppn<=4") < pos("comm_avg_ppn=any"));

        let none = ExportOptions {
            mpich_base: None,
            ..opts(1)
        };
        let err = render(&bcast(std::slice::from_ref(&t)), Format::MpichJson, &none).unwrap_err();
        assert!(err.to_string().contains("--mpich-base"), "{err}");

        let path = std::path::Path::new("b.json");
        let err = mpich_json::Base::parse(path, "{\n \"collective=bcast\": 3}").unwrap_err();
        assert_eq!((err.line, err.file.as_path()), (Some(2), path));
        assert!(mpich_json::Base::parse(path, "{\"a\": {}}").is_err());
    }

    #[test]
    fn mpich_json_keeps_condition_order_and_expands_default() {
        let t = table(
            16,
            [
                Candidate::DEFAULT,
                Candidate::DEFAULT,
                cand(Algorithm::Binary, Some(65536), None),
            ],
        );
        let text = render(&bcast(&[t]), Format::MpichJson, &opts(1)).unwrap();
        // The measured ppn's branch (before MPICH's rule for denser ones).
        let ours = &text[..text.find("comm_avg_ppn=any").unwrap()];
        let keys: Vec<&str> = ours
            .lines()
            .filter_map(|l| l.trim().strip_prefix("\"avg_msg_size"))
            .collect();
        // MPICH's own rule for 16 ranks up to 1 MiB - 1, then ours.
        assert_eq!(
            keys,
            [
                "<=12288\": {",
                "<=524288\": {",
                "<=1048575\": {",
                "=any\": {"
            ]
        );
        assert!(text.find("binomial").unwrap() < text.find("recursive_doubling").unwrap());
        assert!(text.contains("\"chunk_size=65536\": {}"));
        serde_json::from_str::<serde_json::Value>(&text).unwrap();
    }

    /// MPICH's alltoall part: an in-place alltoall keeps MPICH's own
    /// algorithm, a decided modified Bruck is MPICH's Bruck, `default`
    /// MPICH's own rule; pairwise (MPICH pairs by xor) has no equivalent.
    #[test]
    fn mpich_json_alltoall_runs_modified_bruck_as_mpichs_bruck() {
        let bruck = cand(Algorithm::ModifiedBruck, None, None);
        let sections = vec![Section {
            collective: Collective::Alltoall,
            tables: vec![table(16, [bruck, Candidate::DEFAULT, Candidate::DEFAULT])],
        }];
        let text = render(&sections, Format::MpichJson, &opts(1)).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let intra = &json["collective=alltoall"]["comm_type=intra"];
        assert!(
            intra["is_sendbuf_inplace=yes"]
                ["algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace"]
                .is_object(),
            "{text}"
        );
        let sizes = &intra["is_sendbuf_inplace=no"]["comm_size=any"]["comm_avg_ppn<=16"];
        let keys: Vec<&String> = sizes.as_object().unwrap().keys().collect();
        // Bruck up to the next decided size, then MPICH's rule for 16
        // ranks from 64 KiB: scattered to 32 KiB (inside Bruck's range),
        // then pairwise.
        assert_eq!(keys, ["avg_msg_size<=65535", "avg_msg_size=any"], "{text}");
        assert!(sizes["avg_msg_size<=65535"]["algorithm=MPIR_Alltoall_intra_brucks"].is_object());
        assert!(
            sizes["avg_msg_size=any"]["algorithm=MPIR_Alltoall_intra_pairwise"].is_object(),
            "{text}"
        );
        let pairwise = cand(Algorithm::Pairwise, None, None);
        assert!(!mpich_json::has_equivalent(Collective::Alltoall, &pairwise));
        assert!(mpich_json::has_equivalent(Collective::Alltoall, &bruck));
    }

    /// MPICH's algorithms in an MPICH model's decisions go into the file by
    /// MPICH's function names with their parameters, and reading the file
    /// back as MPICH's selection walks it finds each size's decision (and
    /// MPICH's own rule for the denser job the decisions were not made for).
    #[test]
    fn mpich_json_names_a_power_of_two_algorithm_only_on_powers_of_two() {
        use mpich_json::Call;
        let rd = Candidate {
            algorithm: Algorithm::RecursiveDoubling,
            segsize: None,
            fanout: None,
            implementation: Impl::Ompi,
        };
        let noncommutative = Candidate {
            algorithm: Algorithm::Noncommutative,
            implementation: Impl::Mpich,
            ..rd
        };
        let sections = [
            Section {
                collective: Collective::Allgather,
                tables: vec![table(8, [rd; 3])],
            },
            Section {
                collective: Collective::ReduceScatterBlock,
                tables: vec![table(8, [noncommutative; 3])],
            },
        ];
        let text = render(&sections, Format::MpichJson, &opts(1)).unwrap();
        let file = mpich_json::Base::parse(std::path::Path::new("x.json"), &text).unwrap();
        let function = |collective, procs| {
            let call = Call {
                collective,
                procs,
                nodes: 1,
                node_consecutive: true,
                msg_bytes: 1024,
            };
            file.select(&call).unwrap().function
        };
        // The job's 8 ranks and a sub-communicator of 4 run what was
        // decided; one of 5 or 7 in the same comm_size range what MPICH
        // runs there (the noncommutative reduce-scatter would fail an
        // assertion).
        for p in [4, 8] {
            assert_eq!(
                function(Collective::Allgather, p),
                "MPIR_Allgather_intra_recursive_doubling"
            );
            assert_eq!(
                function(Collective::ReduceScatterBlock, p),
                "MPIR_Reduce_scatter_block_intra_noncommutative"
            );
        }
        for p in [5, 7] {
            assert_eq!(
                function(Collective::Allgather, p),
                "MPIR_Allgather_intra_brucks"
            );
            assert_eq!(
                function(Collective::ReduceScatterBlock, p),
                "MPIR_Reduce_scatter_block_intra_recursive_halving"
            );
        }
    }

    #[test]
    fn mpich_json_of_mpich_algorithms_reads_back_as_decided() {
        use mpich_json::{Call, Selected};
        let mpich = |algorithm| Candidate {
            algorithm,
            segsize: None,
            fanout: None,
            implementation: Impl::Mpich,
        };
        let t = table(
            4,
            [
                mpich(Algorithm::Binomial),
                mpich(Algorithm::Tree),
                mpich(Algorithm::ScatterRingAllgather),
            ],
        );
        let text = render(&bcast(&[t]), Format::MpichJson, &opts(1)).unwrap();
        assert!(
            text.contains("\"algorithm=MPIR_Bcast_intra_tree\": {\n"),
            "{text}"
        );
        assert!(text.contains("\"k=2\": {}"), "{text}");
        // A radix measured (the fan-out) is the file's `k`.
        let radix4 = Candidate {
            fanout: Some(4),
            ..mpich(Algorithm::Tree)
        };
        let t4 = table(4, [radix4; 3]);
        let text4 = render(&bcast(&[t4]), Format::MpichJson, &opts(1)).unwrap();
        assert!(
            text4.contains("\"k=4\": {}") && !text4.contains("\"k=2\""),
            "{text4}"
        );
        // Open MPI's formats take none of MPICH's algorithms.
        for format in [Format::OmpiRules, Format::OmpiHan, Format::OmpiJson] {
            let t4 = table(4, [radix4; 3]);
            let err = render(&bcast(&[t4]), format, &opts(1)).unwrap_err();
            assert!(err.to_string().contains("measured under MPICH"), "{err}");
        }
        // A chunk measured (the segment size) is the file's `chunk_size`.
        let chunk = Candidate {
            segsize: Some(65536),
            ..mpich(Algorithm::PipelinedTree)
        };
        let t5 = table(4, [chunk; 3]);
        let text5 = render(&bcast(&[t5]), Format::MpichJson, &opts(1)).unwrap();
        assert!(text5.contains("\"chunk_size=65536\": {}"), "{text5}");
        let file = mpich_json::Base::parse(std::path::Path::new("x.json"), &text).unwrap();
        let call = |procs, nodes, msg_bytes| Call {
            collective: Collective::Bcast,
            procs,
            nodes,
            node_consecutive: true,
            msg_bytes,
        };
        let function = |c: Call| file.select(&c).map(|s: Selected| s.function);
        assert_eq!(
            function(call(4, 1, 1)).unwrap(),
            "MPIR_Bcast_intra_binomial"
        );
        assert_eq!(
            function(call(4, 1, 65536)).unwrap(),
            "MPIR_Bcast_intra_tree"
        );
        let tree = file.select(&call(4, 1, 65536)).unwrap();
        assert!(tree.params.contains(&("tree_type".into(), "kary".into())));
        assert_eq!(
            function(call(4, 1, 4 << 20)).unwrap(),
            "MPIR_Bcast_intra_scatter_ring_allgather"
        );
        // 8 ranks on one node: denser than measured, MPICH's own rule
        // (binomial below 12 KiB on 8 ranks).
        assert_eq!(
            function(call(8, 1, 1)).unwrap(),
            "MPIR_Bcast_intra_binomial"
        );
        // A collective the file lacks, and a condition MPICH does not have.
        let reduce = Call {
            collective: Collective::Reduce,
            ..call(4, 1, 4)
        };
        assert!(file
            .select(&reduce)
            .unwrap_err()
            .contains("no \"collective=reduce\""));
        let odd = text.replace("comm_avg_ppn<=4", "comm_avg_ppn>=4");
        let odd = mpich_json::Base::parse(std::path::Path::new("x.json"), &odd).unwrap();
        assert!(odd
            .select(&call(4, 1, 1))
            .unwrap_err()
            .contains("comm_avg_ppn>=4"));
    }
}
