//! `schedule show`: an algorithm's tree and the stages its simulation
//! ran, per stage the concurrent fan-outs and what crosses nodes.

use crate::data::Placement;
use crate::schedule::Schedule;
use crate::sim::{Nbft, StageStructure};
use crate::units::format_bytes;
use std::fmt::Write;

/// The schedule as text, at most `max_stages` stages of it.
pub fn text(
    schedule: &Schedule,
    placement: &Placement,
    stages: &StageStructure,
    max_stages: usize,
) -> String {
    let spec = &schedule.spec;
    let mut s = String::new();
    let cuts: Vec<String> = schedule
        .segmentation()
        .iter()
        .map(|seg| format!("{} segment(s) of {}", seg.count(), format_bytes(seg.seg)))
        .collect();
    let root = match spec.collective.rooted() {
        true => format!("root {}, ", spec.root),
        false => String::new(),
    };
    let data = if !spec.collective.describe().semantics.sized {
        "empty messages".to_string()
    } else if cuts.is_empty() {
        format!("{} message, nothing to send", format_bytes(spec.msg_bytes))
    } else {
        format!(
            "{} message, {}",
            format_bytes(spec.msg_bytes),
            cuts.join(" + ")
        )
    };
    let _ = writeln!(s, "{}: {} ranks, {root}{data}", spec.algorithm, spec.procs);
    if let Some(note) = schedule.note() {
        let _ = writeln!(s, "note: {note}");
    }
    if placement.nodes > 1 {
        let _ = writeln!(
            s,
            "placement: {} nodes, up to {} ranks each, {:?}",
            placement.nodes, placement.ppn, placement.order
        );
    }
    match schedule.tree() {
        _ if spec.procs < 2 || spec.collective.returns_at_once(spec.msg_bytes) => {}
        None if schedule.describe().is_some() => {
            let _ = writeln!(s, "{}", schedule.describe().unwrap_or_default());
        }
        Some(tree) => {
            let _ = writeln!(s, "tree (depth {}):", tree.depth());
            let _ = writeln!(s, "  rank  parent  children");
            for rank in 0..spec.procs {
                let parent = tree.parent[rank as usize].map_or("-".to_string(), |p| p.to_string());
                let kids: Vec<String> = tree.children(rank).iter().map(|c| c.to_string()).collect();
                let row = format!("  {rank:>4}  {parent:>6}  {}", kids.join(" "));
                let _ = writeln!(s, "{}", row.trim_end());
            }
        }
        None => {}
    }
    let _ = writeln!(
        s,
        "stages: {} (per stage, what each sender sends at once: sender -> [receivers], bytes \
         each)",
        stages.len()
    );
    for (i, stage) in stages.stages.iter().enumerate().take(max_stages) {
        let parts: Vec<String> = stage.nbfts.iter().map(describe).collect();
        let _ = writeln!(s, "  {:>4}: {}", i + 1, parts.join("; "));
    }
    if stages.len() > max_stages {
        let _ = writeln!(s, "  ... {} more stages", stages.len() - max_stages);
    }
    s
}

fn describe(n: &Nbft) -> String {
    let cross = if n.cross_node > 0 {
        format!(", {} across nodes", n.cross_node)
    } else {
        String::new()
    };
    let receivers: Vec<String> = n.receivers.iter().map(|r| r.to_string()).collect();
    format!(
        "{} -> [{}] ({}{cross})",
        n.sender,
        receivers.join(" "),
        format_bytes(n.bytes)
    )
}
