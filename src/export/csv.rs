//! Decision tables as CSV: one row per message size of each job.

use crate::data::write::quote;
use crate::data::Candidate;
use crate::data::System;
use crate::select::decision::DecisionTable;
use std::fmt::Write;

pub fn render(tables: &[DecisionTable], system: &System) -> String {
    let mut s = String::from(
        "machine,mpi,nodes,ppn,procs,mapping,arrival_pattern,imbalance,learner,msg_bytes,algorithm,segsize_bytes,fanout,impl,predicted_us,\
         runner_up_algorithm,runner_up_segsize_bytes,runner_up_fanout,runner_up_impl,runner_up_predicted_us,margin,\
         extrapolated\n",
    );
    for t in tables {
        let j = &t.job;
        for d in &t.decisions {
            let runner = d.runner_up.map_or(",,,,".to_string(), |r| {
                format!("{},{}", candidate(&r.candidate), r.predicted_us)
            });
            let margin = d.margin.map_or(String::new(), |m| m.to_string());
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                quote(&system.machine),
                quote(&system.mpi),
                j.nodes,
                j.ppn,
                j.procs,
                j.mapping,
                j.arrival,
                j.imbalance,
                t.learner,
                d.msg_bytes,
                candidate(&d.choice.candidate),
                d.choice.predicted_us,
                runner,
                margin,
                d.extrapolated
            );
        }
    }
    s
}

/// The four candidate columns, as in the benchmark CSV.
fn candidate(c: &Candidate) -> String {
    let opt = |v: Option<String>| v.unwrap_or_default();
    format!(
        "{},{},{},{}",
        c.algorithm,
        opt(c.segsize.map(|v| v.to_string())),
        opt(c.fanout.map(|v| v.to_string())),
        c.implementation
    )
}
