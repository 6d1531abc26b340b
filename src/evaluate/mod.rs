//! Every selector side by side on configurations the models never saw
//! (docs/formats.md, `evaluate` output): speed-up over the library default, slowdown against the best
//! measured candidate, hit rates.

use crate::analytical::Fitted;
use crate::data::metrics::{pairwise_accuracy, Pairwise, Tally};
use crate::data::{Candidate, Config, Dataset, Measurement};
use crate::error::{Error, Result};
use crate::library::Library;
use crate::ompi_fixed;
use crate::select::decision::{DecisionTable, Job};
use crate::select::measured::{job_distance, key, Key};
use crate::select::{Auto, SelectorKind};
use crate::train::cv::CvScore;
use crate::train::{self, SelectorChoice, TrainOptions};
use serde::Serialize;
use std::collections::BTreeMap;

pub mod split;
pub use split::{split, Split};

/// One selector's figures (field names: docs/formats.md).
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
    /// Doublings outside the trained range (see [`Range::distance`]).
    pub distance: f64,
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
    /// The `auto` choice of each training run (one, or one per campaign
    /// left out).
    #[serde(skip)]
    pub auto: Vec<Auto>,
    #[serde(skip)]
    pub cv: Vec<CvScore>,
    #[serde(skip)]
    pub configs: Vec<ConfigResult>,
}

/// The selectors of a report, in order: references, then each selector
/// trained, then `auto`.
fn names(selectors: &[SelectorKind]) -> Vec<String> {
    let mut names: Vec<String> = ["oracle", "default", "ompi-fixed", "naive"]
        .map(String::from)
        .to_vec();
    names.extend(selectors.iter().map(|k| k.to_string()));
    names.push("auto".into());
    names
}

/// Trains on `train` as `collsel train` would and scores every
/// selector on the comparable configurations of `test`, each on the
/// decision table `predict` would write for the test job at the test
/// sizes (settled, and `auto` deciding measured configurations by their
/// measurement): what is scored is what is shipped.
pub fn evaluate(
    train: &Dataset,
    test: &Dataset,
    options: &TrainOptions,
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
    let (trained, _) = train::fit(train, options, &mut tick)?;
    let kinds = trained.selectors();
    let analytical_ranking = ranking(&trained.analytical, test);
    let mut deciders = Vec::with_capacity(kinds.len() + 1);
    for &kind in &kinds {
        deciders.push((kind.name(), trained.decider(SelectorChoice::One(kind))?));
    }
    deciders.push(("auto", trained.decider(SelectorChoice::Auto)?));
    let naive = Naive::new(train);
    let range = trained.manifest.range;
    let collective = test.provenance.collective();
    let library = Library::detect(&test.provenance.mpis);
    // The comparable test configurations of each job, by message size.
    let mut jobs: BTreeMap<Config, Vec<&[Measurement]>> = BTreeMap::new();
    for group in test.by_config().filter(|g| comparable(g).is_some()) {
        let job = Config {
            msg_bytes: 0,
            ..group[0].config
        };
        jobs.entry(job).or_default().push(group);
    }
    let mut configs = Vec::new();
    for groups in jobs.values_mut() {
        groups.sort_by_key(|g| g[0].config.msg_bytes);
        let job = Job::of(&groups[0][0].config);
        let sizes: Vec<u64> = groups.iter().map(|g| g[0].config.msg_bytes).collect();
        // A selector that can price nothing at some size has no table,
        // and no picks in this job.
        let tables: Vec<(&str, Option<DecisionTable>)> = deciders
            .iter()
            .map(|(name, d)| {
                (
                    *name,
                    DecisionTable::new(d, job, name.to_string(), &sizes, None).ok(),
                )
            })
            .collect();
        for (i, group) in groups.iter().enumerate() {
            let config = group[0].config;
            let (Some(default), Some(best)) = (
                comparable(group),
                group.iter().min_by(|a, b| a.time_us.total_cmp(&b.time_us)),
            ) else {
                continue;
            };
            let measured =
                |c: &Candidate| group.iter().find(|m| m.candidate == *c).map(|m| m.time_us);
            let reference = |name: &str, candidate: Candidate| Pick {
                selector: name.into(),
                candidate,
                time_us: measured(&candidate),
                predicted_us: None,
            };
            let mut picks = vec![
                reference("oracle", best.candidate),
                reference("default", default.candidate),
            ];
            // Open MPI's fixed decision, where it is known, on data of Open
            // MPI (or of no named library).
            let fixed = (library != Library::Mpich)
                .then(|| ompi_fixed::decision(collective, config.procs, config.msg_bytes))
                .flatten();
            if let Some(fixed) = fixed {
                picks.push(reference("ompi-fixed", fixed));
            }
            picks.extend(naive.pick(&config).map(|c| reference("naive", c)));
            for (name, table) in &tables {
                let Some(choice) = table.as_ref().map(|t| t.decisions[i].choice) else {
                    continue;
                };
                picks.push(Pick {
                    selector: name.to_string(),
                    candidate: choice.candidate,
                    time_us: measured(&choice.candidate),
                    predicted_us: choice
                        .predicted_us
                        .is_finite()
                        .then_some(choice.predicted_us),
                });
            }
            configs.push(ConfigResult {
                config,
                best: best.candidate,
                t_best_us: best.time_us,
                t_default_us: default.time_us,
                distance: range.distance(&config),
                picks,
            });
        }
    }
    let selectors = names(&kinds).iter().map(|n| score(n, &configs)).collect();
    Ok(Report {
        train_rows: trained.manifest.training.measurements,
        test_rows: test.measurements().len(),
        test_configs: configs.len(),
        selectors,
        analytical_ranking,
        auto: vec![trained.manifest.auto],
        cv: trained.manifest.cv.clone(),
        configs,
    })
}

/// How well the analytical model orders the candidates measured on `test`:
/// all of them, and those forced (without `default`, which models that
/// cannot price it leave out).
fn ranking(analytical: &Fitted, test: &Dataset) -> Ranking {
    analytical.prime(
        test.measurements()
            .iter()
            .map(|m| (&m.config, &m.candidate)),
    );
    Ranking {
        all: pairwise_accuracy(test, 0.0, |c, k| analytical.predict_us(c, k)),
        forced: pairwise_accuracy(test, 0.0, |c, k| {
            (!k.is_default())
                .then(|| analytical.predict_us(c, k))
                .flatten()
        }),
    }
}

/// One report of several training runs (leave one campaign out at a time):
/// every run's test configurations scored together.
pub fn pool(reports: Vec<Report>) -> Option<Report> {
    let names: Vec<String> = reports
        .first()?
        .selectors
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let mut out = Report {
        train_rows: 0,
        test_rows: 0,
        test_configs: 0,
        selectors: Vec::new(),
        analytical_ranking: Ranking::default(),
        auto: Vec::new(),
        cv: Vec::new(),
        configs: Vec::new(),
    };
    let mut ranking: [(f64, usize); 2] = [(0.0, 0); 2];
    for r in reports {
        out.train_rows += r.train_rows;
        out.test_rows += r.test_rows;
        out.auto.extend(r.auto);
        out.cv.extend(r.cv);
        out.configs.extend(r.configs);
        for (sum, p) in ranking
            .iter_mut()
            .zip([r.analytical_ranking.all, r.analytical_ranking.forced])
        {
            if let Some(p) = p {
                sum.0 += p.accuracy * p.pairs as f64;
                sum.1 += p.pairs;
            }
        }
    }
    let [all, forced] = ranking.map(|(right, pairs)| {
        (pairs > 0).then(|| Pairwise {
            pairs,
            accuracy: right / pairs as f64,
        })
    });
    out.analytical_ranking = Ranking { all, forced };
    out.test_configs = out.configs.len();
    out.selectors = names.iter().map(|n| score(n, &out.configs)).collect();
    Some(out)
}

/// The baseline any learner must beat: the best measured candidate of the
/// nearest training job (procs, then nodes, nearest in log scale; the
/// smaller on a tie) with the same mapping, size and arrival.
struct Naive {
    /// The best candidate of each trained job, by what must match.
    best: BTreeMap<Key, Vec<(JobSize, Candidate)>>,
}

/// (procs, nodes) of a trained job.
type JobSize = (u32, u32);

impl Naive {
    fn new(train: &Dataset) -> Naive {
        let mut best: BTreeMap<_, Vec<_>> = BTreeMap::new();
        for group in train.by_config() {
            let c = &group[0].config;
            if let Some(m) = group.iter().min_by(|a, b| a.time_us.total_cmp(&b.time_us)) {
                best.entry(key(c))
                    .or_default()
                    .push(((c.procs, c.nodes), m.candidate));
            }
        }
        Naive { best }
    }

    fn pick(&self, c: &Config) -> Option<Candidate> {
        self.best
            .get(&key(c))?
            .iter()
            .min_by(|((p, n), _), ((q, m), _)| {
                job_distance(*p, *n, c)
                    .partial_cmp(&job_distance(*q, *m, c))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|(_, candidate)| *candidate)
    }
}

/// The `default` row of a test configuration the figures can use: one
/// with that row and at least one other measured candidate.
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
            auto: vec![Auto {
                inside: SelectorKind::Learner(crate::learn::LearnerKind::Knn),
                outside: SelectorKind::Analytical,
                evidence: crate::select::Evidence::Jobs,
            }],
            cv: Vec::new(),
            configs,
        }
    }
}

/// The figures of one selector (docs/formats.md) over the configurations.
fn score(name: &str, configs: &[ConfigResult]) -> SelectorScore {
    let mut tally = Tally::default();
    let mut unmeasured = 0;
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
        tally.add(t / c.t_best_us, Some(c.t_default_us / t));
    }
    SelectorScore {
        name: name.to_string(),
        evaluated_configs: tally.n,
        unmeasured_configs: unmeasured,
        geomean_speedup_vs_default: tally.geomean_speedup(),
        mean_speedup_vs_default: tally.mean_speedup(),
        geomean_slowdown_vs_best: tally.geomean_slowdown(),
        best_rate: tally.best_rate(),
        within_5pct_rate: tally.near_rate(),
        worse_than_default_10pct_rate: tally.worse_rate(),
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
            distance: 0.0,
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
    fn naive_copies_the_nearest_trained_job() {
        let rows = vec![
            row(2, 8, Algorithm::Default, 2.0),
            row(2, 8, Algorithm::Linear, 1.0),
            row(16, 8, Algorithm::Default, 1.0),
            row(16, 8, Algorithm::Linear, 2.0),
        ];
        let naive = Naive::new(&Dataset::from_rows(rows, Provenance::default()));
        let at = |p| naive.pick(&row(p, 8, Algorithm::Default, 1.0).config);
        assert_eq!(at(3).unwrap().algorithm, Algorithm::Linear);
        assert_eq!(at(12).unwrap().algorithm, Algorithm::Default);
        assert_eq!(at(64).unwrap().algorithm, Algorithm::Default, "the largest");
        assert!(naive
            .pick(&row(4, 1024, Algorithm::Default, 1.0).config)
            .is_none());
    }
}
