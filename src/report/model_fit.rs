//! `model fit`: the analytical model fitted on one system's data, as
//! text or JSON — the platform per channel and message size, the
//! per-algorithm corrections, what `default` runs and whether the data
//! agree, and the fit's quality next to the linear baseline.

use crate::analytical::fit::fit_dataset;
use crate::analytical::platform::Platform;
use crate::analytical::price::Statistic;
use crate::analytical::Fitted;
use crate::data::{Candidate, Dataset};
use crate::learn::target::Target;
use crate::learn::LearnerKind;
use crate::train::samples::{candidate_samples, Rarest};
use crate::units::format_bytes;
use serde::Serialize;
use std::fmt::Write;

/// The analytical model of one file's (and system's) data.
#[derive(Serialize)]
pub struct ModelFit {
    pub file: String,
    pub rows: usize,
    #[serde(flatten)]
    pub fitted: Fitted,
    /// Candidates the model prices that no row measured directly: the
    /// algorithms `default` ran (fitted through its rows).
    pub priced_unmeasured: Vec<Candidate>,
    /// In-sample R² of ln(time) of the linear baseline, per candidate.
    pub linear_r2_log: Vec<(Candidate, f64)>,
}

impl ModelFit {
    /// Fits the model on `d`, the data of `file`.
    pub fn of(file: String, d: &Dataset) -> ModelFit {
        let fitted = fit_dataset(d);
        ModelFit {
            file,
            rows: d.rows,
            priced_unmeasured: priced_unmeasured(d, &fitted),
            fitted,
            linear_r2_log: linear_r2(d),
        }
    }
}

/// The schedules `default` ran that were never forced in `d`.
fn priced_unmeasured(d: &Dataset, fitted: &Fitted) -> Vec<Candidate> {
    if fitted.platform.is_none() {
        return Vec::new(); // nothing is priced
    }
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
    let cs = candidate_samples(d, Target::Time, Rarest::MinRows);
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

impl ModelFit {
    /// The fit as text: quality, platform, corrections, checks, baseline.
    pub fn text(&self) -> String {
        let fit = &self.fitted;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{} ({} rows, {} fitted; MPI: {}; times are the {})",
            self.file,
            self.rows,
            fit.summary.rows,
            fit.library,
            match fit.statistic {
                Statistic::Slowest => "slowest rank's",
                Statistic::MeanOverRanks => "mean over ranks",
            }
        );
        match &fit.platform {
            Some(platform) => {
                quality(&mut t, fit);
                links(&mut t, fit, platform);
                corrections(&mut t, fit, platform);
            }
            None => {
                let _ = writeln!(
                    t,
                    "  not fitted: no row ran an algorithm with a schedule, so nothing is priced"
                );
            }
        }
        self.checks(&mut t);
        t
    }

    /// What `default` runs and whether the data agree; what is priced
    /// without being measured; the linear baseline.
    fn checks(&self, t: &mut String) {
        let fit = &self.fitted;
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
        if !self.priced_unmeasured.is_empty() {
            let names: Vec<String> = self
                .priced_unmeasured
                .iter()
                .map(|c| c.to_string())
                .collect();
            let _ = writeln!(
                t,
                "  priced without being forced (default runs them): {}",
                names.join(", ")
            );
        }
        let linear: Vec<String> = self
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
    }
}

/// R² and pairwise ranking accuracy of the fit.
fn quality(t: &mut String, fit: &Fitted) {
    let pairwise = fit.summary.pairwise.map_or("-".into(), |p| {
        format!("{:.1}% of {} pairs", 100.0 * p.accuracy, p.pairs)
    });
    let r2 = fit
        .summary
        .r2_log
        .map_or("-".into(), |r2| format!("{r2:.3}"));
    let _ = writeln!(
        t,
        "  R2 of ln(time) {r2}; pairwise ranking accuracy {pairwise}"
    );
}

/// The platform's links per channel and message size.
fn links(t: &mut String, fit: &Fitted, p: &Platform) {
    let _ = writeln!(
        t,
        "  platform (shared by all algorithms), per message size: sender busy per message \
         and per byte, then in flight per message, per byte, per byte and doubling of distance"
    );
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
    if fit.collective.reduces() {
        let _ = writeln!(
            t,
            "    combining partial results: per combination, per byte"
        );
        for (k, bytes) in p.knot_bytes.iter().enumerate() {
            let at = |v: &[f64]| v.get(k).copied().unwrap_or(0.0);
            let _ = writeln!(
                t,
                "      {:>9}  {:>8.3}us {:>8.4}ns/B",
                format_bytes(*bytes),
                at(&p.combine_us),
                1e3 * at(&p.combine_us_per_byte)
            );
        }
    }
}

/// The per-algorithm factors per size knot.
fn corrections(t: &mut String, fit: &Fitted, p: &Platform) {
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
}
