//! The evaluation report as Markdown: the summary table, then every test
//! configuration with each selector's pick.

use crate::evaluate::Report;
use crate::units::format_bytes;
use std::fmt::Write;

pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Selector evaluation\n\n{} training rows, {} test rows, {} test configurations \
         (with a `default` row and another candidate). `auto` = {}.\n",
        r.train_rows,
        r.test_rows,
        r.test_configs,
        r.auto
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    );
    let _ = writeln!(
        s,
        "| selector | evaluated | unmeasured | geomean speed-up vs default | mean speed-up | \
         geomean slowdown vs best | best | within 5% | >10% slower than default |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    // A selector that picked nothing measured has no figures.
    let ratio = |v: f64| {
        if v.is_nan() {
            "–".into()
        } else {
            format!("{v:.3}")
        }
    };
    let pct = |v: f64| {
        if v.is_nan() {
            "–".into()
        } else {
            format!("{:.1}%", 100.0 * v)
        }
    };
    for x in &r.selectors {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            x.name,
            x.evaluated_configs,
            x.unmeasured_configs,
            ratio(x.geomean_speedup_vs_default),
            ratio(x.mean_speedup_vs_default),
            ratio(x.geomean_slowdown_vs_best),
            pct(x.best_rate),
            pct(x.within_5pct_rate),
            pct(x.worse_than_default_10pct_rate)
        );
    }
    if !r.cv.is_empty() {
        let _ = writeln!(
            s,
            "\nCross-validation on the training part (chooses `auto`): geomean slowdown vs best — {}",
            r.cv.iter()
                .map(|c| format!("{} {:.4}", c.selector, c.geomean_slowdown_vs_best))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let names: Vec<&str> = r
        .configs
        .first()
        .map(|c| {
            c.picks
                .iter()
                .skip(1)
                .map(|p| p.selector.as_str())
                .collect()
        })
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "\n## Per configuration\n\nBest measured candidate, then each selector's pick with its \
         slowdown against the best (`n/m`: the pick was not measured there).\n"
    );
    let _ = writeln!(
        s,
        "| procs | nodes x ppn | mapping | size | best | {} |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---:|---|---|---:|---|{}", "---|".repeat(names.len()));
    for c in &r.configs {
        let picks: Vec<String> = c
            .picks
            .iter()
            .skip(1)
            .map(|p| match p.time_us {
                Some(t) => format!("{} +{:.0}%", p.candidate, 100.0 * (t / c.t_best_us - 1.0)),
                None => format!("{} n/m", p.candidate),
            })
            .collect();
        let k = &c.config;
        let mut size = format_bytes(k.msg_bytes);
        if k.arrival.per_rank_time() {
            size += &format!(", {} X={}", k.arrival, k.imbalance);
        }
        let _ = writeln!(
            s,
            "| {} | {}x{} | {} | {} | {} | {} |",
            k.procs,
            k.nodes,
            k.ppn,
            k.mapping,
            size,
            c.best,
            picks.join(" | ")
        );
    }
    s
}
