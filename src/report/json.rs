//! The evaluation report as JSON (docs/formats.md).

use crate::error::{Error, Result};
use crate::evaluate::Report;

/// Exactly the document docs/formats.md describes (the per-configuration detail is in the
/// markdown and CSV formats).
pub fn render(report: &Report) -> Result<String> {
    serde_json::to_string_pretty(report)
        .map(|s| s + "\n")
        .map_err(|e| Error::Other(format!("cannot serialize the report: {e}")))
}
