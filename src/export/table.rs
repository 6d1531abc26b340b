//! A decision table for people: the ranges of message sizes, each one's
//! choice, its predicted time and the runner-up.

use crate::data::System;
use crate::select::decision::{Decision, DecisionTable};
use crate::units::format_bytes;
use std::fmt::Write;

pub fn render(t: &DecisionTable, system: &System) -> String {
    let j = &t.job;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} decisions for {} node(s) x {} ranks ({} ranks, mapping {}), learner {}",
        system.collective.function(),
        j.nodes,
        j.ppn,
        j.procs,
        j.mapping,
        t.learner
    );
    let _ = writeln!(s, "for {system}");
    if j.arrival != crate::data::Arrival::Barrier {
        let _ = writeln!(
            s,
            "for arrival pattern {} with imbalance factor {} (time = mean per-rank time from own arrival)",
            j.arrival, j.imbalance
        );
    }
    let rows: Vec<[String; 5]> = t
        .ranges()
        .iter()
        .map(|r| {
            let ds = &t.decisions[r.first..=r.last];
            let sizes = if r.from_bytes == r.to_bytes {
                format_bytes(r.from_bytes)
            } else {
                format!(
                    "{} - {}",
                    format_bytes(r.from_bytes),
                    format_bytes(r.to_bytes)
                )
            };
            let (lo, hi) = (predicted(&ds[0]), predicted(&ds[ds.len() - 1]));
            let predicted = if ds.len() == 1 {
                lo
            } else {
                format!("{lo} - {hi}")
            };
            // The closest call in the range is what a reader should see.
            let closest = ds
                .iter()
                .filter(|d| d.margin.is_some())
                .min_by(|a, b| a.margin.unwrap_or(0.0).total_cmp(&b.margin.unwrap_or(0.0)));
            let (runner, margin) = match closest {
                Some(d) => (
                    d.runner_up.map_or("-".into(), |r| r.candidate.to_string()),
                    format!("{:.1}%", 100.0 * d.margin.unwrap_or(0.0)),
                ),
                None => ("-".into(), "-".into()),
            };
            let outside = if ds.iter().any(|d| d.extrapolated) {
                " *"
            } else {
                ""
            };
            [
                format!("{sizes}{outside}"),
                r.candidate.to_string(),
                predicted,
                runner,
                margin,
            ]
        })
        .collect();
    let header = ["message size", "choice", "predicted", "runner-up", "margin"];
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let _ = writeln!(s, "{}", line(&header));
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        let _ = writeln!(s, "{}", line(&cells));
    }
    if t.decisions.iter().any(|d| d.extrapolated) {
        let _ = writeln!(
            s,
            "* outside the trained job and message sizes: `default` is kept unless \
             cross-validation showed the selector gains that far out; confirm a switch there \
             with `collsel verify` in such a job"
        );
    }
    if t.decisions.iter().any(|d| d.at_floor) {
        let _ = writeln!(
            s,
            ">= the model predicted less than the fastest time measured at that size on any \
             job: that time is shown, as a bound"
        );
    }
    s
}

/// A decision's predicted time as the table shows it: a bound where the
/// model predicted below the floor, `unpriced` where it could not price
/// the choice (`default` under the analytical model, say).
fn predicted(d: &Decision) -> String {
    match (d.choice.predicted_us.is_finite(), d.at_floor) {
        (false, _) => "unpriced".into(),
        (true, true) => format!(">={}", format_us(d.choice.predicted_us)),
        (true, false) => format_us(d.choice.predicted_us),
    }
}

fn format_us(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.2} s", us / 1e6)
    } else if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.2} us")
    }
}

#[cfg(test)]
mod tests {
    use super::format_us;

    #[test]
    fn times_read_in_the_largest_unit_below_them() {
        assert_eq!(format_us(2.5), "2.50 us");
        assert_eq!(format_us(1500.0), "1.50 ms");
        assert_eq!(format_us(5_499_050.0), "5.50 s");
    }
}
