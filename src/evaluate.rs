//! Every selector side by side on configurations the models never saw
//! (DESIGN §3): speed-up over the library default, slowdown against the best
//! measured candidate, hit rates.

use crate::data::{Candidate, Config, Dataset, Measurement};
use crate::error::{Error, Result};
use crate::learn::LearnerKind;
use crate::metrics::{pairwise_accuracy, Pairwise};
use crate::ompi_fixed;
use crate::select::{Predictor, Ranked, Selector};
use crate::train::{choose_auto, cross_validate, default_margin, CvScore, TrainingSet};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Serialize;
use std::collections::BTreeSet;

/// What to hold out when one file is split into training and test parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SplitBy {
    Procs,
    Nodes,
}

/// The held-out values of the split column: `fraction` of the distinct
/// values (at least one, never all), drawn with `seed`.
pub fn held_out(d: &Dataset, by: SplitBy, fraction: f64, seed: u64) -> Result<BTreeSet<u32>> {
    let mut values: Vec<u32> = d
        .configs()
        .map(|c| key(&c, by))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if values.len() < 2 {
        return Err(Error::Usage(format!(
            "cannot split by {}: the data has {} distinct value(s), a split needs two or more",
            format!("{by:?}").to_lowercase(),
            values.len()
        )));
    }
    let n = ((values.len() as f64 * fraction).round() as usize).clamp(1, values.len() - 1);
    values.shuffle(&mut StdRng::seed_from_u64(seed));
    Ok(values.into_iter().take(n).collect())
}

pub fn key(c: &Config, by: SplitBy) -> u32 {
    match by {
        SplitBy::Procs => c.procs,
        SplitBy::Nodes => c.nodes,
    }
}

/// Keeps every third distinct procs value (the lowest, the fourth lowest,
/// ...): Hunold et al.'s "small training dataset".
pub fn small_train(d: &Dataset) -> Dataset {
    let procs: Vec<u32> = d
        .configs()
        .map(|c| c.procs)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let keep: BTreeSet<u32> = procs.into_iter().step_by(3).collect();
    d.subset(|m| keep.contains(&m.config.procs))
}

/// One selector's figures (DESIGN §3 field names).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SelectorScore {
    pub name: String,
    pub evaluated_configs: usize,
    pub unmeasured_configs: usize,
    pub geomean_speedup_vs_default: f64,
    pub mean_speedup_vs_default: f64,
    pub geomean_slowdown_vs_best: f64,
    pub best_rate: f64,
    pub within_5pct_rate: f64,
    pub worse_than_default_10pct_rate: f64,
}

/// Pairwise ranking accuracy (see [`pairwise_accuracy`]) over all priced
/// candidates, and over the forced ones only.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Ranking {
    pub all: Option<Pairwise>,
    pub forced: Option<Pairwise>,
}

/// One selector's pick at one test configuration.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pick {
    pub selector: String,
    pub candidate: Candidate,
    /// Measured time of the pick; `None` when it was not measured there.
    pub time_us: Option<f64>,
    pub predicted_us: Option<f64>,
}

/// A test configuration with its reference times and every selector's pick.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConfigResult {
    pub config: Config,
    pub best: Candidate,
    pub t_best_us: f64,
    pub t_default_us: f64,
    pub picks: Vec<Pick>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub train_rows: usize,
    pub test_rows: usize,
    pub test_configs: usize,
    pub selectors: Vec<SelectorScore>,
    /// Pairwise ranking accuracy of the analytical model on the test part.
    pub analytical_ranking: Ranking,
    #[serde(skip)]
    pub auto: LearnerKind,
    #[serde(skip)]
    pub cv: Vec<CvScore>,
    #[serde(skip)]
    pub configs: Vec<ConfigResult>,
}

/// Trains on `train` as `bcast-select train` would and scores every selector
/// on the comparable configurations of `test`.
pub fn evaluate(
    train: &Dataset,
    test: &Dataset,
    learners: &[LearnerKind],
    folds: usize,
    mut tick: impl FnMut(),
) -> Result<Report> {
    if train.is_empty() {
        return Err(Error::Usage("the training part is empty".into()));
    }
    if !test.by_config().any(|g| comparable(g).is_some()) {
        let with_default = test
            .by_config()
            .filter(|g| g.iter().any(|m| m.candidate.is_default()))
            .count();
        return Err(Error::Usage(format!(
            "nothing to evaluate: none of the test part's {} configuration(s) has both a \
             `default` row and another measured candidate ({with_default} have a `default` \
             row); selectors are scored against the library default, so measure it too \
             (`bench` does)",
            test.by_config().count()
        )));
    }
    let set = TrainingSet::new(train, learners.iter().any(|k| k.is_hybrid()));
    let cv = cross_validate(train, learners, folds, &mut tick)?;
    let auto = choose_auto(learners, cv.as_deref());
    let mut fitted = Vec::new();
    for &kind in learners {
        fitted.push((kind, set.fit(kind)?));
        tick();
    }
    let analytical = Selector {
        candidates: &set.cs.candidates,
        predictor: Predictor::Analytical(&set.analytical),
        mappings: &set.cs.mappings,
        default_margin: 0.0,
    };
    // How well the analytical model orders the candidates measured on the
    // test part: all of them, and those forced (without `default`, which
    // models that cannot price it leave out).
    let analytical_ranking = Ranking {
        all: pairwise_accuracy(test, 0.0, |c, k| set.analytical.predict_us(c, k)),
        forced: pairwise_accuracy(test, 0.0, |c, k| {
            (!k.is_default())
                .then(|| set.analytical.predict_us(c, k))
                .flatten()
        }),
    };
    let mut names: Vec<String> = ["oracle", "default", "ompi-fixed", "analytical"]
        .map(String::from)
        .to_vec();
    names.extend(learners.iter().map(|k| k.to_string()));
    names.push("auto".into());

    let mut configs = Vec::new();
    for group in test.by_config() {
        let Some(default) = comparable(group) else {
            continue;
        };
        let measured = |c: &Candidate| group.iter().find(|m| m.candidate == *c).map(|m| m.time_us);
        let Some(best) = group.iter().min_by(|a, b| a.time_us.total_cmp(&b.time_us)) else {
            continue;
        };
        let config = group[0].config;
        let mut picks = vec![
            Pick {
                selector: "oracle".into(),
                candidate: best.candidate,
                time_us: Some(best.time_us),
                predicted_us: None,
            },
            Pick {
                selector: "default".into(),
                candidate: default.candidate,
                time_us: Some(default.time_us),
                predicted_us: None,
            },
        ];
        let fixed = ompi_fixed::candidate(config.procs, config.msg_bytes);
        picks.push(Pick {
            selector: "ompi-fixed".into(),
            candidate: fixed,
            time_us: measured(&fixed),
            predicted_us: None,
        });
        let pick = |name: &str, ranked: Vec<Ranked>| {
            ranked.first().map(|top| Pick {
                selector: name.to_string(),
                candidate: top.candidate,
                time_us: measured(&top.candidate),
                predicted_us: Some(top.predicted_us),
            })
        };
        picks.extend(pick("analytical", analytical.rank(&config, None)));
        for (kind, models) in &fitted {
            let margin = default_margin(cv.as_deref().unwrap_or_default(), *kind);
            let ranked = set.selector(*kind, models, margin).rank(&config, None);
            if let Some(p) = pick(kind.name(), ranked) {
                if *kind == auto {
                    picks.push(Pick {
                        selector: "auto".into(),
                        ..p.clone()
                    });
                }
                picks.push(p);
            }
        }
        configs.push(ConfigResult {
            config,
            best: best.candidate,
            t_best_us: best.time_us,
            t_default_us: default.time_us,
            picks,
        });
    }
    let selectors = names.iter().map(|n| score(n, &configs)).collect();
    Ok(Report {
        train_rows: train.measurements().len(),
        test_rows: test.measurements().len(),
        test_configs: configs.len(),
        selectors,
        analytical_ranking,
        auto,
        cv: cv.unwrap_or_default(),
        configs,
    })
}

/// The `default` row of a test configuration the figures can use (DESIGN
/// §3): one with that row and at least one other measured candidate.
fn comparable(group: &[Measurement]) -> Option<&Measurement> {
    let default = group.iter().find(|m| m.candidate.is_default())?;
    (group.len() >= 2).then_some(default)
}

#[cfg(test)]
impl Report {
    /// A report of `configs` whose picks are by oracle, default and auto.
    pub fn for_plots(configs: Vec<ConfigResult>) -> Report {
        Report {
            train_rows: 0,
            test_rows: 0,
            test_configs: configs.len(),
            selectors: ["oracle", "default", "auto"]
                .map(|n| score(n, &configs))
                .to_vec(),
            analytical_ranking: Ranking::default(),
            auto: LearnerKind::Knn,
            cv: Vec::new(),
            configs,
        }
    }
}

/// DESIGN §3 figures of one selector over the configurations.
fn score(name: &str, configs: &[ConfigResult]) -> SelectorScore {
    let (mut n, mut unmeasured) = (0usize, 0usize);
    let (mut log_speedup, mut sum_speedup, mut log_slowdown) = (0.0, 0.0, 0.0);
    let (mut best, mut within, mut worse) = (0usize, 0usize, 0usize);
    for c in configs {
        // No pick (the selector had no model there) counts as unmeasured.
        let Some(t) = c
            .picks
            .iter()
            .find(|p| p.selector == name)
            .and_then(|p| p.time_us)
        else {
            unmeasured += 1;
            continue;
        };
        let speedup = c.t_default_us / t;
        let slowdown = t / c.t_best_us;
        n += 1;
        log_speedup += speedup.ln();
        sum_speedup += speedup;
        log_slowdown += slowdown.ln();
        best += usize::from(slowdown <= 1.0 + 1e-9);
        within += usize::from(slowdown <= 1.05);
        worse += usize::from(t > 1.10 * c.t_default_us);
    }
    let mean = |v: f64| if n == 0 { f64::NAN } else { v / n as f64 };
    SelectorScore {
        name: name.to_string(),
        evaluated_configs: n,
        unmeasured_configs: unmeasured,
        geomean_speedup_vs_default: mean(log_speedup).exp(),
        mean_speedup_vs_default: mean(sum_speedup),
        geomean_slowdown_vs_best: mean(log_slowdown).exp(),
        best_rate: mean(best as f64),
        within_5pct_rate: mean(within as f64),
        worse_than_default_10pct_rate: mean(worse as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Provenance};

    fn result(t_best: f64, t_default: f64, pick: Option<f64>) -> ConfigResult {
        let c = row(4, 8, Algorithm::Linear, 1.0);
        ConfigResult {
            config: c.config,
            best: c.candidate,
            t_best_us: t_best,
            t_default_us: t_default,
            picks: vec![Pick {
                selector: "s".into(),
                candidate: c.candidate,
                time_us: pick,
                predicted_us: None,
            }],
        }
    }

    #[test]
    fn scores_follow_design_definitions() {
        let configs = [
            result(1.0, 2.0, Some(1.0)),  // best; speed-up 2
            result(1.0, 1.0, Some(1.2)),  // 20% slower than best and default
            result(1.0, 4.0, None),       // unmeasured
            result(2.0, 2.0, Some(2.08)), // within 5%
        ];
        let s = score("s", &configs);
        assert_eq!(s.evaluated_configs, 3);
        assert_eq!(s.unmeasured_configs, 1);
        let g = (2.0f64 * (1.0 / 1.2) * (2.0 / 2.08)).powf(1.0 / 3.0);
        assert!((s.geomean_speedup_vs_default - g).abs() < 1e-12);
        assert!((s.mean_speedup_vs_default - (2.0 + 1.0 / 1.2 + 2.0 / 2.08) / 3.0).abs() < 1e-12);
        assert!((s.best_rate - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.within_5pct_rate - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.worse_than_default_10pct_rate - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn split_holds_out_whole_procs_values() {
        let rows = (2..12)
            .flat_map(|p| {
                [
                    row(p, 8, Algorithm::Default, 1.0),
                    row(p, 8, Algorithm::Linear, 2.0),
                ]
            })
            .collect();
        let d = Dataset::from_rows(rows, Provenance::default());
        let held = held_out(&d, SplitBy::Procs, 0.3, 7).unwrap();
        assert_eq!(held.len(), 3);
        assert_eq!(
            held,
            held_out(&d, SplitBy::Procs, 0.3, 7).unwrap(),
            "seeded"
        );
        assert!(
            held_out(&d, SplitBy::Procs, 1.0, 7).unwrap().len() < 10,
            "never all"
        );
        let small = small_train(&d);
        let kept: BTreeSet<u32> = small.configs().map(|c| c.procs).collect();
        assert_eq!(kept, BTreeSet::from([2, 5, 8, 11]));
    }
}
