use super::warn_all;
use crate::analytical::fit::fit_dataset;
use crate::analytical::{CandidateFit, Fitted};
use crate::cli::SummaryFormat;
use crate::data::load::load_file;
use crate::data::Candidate;
use crate::error::{Error, Result};
use crate::learn::LearnerKind;
use crate::train::candidate_samples;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Serialize)]
struct FileFit {
    file: String,
    rows: usize,
    #[serde(flatten)]
    fitted: Fitted,
    /// In-sample R² of ln(time) of the linear baseline, per candidate.
    linear_r2_log: Vec<(Candidate, f64)>,
}

pub fn fit(files: &[PathBuf], format: SummaryFormat) -> Result<()> {
    let mut out = Vec::new();
    for file in files {
        let loaded = load_file(file)?;
        warn_all(&loaded.warnings);
        let d = &loaded.dataset;
        out.push(FileFit {
            file: file.display().to_string(),
            rows: d.rows,
            fitted: fit_dataset(d),
            linear_r2_log: linear_r2(d),
        });
    }
    match format {
        SummaryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| Error::Other(e.to_string()))?
        ),
        SummaryFormat::Text => {
            for f in &out {
                print!("{}", table(f));
            }
        }
    }
    Ok(())
}

fn linear_r2(d: &crate::data::Dataset) -> Vec<(Candidate, f64)> {
    let cs = candidate_samples(d);
    let learner = LearnerKind::Linear.learner();
    cs.candidates
        .iter()
        .zip(&cs.samples)
        .filter_map(|(c, s)| {
            let model = learner.fit(s).ok()?;
            let mean = s.y.iter().sum::<f64>() / s.len() as f64;
            let total: f64 = s.y.iter().map(|y| (y - mean).powi(2)).sum();
            let sse: f64 = (0..s.len())
                .map(|i| (model.predict(s.row(i)) - s.y[i]).powi(2))
                .sum();
            (total > 0.0).then(|| (*c, 1.0 - sse / total))
        })
        .collect()
}

fn table(f: &FileFit) -> String {
    let s = &f.fitted.shared;
    let mut text = format!(
        "{} ({} rows): gamma(k) = 1 + {}*(k-1), Q = {}\n",
        f.file, f.rows, s.gamma_slope, s.q
    );
    text += &format!(
        "{:<34} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}\n",
        "candidate",
        "rows",
        "over_us",
        "shm_a_us",
        "shm_GB/s",
        "net_a_us",
        "net_GB/s",
        "R2_model",
        "R2_lin"
    );
    let linear: BTreeMap<Candidate, f64> = f.linear_r2_log.iter().copied().collect();
    let gbps = |beta: f64| {
        if beta > 0.0 {
            format!("{:.2}", 1e-3 / beta)
        } else {
            "inf".into()
        }
    };
    for CandidateFit {
        candidate,
        rows,
        params: p,
        r2_log,
    } in &f.fitted.fits
    {
        text += &format!(
            "{:<34} {:>5} {:>9.2} {:>9.2} {:>9} {:>9.2} {:>9} {:>8.3} {:>8}\n",
            candidate.to_string(),
            rows,
            p.overhead_us,
            p.shm_alpha_us,
            gbps(p.shm_beta_us_per_byte),
            p.net_alpha_us,
            gbps(p.net_beta_us_per_byte),
            r2_log,
            linear
                .get(candidate)
                .map_or("-".into(), |r| format!("{r:.3}"))
        );
    }
    for c in &f.fitted.unmodeled {
        text += &format!("{:<34} (no schedule, no analytical model)\n", c.to_string());
    }
    text + "\n"
}
