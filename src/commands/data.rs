//! `collsel data`: what benchmark files hold (summary with headroom,
//! imbalanced arrivals), per machine and MPI library.

use super::warn_all;
use crate::cli::SummaryFormat;
use crate::data::load::{load_files, load_systems, SystemFilter};
use crate::data::summary::Summary;
use crate::data::Dataset;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// One summary per file and machine/MPI library: headroom only makes sense
/// within one machine.
pub fn summary(files: &[PathBuf], format: SummaryFormat) -> Result<()> {
    let mut summaries = Vec::with_capacity(files.len());
    for (name, d) in per_system(files)? {
        summaries.push((name, Summary::of(&d)));
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
    let loaded = load_files(files, &SystemFilter::default())?;
    warn_all(&loaded.warnings);
    let panels = crate::report::imbalance::panels(&loaded.dataset);
    if panels.is_empty() {
        return Err(Error::Usage(
            "no configuration with an arrival pattern: measure with `bench --imbalance`".into(),
        ));
    }
    print!("{}", crate::report::imbalance::markdown(&panels));
    if let Some(dir) = plots {
        for f in crate::report::plots::write_arrival(&panels, dir)? {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// Each file's data per machine/MPI library, named `file` when the file
/// holds one and `file [machine M with MPI]` when it holds several.
pub fn per_system(files: &[PathBuf]) -> Result<Vec<(String, Dataset)>> {
    let mut out = Vec::new();
    for file in files {
        let (systems, warnings) =
            load_systems(std::slice::from_ref(file), &SystemFilter::default())?;
        warn_all(&warnings);
        let several = systems.len() > 1;
        for (system, d) in systems {
            let name = if several {
                format!("{} [{system}]", file.display())
            } else {
                file.display().to_string()
            };
            out.push((name, d));
        }
    }
    Ok(out)
}
