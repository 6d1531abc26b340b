use super::warn_all;
use crate::cli::SummaryFormat;
use crate::data::load::load_file;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::summary::Summary;
use std::path::{Path, PathBuf};

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

/// Tables (and plots) of time against imbalance factor.
pub fn arrival(files: &[PathBuf], plots: Option<&Path>) -> Result<()> {
    let mut parts = Vec::with_capacity(files.len());
    for file in files {
        let loaded = load_file(file)?;
        warn_all(&loaded.warnings);
        parts.push(loaded.dataset);
    }
    let panels = crate::report::arrival::panels(&Dataset::merge(parts));
    if panels.is_empty() {
        return Err(Error::Usage(
            "no configuration with an arrival pattern: measure with `bench --imbalance`".into(),
        ));
    }
    print!("{}", crate::report::arrival::markdown(&panels));
    if let Some(dir) = plots {
        for f in crate::report::plots::write_arrival(&panels, dir)? {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}
