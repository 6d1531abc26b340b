//! `tune`'s report: how to use the rules, the decisions per job size, what
//! they measured against the library's default where both were timed, and
//! the selectors on communicator sizes held out of training.

use crate::data::metrics::Tally;
use crate::data::{Candidate, Collective, Config, Dataset};
use crate::select::decision::DecisionTable;
use crate::units::format_bytes;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// The report of a tune whose rules went to `rules`: `tables` decided on
/// `data` (`decisions`, as `predict` prints them); `held_out` is the
/// evaluation's markdown, where there was one.
pub fn markdown(
    collective: Collective,
    rules: &Path,
    tables: &[DecisionTable],
    decisions: &str,
    data: &Dataset,
    held_out: Option<&str>,
) -> String {
    let mut t = String::new();
    let han = rules.with_file_name("han.rules");
    // Broadcast's files keep the names they had before other collectives.
    let suffix = match collective {
        Collective::Bcast => String::new(),
        other => format!("-{}", other.name()),
    };
    let _ = write!(
        t,
        "# bcast-select tune: {}\n\nMeasurements: `data.csv`; model: `model{suffix}/`; Open MPI \
         rules: `rules`, used with\n\n    OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
         OMPI_MCA_coll_tuned_dynamic_rules_filename={}\n\n",
        collective.function(),
        rules.display(),
    );
    let _ = write!(
        t,
        "and, with Open MPI 5 on jobs that span nodes (where coll/han serves {}), also \
         `han.rules`:\n\n    OMPI_MCA_coll_han_use_dynamic_file_rules=1 \
         OMPI_MCA_coll_han_dynamic_rules_filename={}\n\n",
        collective.function(),
        han.display()
    );
    let _ = writeln!(t, "## Measured effect\n\n{}", effect(tables, data));
    let _ = writeln!(t, "## Decisions\n\n```\n{decisions}```\n");
    match held_out {
        Some(text) => {
            let _ = write!(
                t,
                "## On communicator sizes held out of training (plots in `plots{suffix}/`)\n\n{text}"
            );
        }
        None => {
            let _ = writeln!(
                t,
                "Fewer than 3 communicator sizes: no held-out evaluation is possible."
            );
        }
    }
    t
}

/// Per job size, the measured speed-up of the decisions over `default` at
/// the message sizes where both were timed: what the rules change there.
fn effect(tables: &[DecisionTable], data: &Dataset) -> String {
    let times: HashMap<(Config, Candidate), f64> = data
        .measurements()
        .iter()
        .map(|m| ((m.config, m.candidate), m.time_us))
        .collect();
    let mut t = String::from(
        "Time of `default` over the time of the decision, both as measured, at the \
         message sizes where both were (1.00: the rules leave `default`; above 1: faster).\n\n\
         | ranks | sizes | geometric mean | smallest | largest | switched sizes |\n\
         |---:|---:|---:|---:|---:|---:|\n",
    );
    let mut all = Tally::default();
    for table in tables {
        let mut tally = Tally::default();
        let (mut lo, mut hi) = ((f64::INFINITY, 0), (0.0, 0));
        let mut switched = 0;
        for d in &table.decisions {
            let config = table.job.config(d.msg_bytes);
            let measured = |c: &Candidate| times.get(&(config, *c)).copied();
            let (Some(chosen), Some(default)) =
                (measured(&d.choice.candidate), measured(&Candidate::DEFAULT))
            else {
                continue;
            };
            let speedup = default / chosen;
            tally.add(1.0, Some(speedup));
            all.add(1.0, Some(speedup));
            switched += usize::from(!d.choice.candidate.is_default());
            if speedup < lo.0 {
                lo = (speedup, d.msg_bytes);
            }
            if speedup > hi.0 {
                hi = (speedup, d.msg_bytes);
            }
        }
        if tally.n == 0 {
            let _ = writeln!(t, "| {} | 0 | - | - | - | - |", table.job.procs);
            continue;
        }
        let _ = writeln!(
            t,
            "| {} | {} | {:.3} | {:.3} ({}) | {:.3} ({}) | {} |",
            table.job.procs,
            tally.n,
            tally.geomean_speedup(),
            lo.0,
            format_bytes(lo.1),
            hi.0,
            format_bytes(hi.1),
            switched
        );
    }
    if all.n > 0 {
        let _ = writeln!(
            t,
            "\nAll job sizes: geometric mean {:.3} over {} configurations.",
            all.geomean_speedup(),
            all.n
        );
    }
    t
}
