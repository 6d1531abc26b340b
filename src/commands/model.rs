//! `collsel model`: the analytical cost model fitted to each file, per
//! machine and MPI library.

use crate::cli::SummaryFormat;
use crate::error::{Error, Result};
use crate::report::model_fit::ModelFit;
use std::path::PathBuf;

pub fn fit(files: &[PathBuf], format: SummaryFormat) -> Result<()> {
    let fits: Vec<ModelFit> = super::data::per_system(files)?
        .into_iter()
        .map(|(file, d)| ModelFit::of(file, &d))
        .collect();
    match format {
        SummaryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&fits).map_err(|e| Error::Other(e.to_string()))?
        ),
        SummaryFormat::Text => fits.iter().for_each(|f| print!("{}", f.text())),
    }
    Ok(())
}
