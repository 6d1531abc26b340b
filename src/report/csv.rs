//! The evaluation report as CSV: one row per test configuration and
//! selector.

use crate::evaluate::Report;
use std::fmt::Write;

pub fn render(r: &Report) -> String {
    let mut s = String::from(
        "procs,nodes,ppn,mapping,msg_bytes,imbalance,selector,algorithm,segsize_bytes,fanout,impl,\
         measured,time_us,predicted_us,t_best_us,t_default_us,slowdown_vs_best,speedup_vs_default\n",
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    for c in &r.configs {
        let k = &c.config;
        for p in &c.picks {
            let cand = &p.candidate;
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                k.procs,
                k.nodes,
                k.ppn,
                k.mapping,
                k.msg_bytes,
                k.imbalance,
                p.selector,
                cand.algorithm,
                opt(cand.segsize.map(|v| v.to_string())),
                opt(cand.fanout.map(|v| v.to_string())),
                cand.implementation,
                p.time_us.is_some(),
                opt(p.time_us.map(|v| v.to_string())),
                opt(p.predicted_us.map(|v| v.to_string())),
                c.t_best_us,
                c.t_default_us,
                opt(p.time_us.map(|t| (t / c.t_best_us).to_string())),
                opt(p.time_us.map(|t| (c.t_default_us / t).to_string())),
            );
        }
    }
    s
}
