//! Open MPI's JSON rules file (coll/tuned, 6.0 and later): first match wins,
//! ranges are inclusive, and sizes with no rule fall back to the fixed
//! decision, so `default` (and `tuned`, tuned's own decision) ranges are
//! simply left out, and so are collectives with no other range.

use super::{changes_tuned, ompi_rule, Section};
use crate::data::Collective;
use crate::error::{Error, Result};
use crate::select::decision::DecisionTable;
use serde_json::{json, Map, Value};

pub fn render(sections: &[Section]) -> Result<String> {
    let mut collectives = Map::new();
    for section in sections.iter().filter(|s| changes_tuned(s)) {
        collectives.insert(
            section.collective.name().to_string(),
            Value::Array(comm_rules(section.collective, &section.tables)?),
        );
    }
    let doc = json!({
        "rule_file_version": 3,
        "module": "tuned",
        "collectives": collectives,
    });
    serde_json::to_string_pretty(&doc)
        .map(|s| s + "\n")
        .map_err(|e| Error::Other(e.to_string()))
}

/// One collective's rules: per job size, its message-size rules.
fn comm_rules(collective: Collective, tables: &[DecisionTable]) -> Result<Vec<Value>> {
    let mut comms = Vec::new();
    for t in tables {
        let rules = t.rules();
        let mut msg_rules = Vec::new();
        let bytes = |m| super::ompi_rules::tuned_bytes(collective, t.job.procs, m);
        for (i, (from, c)) in rules.iter().enumerate() {
            // The fixed decision (`default`, or tuned's own) has no rule.
            if collective.ompi_id(c.algorithm) == Some(0) {
                continue;
            }
            let (_, faninout, seg_size) = ompi_rule(collective, c)?;
            let mut rule = json!({
                "msg_size_min": bytes(*from),
                "alg": collective.ompi_name(c.algorithm).unwrap_or(c.algorithm.name()),
                "faninout": faninout,
                "seg_size": seg_size,
            });
            if let Some((next, _)) = rules.get(i + 1) {
                rule["msg_size_max"] = json!(bytes(*next) - 1);
            }
            msg_rules.push(rule);
        }
        comms.push(json!({
            "comm_size_min": t.job.procs,
            "comm_size_max": t.job.procs,
            "rules": msg_rules,
        }));
    }
    Ok(comms)
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::*;
    use crate::export::*;

    #[test]
    fn ompi_json_leaves_default_ranges_to_the_library() {
        let t = table(
            32,
            [
                cand(Algorithm::Knomial, Some(0), Some(4)),
                Candidate::DEFAULT,
                cand(Algorithm::SplitBinary, Some(8192), None),
            ],
        );
        let v: serde_json::Value =
            serde_json::from_str(&render(&bcast(&[t]), Format::OmpiJson, &opts(1)).unwrap())
                .unwrap();
        let comm = &v["collectives"]["bcast"][0];
        assert_eq!(
            (comm["comm_size_min"].clone(), comm["comm_size_max"].clone()),
            (32.into(), 32.into())
        );
        let rules = comm["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["alg"], "knomial");
        assert_eq!(rules[0]["msg_size_max"], 65535);
        assert_eq!(rules[1]["alg"], "split_binary_tree");
        assert_eq!(rules[1]["msg_size_min"], 1048576);
        assert!(rules[1].get("msg_size_max").is_none(), "open-ended");
    }
}
