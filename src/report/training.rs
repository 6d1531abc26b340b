//! What `train` prints: the model's size, cross-validation's figures per
//! selector with the policy each was given, and `auto`.

use crate::train::Trained;
use std::fmt::Write;
use std::path::Path;

/// The summary of a model just written to `dir`.
pub fn text(trained: &Trained, dir: &Path) -> String {
    let m = &trained.manifest;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "trained {} learner(s) on {} measurements ({} candidates, {} configurations)",
        m.learners.len(),
        m.training.measurements,
        m.candidates.len(),
        m.training.configurations
    );
    if m.cv.is_empty() {
        let _ = writeln!(
            t,
            "no cross-validation possible: it needs two or more procs values and \
             configurations measured with two or more candidates; `default` is kept \
             outside the trained range"
        );
    } else {
        let _ = writeln!(
            t,
            "cross-validation on held-out procs values ({} folds, the last one extrapolating): \
             slowdown of the pick vs the best measured;\n\
             margin: how much faster a candidate must be predicted to replace `default`, \
             plus the growth per doubling outside the trained range",
            m.cv[0].folds
        );
        let _ = writeln!(
            t,
            "  selector    margin  +/doubling  geomean  best   within 5%  configs (outside)"
        );
        for s in &m.cv {
            let _ = writeln!(
                t,
                "  {:<10}  {:>5.0}%  {:>9.0}%  {:>7.4}  {:>4.1}%  {:>8.1}%  {:>7} ({})",
                s.selector.name(),
                100.0 * s.policy.margin,
                100.0 * s.policy.per_doubling,
                s.geomean_slowdown_vs_best,
                100.0 * s.best_rate,
                100.0 * s.within_5pct_rate,
                s.configs,
                s.extrapolated_configs
            );
        }
    }
    if !m.cv.is_empty() {
        let _ = writeln!(t, "auto chosen on {}", m.auto.evidence);
    }
    let _ = writeln!(t, "auto = {}; model written to {}", m.auto, dir.display());
    t
}
