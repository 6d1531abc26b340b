//! Open MPI's JSON rules file (coll/tuned, 6.0 and later): first match wins,
//! ranges are inclusive, and sizes with no rule fall back to the fixed
//! decision, so `default` (and `tuned`, tuned's own decision) ranges are
//! simply left out.

use super::ompi_rule;
use crate::data::Algorithm;
use crate::error::{Error, Result};
use crate::select::decision::DecisionTable;
use serde_json::{json, Value};

pub fn render(tables: &[DecisionTable]) -> Result<String> {
    let mut comms = Vec::new();
    for t in tables {
        let rules = t.rules();
        let mut msg_rules = Vec::new();
        for (i, (from, c)) in rules.iter().enumerate() {
            // The fixed decision (`default`, or tuned's own) has no rule.
            if c.algorithm.ompi_id() == Some(0) {
                continue;
            }
            let (_, faninout, seg_size) = ompi_rule(c)?;
            let mut rule = json!({
                "msg_size_min": from,
                "alg": enum_name(c.algorithm),
                "faninout": faninout,
                "seg_size": seg_size,
            });
            if let Some((next, _)) = rules.get(i + 1) {
                rule["msg_size_max"] = json!(next - 1);
            }
            msg_rules.push(rule);
        }
        comms.push(json!({
            "comm_size_min": t.job.procs,
            "comm_size_max": t.job.procs,
            "rules": msg_rules,
        }));
    }
    let doc = json!({
        "rule_file_version": 3,
        "module": "tuned",
        "collectives": { "bcast": Value::Array(comms) },
    });
    serde_json::to_string_pretty(&doc)
        .map(|s| s + "\n")
        .map_err(|e| Error::Other(e.to_string()))
}

/// The name of `coll_tuned_bcast_algorithm`'s enum value.
fn enum_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Linear => "basic_linear",
        Algorithm::SplitBinary => "split_binary_tree",
        Algorithm::Binary => "binary_tree",
        other => other.name(),
    }
}
