use super::warn_all;
use crate::cli::SummaryFormat;
use crate::data::load::load_file;
use crate::data::summary::Summary;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// One summary per file: headroom only makes sense within one machine.
pub fn summary(files: &[PathBuf], format: SummaryFormat) -> Result<()> {
    let mut summaries = Vec::with_capacity(files.len());
    for file in files {
        let loaded = load_file(file)?;
        warn_all(&loaded.warnings);
        summaries.push((file.display().to_string(), Summary::of(&loaded.dataset)));
    }
    match format {
        SummaryFormat::Text => {
            let texts: Vec<String> = summaries.iter().map(|(f, s)| s.to_text(f)).collect();
            print!("{}", texts.join("\n"));
        }
        SummaryFormat::Json => {
            let map: serde_json::Map<String, serde_json::Value> = summaries
                .into_iter()
                .map(|(f, s)| Ok((f, serde_json::to_value(s)?)))
                .collect::<serde_json::Result<_>>()
                .map_err(|e| Error::Other(e.to_string()))?;
            println!(
                "{}",
                serde_json::to_string_pretty(&map).map_err(|e| Error::Other(e.to_string()))?
            );
        }
    }
    Ok(())
}
