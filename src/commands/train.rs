use super::warn_all;
use crate::cli::TrainArgs;
use crate::data::load::load_files;
use crate::data::summary::Summary;
use crate::error::{Error, Result};
use crate::learn::features;
use crate::learn::hybrid;
use crate::learn::target::Target;
use crate::select::measured::Measured;
use crate::select::{Range, SelectorKind};
use crate::train::cv::{choose_auto, cross_validate, held_out_groups};
use crate::train::samples::{TrainingSet, MIN_ROWS};
use crate::train::store::{self, LearnerModels, Manifest, FORMAT_VERSION};
use indicatif::{ProgressBar, ProgressStyle};

pub fn train(args: &TrainArgs) -> Result<()> {
    let learners = args.learning.learners();
    let loaded = load_files(&args.files, &args.system.choice())?;
    warn_all(&loaded.warnings);
    let all = loaded.dataset;
    if all.duplicate_rows() > 0 {
        eprintln!(
            "combined {} duplicate rows by their median",
            all.duplicate_rows()
        );
    }
    // What was measured (range and configurations) comes from all rows:
    // thinning drops sizes between kept ones only.
    let range = Range::of(&all);
    let thinned = super::thin(&all, args.learning.max_rows);
    let data = thinned.as_ref().unwrap_or(&all);
    let folds = held_out_groups(data, args.learning.folds as usize).len();
    let bar = ProgressBar::new((folds * (learners.len() + 1) + learners.len()) as u64).with_style(
        ProgressStyle::with_template("{msg:>14} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})")
            .map_err(|e| Error::Other(e.to_string()))?
            .progress_chars("=> "),
    );
    bar.set_message("analytical");
    let hybrid = learners.iter().any(|k| k.is_hybrid());
    let set = TrainingSet::new(data, hybrid);
    let selectors = set.selectors(&learners);
    bar.set_message("cross-validate");
    let cv = cross_validate(
        data,
        &set.analytical,
        &selectors,
        args.learning.folds as usize,
        || bar.inc(1),
    )?;
    bar.set_message("fit");
    let cs = &set.cs;
    for (c, n) in &cs.too_rare {
        bar.suspend(|| {
            eprintln!(
                "warning: candidate {c} has only {n} measurement(s) (at least {MIN_ROWS} needed): left out"
            )
        });
    }
    if cs.candidates.is_empty() {
        return Err(Error::Usage(format!(
            "no candidate has {MIN_ROWS} or more measurements: nothing to train"
        )));
    }
    if cs.target == Target::Time {
        let configs = data.by_config().count();
        let with_default = data
            .by_config()
            .filter(|g| g.iter().any(|m| m.candidate.is_default()))
            .count();
        if with_default > 0 {
            bar.suspend(|| {
                eprintln!(
                    "warning: `default` measured at only {with_default} of {configs} configurations: \
                     the learners fit times instead of ratios to `default`"
                )
            });
        }
    }
    if let [only] = cs.candidates.as_slice() {
        bar.suspend(|| {
            eprintln!(
                "warning: only one candidate ({only}) in the data: every decision will be {only}"
            )
        });
    }
    let mut fitted = Vec::with_capacity(learners.len());
    for &kind in &learners {
        fitted.push(LearnerModels {
            learner: kind,
            candidates: cs.candidates.clone(),
            models: set.fit(SelectorKind::Learner(kind))?,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let auto = choose_auto(&selectors, cv.as_ref());
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        written_by: format!("bcast-select {}", env!("CARGO_PKG_VERSION")),
        features: features::BASE.iter().map(|s| s.to_string()).collect(),
        hybrid_features: vec![hybrid::FEATURE.to_string()],
        candidates: cs.candidates.clone(),
        candidate_mappings: cs.mappings.clone(),
        learners: learners.clone(),
        target: cs.target,
        auto,
        cv: cv.as_ref().map(|cv| cv.scores.clone()).unwrap_or_default(),
        range,
        training_files: args.files.iter().map(|f| f.display().to_string()).collect(),
        training: Summary::of(data),
    };
    let measured = Measured::of(&all, &cs.candidates);
    store::save(&args.out, &manifest, &fitted, &set.analytical, &measured)?;

    println!(
        "trained {} learner(s) on {} measurements ({} candidates, {} configurations)",
        learners.len(),
        data.measurements().len(),
        cs.candidates.len(),
        manifest.training.configurations
    );
    match cv.as_ref().map(|cv| &cv.scores) {
        Some(scores) => {
            println!(
                "cross-validation on held-out procs values ({} folds, the last one extrapolating): \
                 slowdown of the pick vs the best measured;\n\
                 margin: how much faster a candidate must be predicted to replace `default`, \
                 plus the growth per doubling outside the trained range",
                scores.first().map_or(0, |s| s.folds)
            );
            println!(
                "  selector    margin  +/doubling  geomean  best   within 5%  configs (outside)"
            );
            for s in scores {
                println!(
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
        None => println!(
            "no cross-validation possible: it needs two or more procs values and \
             configurations measured with two or more candidates; `default` is kept \
             outside the trained range"
        ),
    }
    println!("auto = {auto}; model written to {}", args.out.display());
    // The process ends here: freeing the data, paths and models one
    // allocation at a time took 3 s of a million-row campaign's training;
    // the system reclaims them at once.
    std::mem::forget((set, fitted, measured, thinned, all));
    Ok(())
}
