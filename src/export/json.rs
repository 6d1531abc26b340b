use crate::decision::DecisionTable;
use crate::error::{Error, Result};

pub fn render(t: &DecisionTable) -> Result<String> {
    let value = serde_json::json!({
        "job": t.job,
        "learner": t.learner,
        "decisions": t.decisions,
        "ranges": t.ranges(),
    });
    serde_json::to_string_pretty(&value)
        .map(|s| s + "\n")
        .map_err(|e| Error::Other(format!("cannot serialize decisions: {e}")))
}
