use crate::analytical::fit::fit_dataset;
use crate::analytical::Fitted;
use crate::cli::SummaryFormat;
use crate::data::{Candidate, Dataset};
use crate::error::{Error, Result};
use crate::learn::LearnerKind;
use crate::train::samples::candidate_samples;
use crate::units::format_bytes;
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Serialize)]
struct FileFit {
    file: String,
    rows: usize,
    #[serde(flatten)]
    fitted: Fitted,
    /// Candidates the model prices that no row measured directly: the
    /// algorithms `default` ran (fitted through its rows).
    priced_unmeasured: Vec<Candidate>,
    /// In-sample R² of ln(time) of the linear baseline, per candidate.
    linear_r2_log: Vec<(Candidate, f64)>,
}

pub fn fit(files: &[PathBuf], format: SummaryFormat) -> Result<()> {
    let mut out = Vec::new();
    for (file, d) in super::data::per_system(files)? {
        let d = &d;
        let fitted = fit_dataset(d);
        out.push(FileFit {
            file,
            rows: d.rows,
            priced_unmeasured: priced_unmeasured(d, &fitted),
            fitted,
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

/// The schedules `default` ran that were never forced in `d`.
fn priced_unmeasured(d: &Dataset, fitted: &Fitted) -> Vec<Candidate> {
    let measured = d.candidates();
    let mut out: Vec<Candidate> = d
        .measurements()
        .iter()
        .filter(|m| m.candidate.is_default())
        .filter_map(|m| fitted.runs(&m.config, &m.candidate))
        .filter(|runs| !measured.contains(runs))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn linear_r2(d: &Dataset) -> Vec<(Candidate, f64)> {
    let cs = candidate_samples(d, false);
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
    let fit = &f.fitted;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} ({} rows, {} fitted; MPI: {}; times are the {})",
        f.file,
        f.rows,
        fit.summary.rows,
        fit.library,
        match fit.statistic {
            crate::analytical::price::Statistic::Slowest => "slowest rank's",
            crate::analytical::price::Statistic::MeanOverRanks => "mean over ranks",
        }
    );
    let pairwise = fit.summary.pairwise.map_or("-".into(), |p| {
        format!("{:.1}% of {} pairs", 100.0 * p.accuracy, p.pairs)
    });
    // Undefined (NaN) where the fitted times do not vary: one row.
    let r2 = if fit.summary.r2_log.is_finite() {
        format!("{:.3}", fit.summary.r2_log)
    } else {
        "-".into()
    };
    let _ = writeln!(
        t,
        "  R2 of ln(time) {r2}; pairwise ranking accuracy {pairwise}"
    );
    let _ = writeln!(
        t,
        "  platform (shared by all algorithms), per message size: sender busy per message \
         and per byte, then in flight per message, per byte, per byte and doubling of distance"
    );
    let p = &fit.platform;
    for (name, links, measured) in [
        ("shared memory", &p.shm, fit.measured_shm),
        ("network", &p.net, fit.measured_net),
    ] {
        let note = if measured {
            ""
        } else {
            " (not measured: copied from shared memory)"
        };
        let _ = writeln!(t, "    {name}{note}");
        for (bytes, l) in p.knot_bytes.iter().zip(links.iter()) {
            let _ = writeln!(
                t,
                "      {:>9}  {:>8.3}us {:>8.4}ns/B | {:>8.3}us {:>8.4}ns/B {:>8.4}ns/B",
                format_bytes(*bytes),
                l.send_us,
                1e3 * l.send_us_per_byte,
                l.wire_us,
                1e3 * l.wire_us_per_byte,
                1e3 * l.far_us_per_byte
            );
        }
    }
    let knots: Vec<String> = p
        .knot_bytes
        .iter()
        .map(|b| format!("{:>7}", format_bytes(*b)))
        .collect();
    let _ = writeln!(
        t,
        "  per algorithm, the factor on the platform's price (what the schedules do not explain, \
         against the other algorithms at the same configurations; in ln², residual noise {:.4}, \
         signal {:.4}: a level of w rows keeps signal / (signal + noise / w) of its mean)\n    \
         {:<20} {:<4} {:>6}  {}",
        fit.summary.shrinkage.noise,
        fit.summary.shrinkage.signal,
        "",
        "",
        "rows",
        knots.join(" ")
    );
    for c in &fit.corrections {
        let factors: Vec<String> = c
            .log_factor
            .iter()
            .map(|f| format!("{:>7.3}", f.exp()))
            .collect();
        let _ = writeln!(
            t,
            "    {:<20} {:<4} {:>6}  {}",
            c.algorithm.name(),
            c.implementation,
            c.rows,
            factors.join(" ")
        );
    }
    for c in &fit.default_checks {
        let _ = writeln!(
            t,
            "  default vs the algorithm {} runs ({:?}): {} pairs, median ratio {:.3}, {:.0}% slower{}",
            fit.library,
            c.regime,
            c.pairs,
            c.median_log_ratio.exp(),
            100.0 * c.slower_share,
            if c.refuted {
                " -> REFUTED: another algorithm runs; default is not priced there"
            } else {
                " -> consistent"
            }
        );
    }
    if !f.priced_unmeasured.is_empty() {
        let names: Vec<String> = f.priced_unmeasured.iter().map(|c| c.to_string()).collect();
        let _ = writeln!(
            t,
            "  priced without being forced (default runs them): {}",
            names.join(", ")
        );
    }
    let linear: Vec<String> = f
        .linear_r2_log
        .iter()
        .map(|(c, r)| format!("{c} {r:.3}"))
        .collect();
    let linear = if linear.is_empty() {
        "-".to_string()
    } else {
        linear.join(", ")
    };
    let _ = writeln!(t, "  linear baseline R2 per candidate: {linear}\n");
    t
}
