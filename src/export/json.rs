//! Decision tables as JSON (docs/formats.md).

use crate::data::System;
use crate::error::{Error, Result};
use crate::select::decision::DecisionTable;

/// One table as an object; several (one per job size) as an array.
pub fn render(tables: &[DecisionTable], system: &System) -> Result<String> {
    let one = |t: &DecisionTable| {
        serde_json::json!({
            "machine": system.machine,
            "mpi": system.mpi,
            "job": t.job,
            "learner": t.learner,
            "decisions": t.decisions,
            "ranges": t.ranges(),
        })
    };
    let value = match tables {
        [t] => one(t),
        _ => serde_json::Value::Array(tables.iter().map(one).collect()),
    };
    serde_json::to_string_pretty(&value)
        .map(|s| s + "\n")
        .map_err(|e| Error::Other(format!("cannot serialize decisions: {e}")))
}
