//! Cross-validation inside `train`: how well each selector's picks do on
//! communicator sizes it did not see, which chooses its [`Policy`] and the
//! `auto` selector. Two kinds of held-out sizes, as users meet them:
//!
//! - *between* measured sizes: the distinct procs values split into
//!   interleaved folds, each held out in turn;
//! - *beyond* them: the upper half of the procs values held out at once,
//!   trained on the lower half (an extrapolating fold, as when a user
//!   benchmarks small jobs and runs large ones).
//!
//! Each held-out configuration keeps its distance from its fold's trained
//! range. The policy's margin is chosen on those inside the range, its
//! growth per doubling on those outside; each by the one-standard-error
//! rule: of the settings whose mean held-out log slowdown exceeds the
//! best's by no more than one standard error (of the paired differences,
//! clustered by job), the most cautious. A selector that cannot
//! show it beats the library by more than the noise of its own evaluation
//! thereby keeps the library's choice.

use crate::analytical::Fitted;
use crate::data::metrics::Tally;
use crate::data::{Config, Dataset};
use crate::error::Result;
use crate::select::measured::Measured;
use crate::select::{prefer_default, Auto, Evidence, Policy, Ranked, SelectorKind, TrainedRange};
use crate::train::samples::TrainingSet;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Margins tried for keeping `default` inside the trained range.
pub const MARGINS: [f64; 6] = [0.0, 0.02, 0.05, 0.1, 0.2, 0.4];
/// Growths of the margin per doubling outside the trained range tried;
/// 1 keeps `default` everywhere outside.
pub const PER_DOUBLING: [f64; 6] = [0.0, 0.05, 0.1, 0.2, 0.5, 1.0];

/// How well a selector's picks did on held-out communicator sizes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CvScore {
    pub selector: SelectorKind,
    /// Folds, the extrapolating one included.
    pub folds: usize,
    /// Held-out configurations with at least two candidates measured.
    pub configs: usize,
    /// Of those, how many lay outside their fold's trained range.
    pub extrapolated_configs: usize,
    pub policy: Policy,
    /// Under that policy: geometric mean of t_pick / t_best (1 = always
    /// the best), over all held-out configurations, ...
    pub geomean_slowdown_vs_best: f64,
    /// ... those inside their fold's trained range, ...
    pub inside_geomean_slowdown: Option<f64>,
    /// ... and those outside it.
    pub outside_geomean_slowdown: Option<f64>,
    pub best_rate: f64,
    pub within_5pct_rate: f64,
}

/// The distinct procs values split into `folds` interleaved groups, so every
/// fold spans the whole range.
pub fn procs_folds(d: &Dataset, folds: usize) -> Vec<BTreeSet<u32>> {
    let procs = d.procs_values();
    let k = folds.min(procs.len()).max(1);
    let mut out = vec![BTreeSet::new(); k];
    for (i, p) in procs.into_iter().enumerate() {
        out[i % k].insert(p);
    }
    out
}

/// The upper half of the distinct procs values, when at least two remain
/// below to train on.
pub fn upper_half(d: &Dataset) -> Option<BTreeSet<u32>> {
    let procs = d.procs_values();
    let lower = procs.len().div_ceil(2);
    (procs.len() >= 3 && lower >= 2).then(|| procs[lower..].iter().copied().collect())
}

/// All held-out groups: the interleaved folds, then the extrapolating one
/// unless a fold already holds out exactly those values (with three procs
/// values the largest is both): the same held-out picks twice would count
/// one job's evidence twice.
pub fn held_out_groups(d: &Dataset, folds: usize) -> Vec<BTreeSet<u32>> {
    let mut groups = procs_folds(d, folds);
    if groups.len() < 2 {
        return Vec::new();
    }
    if let Some(upper) = upper_half(d).filter(|u| !groups.contains(u)) {
        groups.push(upper);
    }
    groups
}

/// A held-out configuration: each candidate measured there and trained on,
/// fastest predicted first (no margin applied), its measured time, and the
/// configuration's distance from its fold's trained range.
#[derive(Clone)]
struct HeldOut {
    ranked: Vec<Ranked>,
    times: BTreeMap<usize, f64>,
    distance: f64,
    /// The job (procs, nodes): configurations of one job share its run.
    job: (u32, u32),
}

impl HeldOut {
    /// The pick under `policy`.
    fn pick(&self, policy: &Policy) -> Ranked {
        let mut ranked = self.ranked.clone();
        prefer_default(&mut ranked, policy.margin_at(self.distance));
        ranked[0]
    }

    /// ln(t_pick / t_best) under `policy`.
    fn log_slowdown(&self, policy: &Policy) -> f64 {
        let t_best = self.times.values().copied().fold(f64::INFINITY, f64::min);
        (self.times[&self.pick(policy).index] / t_best).ln()
    }

    fn keeps_default(&self, policy: &Policy) -> bool {
        self.pick(policy).candidate.is_default()
    }
}

/// Cross-validation of each selector. A pick counts among the candidates
/// measured at that configuration (and trained on). Returns `None` when the
/// data have fewer than two procs values or no held-out configuration with
/// two or more candidates (there is nothing to choose between).
pub fn cross_validate(
    d: &Dataset,
    full: &Fitted,
    kinds: &[SelectorKind],
    folds: usize,
    mut tick: impl FnMut(),
) -> Result<Option<Cv>> {
    let groups = held_out_groups(d, folds);
    if groups.is_empty() {
        return Ok(None);
    }
    let hybrid = kinds
        .iter()
        .any(|k| matches!(k, SelectorKind::Learner(l) if l.is_hybrid()));
    // One fold at a time, each on every core (its rankings and fits are
    // parallel): folds side by side would each hold a copy of most of the
    // data and their own models at once.
    let per_fold: Vec<Result<Vec<Vec<HeldOut>>>> = groups
        .iter()
        .map(|held| {
            let picks = held_out_picks(d, full, held, kinds, hybrid);
            kinds.iter().for_each(|_| tick());
            picks
        })
        .collect();
    let mut held_out: Vec<Vec<HeldOut>> = kinds.iter().map(|_| Vec::new()).collect();
    for fold in per_fold {
        for (all, picks) in held_out.iter_mut().zip(fold?) {
            all.extend(picks);
        }
    }
    // A selector with nothing held out to score (every held-out
    // configuration had a single candidate) gets no row; no rows at all is
    // no CV.
    if held_out.first().is_none_or(|h| h.is_empty()) {
        return Ok(None);
    }
    let thin = held_out[0]
        .iter()
        .filter(|h| h.distance == 0.0)
        .map(|h| h.job)
        .collect::<BTreeSet<_>>()
        .len()
        < 2;
    let policies: Vec<Policy> = held_out.iter().map(|h| choose_policy(h, thin)).collect();
    let scores = kinds
        .iter()
        .zip(&held_out)
        .zip(&policies)
        .map(|((&kind, held_out), &policy)| score(kind, groups.len(), policy, held_out))
        .collect();
    let (inside, evidence) = most_cautious_of_the_best(kinds, &held_out, &policies, true, thin);
    let (outside, _) = most_cautious_of_the_best(kinds, &held_out, &policies, false, thin);
    let auto = Auto {
        inside,
        outside,
        evidence,
    };
    Ok(Some(Cv { scores, auto }))
}

/// Cross-validation's figures per selector, and the `auto` they choose.
#[derive(Clone, Debug)]
pub struct Cv {
    pub scores: Vec<CvScore>,
    pub auto: Auto,
}

/// The `auto` choice among `kinds` on the held-out configurations inside
/// their fold's trained range (or, not `inside`, beyond it): of the
/// selectors (each under its policy) whose mean log slowdown exceeds the
/// best one's by no more than one standard error of the paired
/// differences, the one that keeps `default` most often (then the earlier
/// in `kinds`). Picking the best of several noisy scores favours the
/// luckiest; among those the data cannot tell apart, the cautious one is
/// the safe choice — unless the evidence is `thin` (see [`clusters`]):
/// then the nearest job's measurements, which need no model. A model
/// chosen on one job's message sizes was chosen on what that job's run
/// happened to do (on an MPICH campaign of three job sizes the model that
/// led there was 36% of the time 10% slower than `default` on the next
/// sizes). With the evidence that chose.
fn most_cautious_of_the_best(
    kinds: &[SelectorKind],
    held_out: &[Vec<HeldOut>],
    policies: &[Policy],
    inside: bool,
    thin: bool,
) -> (SelectorKind, Evidence) {
    let chosen: Vec<usize> = (0..held_out[0].len())
        .filter(|&i| (held_out[0][i].distance == 0.0) == inside)
        .collect();
    if chosen.is_empty() {
        return (kinds[0], Evidence::None);
    }
    if thin {
        if let Some(nearest) = kinds.iter().find(|&&k| k == SelectorKind::Nearest) {
            return (*nearest, Evidence::MessageSizes);
        }
    }
    let losses: Vec<Vec<f64>> = held_out
        .iter()
        .zip(policies)
        .map(|(h, p)| chosen.iter().map(|&i| h[i].log_slowdown(p)).collect())
        .collect();
    let kept: Vec<usize> = held_out
        .iter()
        .zip(policies)
        .map(|(h, p)| chosen.iter().filter(|&&i| h[i].keeps_default(p)).count())
        .collect();
    let options: Vec<usize> = (0..kinds.len()).collect();
    let jobs = clusters(chosen.iter().map(|&i| &held_out[0][i]), thin);
    let near = within_one_error(&losses, &jobs, &options);
    let pick = near
        .into_iter()
        .max_by(|&a, &b| kept[a].cmp(&kept[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    let evidence = match thin {
        true => Evidence::MessageSizes,
        false => Evidence::Jobs,
    };
    (kinds[pick], evidence)
}

/// How the errors of `held_out` configurations are clustered. By job,
/// normally: the sizes of one job share its
/// run. Each message size on its own where the evidence is `thin` (fewer
/// than two job sizes held out inside the trained range, as in a campaign
/// of three job sizes: what the sizes show is the only evidence there
/// is; with one job per cluster, no option could be shown worse than
/// another, and the first selector would decide by default).
fn clusters<'a>(held_out: impl Iterator<Item = &'a HeldOut>, thin: bool) -> Vec<(u32, u32)> {
    let jobs = held_out.map(|h| h.job);
    match thin {
        true => (0..jobs.count() as u32).map(|i| (i, u32::MAX)).collect(),
        false => jobs.collect(),
    }
}

/// Which of `options` (indices into `losses`) have a mean loss above the
/// best one's by no more than one standard error of the paired
/// differences. The error is clustered by `jobs` (one per loss): the
/// configurations of one job were measured in one run and its errors go
/// together, so a few jobs are little evidence however many sizes each has.
fn within_one_error(losses: &[Vec<f64>], jobs: &[(u32, u32)], options: &[usize]) -> Vec<usize> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let Some(&best) = options
        .iter()
        .min_by(|&&a, &&b| mean(&losses[a]).total_cmp(&mean(&losses[b])))
    else {
        return Vec::new();
    };
    options
        .iter()
        .copied()
        .filter(|&i| {
            let diff: Vec<f64> = losses[i]
                .iter()
                .zip(&losses[best])
                .map(|(a, b)| a - b)
                .collect();
            let m = mean(&diff);
            m <= clustered_error(&diff, jobs, m)
        })
        .collect()
}

/// The standard error of the mean `m` of `values`, clustered by `jobs`
/// (the sandwich estimator with the small-sample factor G/(G−1)).
/// Infinite for a single job: how much a job's result varies from job to
/// job cannot be told from one job, and its sizes' agreement with each
/// other says nothing about it; no option is then shown worse than another.
fn clustered_error(values: &[f64], jobs: &[(u32, u32)], m: f64) -> f64 {
    let n = values.len() as f64;
    let mut sums: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for (v, job) in values.iter().zip(jobs) {
        *sums.entry(*job).or_default() += v - m;
    }
    if sums.len() < 2 {
        return f64::INFINITY;
    }
    let g = sums.len() as f64;
    let var = g / (g - 1.0) * sums.values().map(|s| s * s).sum::<f64>() / (n * n);
    var.sqrt()
}

/// Held-out configurations one fold scores at most. Scoring prices every
/// candidate of a configuration for every selector; the figures it gives
/// (each selector's margins to a percent, `auto`'s choice) are settled long
/// before this many, while a campaign of a million rows would hold out tens
/// of thousands per fold.
const MOST_SCORED: usize = 2000;

/// Measurements one fold fits its models on at most (thinned evenly within
/// each job, every job kept). A fold's models only score held-out picks,
/// whose figures settle with far fewer rows than a campaign of a million
/// has, and the folds' fits were most of such a campaign's training time.
const MOST_FITTED: usize = 100_000;

/// The measurements of the procs values `held`, thinned evenly within each
/// job to about [`MOST_SCORED`] configurations (every job kept).
fn scored_part(d: &Dataset, held: &BTreeSet<u32>) -> Dataset {
    let part = d.subset(|m| held.contains(&m.config.procs));
    let configs = part.configs().count();
    if configs <= MOST_SCORED {
        return part;
    }
    part.thinned(part.measurements().len() * MOST_SCORED / configs)
}

/// Every selector's picks on the configurations of the procs values `held`,
/// trained on the others.
fn held_out_picks(
    d: &Dataset,
    full: &Fitted,
    held: &BTreeSet<u32>,
    kinds: &[SelectorKind],
    hybrid: bool,
) -> Result<Vec<Vec<HeldOut>>> {
    let whole = d.subset(|m| !held.contains(&m.config.procs));
    let range = TrainedRange::of(&whole);
    let part = whole.thinned(MOST_FITTED);
    let set = TrainingSet::along(&part, hybrid, full);
    let cs = &set.cs;
    let measured = Measured::of(&whole, &cs.candidates);
    let scored = scored_part(d, held);
    let tests: Vec<(Config, Vec<bool>, BTreeMap<usize, f64>)> = scored
        .by_config()
        .filter_map(|group| {
            let mut allowed = vec![false; cs.candidates.len()];
            let mut times = BTreeMap::new();
            for m in group {
                if let Ok(i) = cs.candidates.binary_search(&m.candidate) {
                    allowed[i] = true;
                    times.insert(i, m.time_us);
                }
            }
            (times.len() >= 2).then_some((group[0].config, allowed, times))
        })
        .collect();
    let mut fitted = Vec::with_capacity(kinds.len());
    for &kind in kinds {
        fitted.push((kind, set.fit(kind)?));
    }
    // Raw rankings (the policy is applied when scoring), kept only where
    // every selector ranks something, so that selectors pair up.
    let selectors: Vec<_> = fitted
        .iter()
        .map(|(kind, models)| {
            set.selector(
                *kind,
                models,
                &measured,
                Policy::NONE,
                TrainedRange::default(),
            )
        })
        .collect();
    // On every core.
    let ranked: Vec<Option<Vec<Vec<Ranked>>>> = tests
        .par_iter()
        .map(|(config, allowed, _)| {
            let ranked: Vec<Vec<Ranked>> = selectors
                .iter()
                .map(|s| s.rank(config, Some(allowed)))
                .collect();
            (!ranked.iter().any(|r| r.is_empty())).then_some(ranked)
        })
        .collect();
    let mut out: Vec<Vec<HeldOut>> = kinds.iter().map(|_| Vec::new()).collect();
    for ((config, _, times), ranked) in tests.iter().zip(ranked) {
        for (all, ranked) in out.iter_mut().zip(ranked.into_iter().flatten()) {
            all.push(HeldOut {
                ranked,
                times: times.clone(),
                distance: range.distance(config),
                job: (config.procs, config.nodes),
            });
        }
    }
    Ok(out)
}

/// The most cautious of `options` (they come from the least to the most
/// cautious) not worse than the best one by more than one standard error
/// of the paired differences in held-out log slowdown. Pairing by
/// configuration cancels what both options share (most picks are the
/// same), so a rare outlier cannot hide a real difference.
fn one_standard_error(held_out: &[&HeldOut], options: &[Policy], thin: bool) -> Option<Policy> {
    if held_out.is_empty() {
        return None;
    }
    let losses: Vec<Vec<f64>> = options
        .iter()
        .map(|p| held_out.iter().map(|h| h.log_slowdown(p)).collect())
        .collect();
    let all: Vec<usize> = (0..options.len()).collect();
    let jobs = clusters(held_out.iter().copied(), thin);
    within_one_error(&losses, &jobs, &all)
        .last()
        .map(|&i| options[i])
}

/// The policy the held-out picks support: the margin on configurations
/// inside their fold's trained range, then its growth on those outside,
/// valid as far out as they reached (no farther: nothing showed how the
/// selector does there).
fn choose_policy(held_out: &[HeldOut], thin: bool) -> Policy {
    let inside: Vec<&HeldOut> = held_out.iter().filter(|h| h.distance == 0.0).collect();
    let margins: Vec<Policy> = MARGINS
        .iter()
        .map(|&margin| Policy {
            margin,
            ..Policy::NONE
        })
        .collect();
    let margin = one_standard_error(&inside, &margins, thin).map_or(0.0, |p| p.margin);
    let outside: Vec<&HeldOut> = held_out
        .iter()
        .filter(|h| h.distance > 0.0 && h.distance.is_finite())
        .collect();
    let growths: Vec<Policy> = PER_DOUBLING
        .iter()
        .map(|&per_doubling| Policy {
            margin,
            per_doubling,
            validated_doublings: f64::INFINITY,
        })
        .collect();
    match one_standard_error(&outside, &growths, thin) {
        Some(p) => Policy {
            validated_doublings: outside.iter().map(|h| h.distance).fold(0.0, f64::max),
            ..p
        },
        None => Policy {
            margin,
            ..Policy::CAUTIOUS
        },
    }
}

/// The figures of one selector's held-out picks under `policy`.
fn score(selector: SelectorKind, folds: usize, policy: Policy, held_out: &[HeldOut]) -> CvScore {
    let (mut all, mut inside, mut outside) = (Tally::default(), Tally::default(), Tally::default());
    for h in held_out {
        let slowdown = h.log_slowdown(&policy).exp();
        all.add(slowdown, None);
        if h.distance > 0.0 {
            &mut outside
        } else {
            &mut inside
        }
        .add(slowdown, None);
    }
    let geomean = |t: &Tally| (t.n > 0).then(|| t.geomean_slowdown());
    CvScore {
        selector,
        folds,
        configs: all.n,
        extrapolated_configs: outside.n,
        policy,
        // `cross_validate` scores no empty list; 1 then would not be NaN,
        // which JSON cannot hold.
        geomean_slowdown_vs_best: geomean(&all).unwrap_or(1.0),
        inside_geomean_slowdown: geomean(&inside),
        outside_geomean_slowdown: geomean(&outside),
        best_rate: if all.n > 0 { all.best_rate() } else { 0.0 },
        within_5pct_rate: if all.n > 0 { all.near_rate() } else { 0.0 },
    }
}

/// A selector's cross-validated policy; without cross-validation, the
/// measured differences are trusted inside the trained range and the
/// library's choice kept outside it.
pub fn policy(cv: &[CvScore], selector: SelectorKind) -> Policy {
    cv.iter()
        .find(|s| s.selector == selector)
        .map_or(Policy::CAUTIOUS, |s| s.policy)
}

/// The selectors `auto` uses: cross-validation's choice, or the first of
/// `kinds` everywhere when cross-validation was impossible.
pub fn choose_auto(kinds: &[SelectorKind], cv: Option<&Cv>) -> Auto {
    cv.map_or(
        Auto {
            inside: kinds[0],
            outside: kinds[0],
            evidence: Evidence::None,
        },
        |cv| cv.auto,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Candidate, Provenance};

    /// A held-out configuration of default and linear, of the job with
    /// `procs`.
    fn held(procs: u32, predicted: [f64; 2], times: [f64; 2], distance: f64) -> HeldOut {
        let ranked = [
            Candidate::DEFAULT,
            Candidate {
                algorithm: Algorithm::Linear,
                ..Candidate::DEFAULT
            },
        ]
        .iter()
        .zip(predicted)
        .enumerate()
        .map(|(index, (&candidate, predicted_us))| Ranked {
            index,
            candidate,
            predicted_us,
        })
        .collect::<Vec<_>>();
        let mut ranked = ranked;
        ranked.sort_by(|a, b| a.predicted_us.total_cmp(&b.predicted_us));
        HeldOut {
            ranked,
            times: [(0, times[0]), (1, times[1])].into(),
            distance,
            job: (procs, 1),
        }
    }

    /// Inside the range the predictions are right (switch); outside they
    /// promise gains that do not come: the chosen policy keeps its zero
    /// margin inside and stops switching outside.
    #[test]
    fn policy_follows_the_evidence() {
        let mut cases: Vec<HeldOut> = (0..20)
            .map(|i| held(i % 4, [10.0, 5.0], [10.0, 5.0], 0.0))
            .collect();
        cases.extend((0..20).map(|i| {
            let d = 1.0 + f64::from(i % 3);
            held(i % 5, [10.0, 7.0], [10.0, 15.0], d)
        }));
        let policy = choose_policy(&cases, false);
        assert!(policy.margin_at(1.0) >= 0.3, "{policy:?}");
        for h in &cases[20..] {
            assert_eq!(h.log_slowdown(&policy), 0.0, "keeps default outside");
        }
        assert!(cases[0].log_slowdown(&policy) == 0.0, "switches inside");
    }

    /// Where switching or not makes no difference the most cautious
    /// setting is kept.
    #[test]
    fn ties_keep_the_library_choice() {
        let cases: Vec<HeldOut> = (0..10)
            .map(|i| held(i % 3, [10.0, 9.0], [10.0, 10.0], 0.0))
            .collect();
        let policy = choose_policy(&cases, false);
        assert_eq!(policy.margin, *MARGINS.last().unwrap());
        assert_eq!(policy.margin_at(0.1), 1.0, "nothing outside: cautious");
    }

    /// Predictions right on every size of a single held-out job are no
    /// evidence that they hold on other jobs: clustered by job, the
    /// cautious setting stays. The same picks on two jobs are. Where one
    /// job is all the campaign can hold out (thin evidence), its sizes are.
    #[test]
    fn one_job_is_no_evidence() {
        // Linear predicted 30% faster, measured twice as fast.
        let right = |procs| held(procs, [10.0, 7.0], [10.0, 5.0], 0.0);
        let one: Vec<HeldOut> = (0..30).map(|_| right(8)).collect();
        assert_eq!(choose_policy(&one, false).margin, *MARGINS.last().unwrap());
        assert!(clustered_error(&[0.1, 0.2, 0.3], &[(8, 1); 3], 0.2).is_infinite());
        let two: Vec<HeldOut> = (0..30).map(|i| right(8 + 8 * (i % 2))).collect();
        assert_eq!(
            choose_policy(&two, false).margin,
            0.2,
            "the most cautious margin that switches"
        );
        assert_eq!(
            choose_policy(&one, true).margin,
            0.2,
            "its sizes, when thin"
        );
    }

    /// A campaign of three job sizes holds out one inside its range: `auto`
    /// takes the nearest job's measurements and says the evidence was
    /// thin. With five, held-out jobs choose.
    #[test]
    fn thin_evidence_takes_the_nearest_job() {
        let campaign = |procs: &[u32]| {
            let mut rows = Vec::new();
            for &p in procs {
                for msg in [8u64, 64, 512, 4096] {
                    let t = f64::from(p) * (1.0 + msg as f64 / 64.0);
                    rows.push(row(p, msg, Algorithm::Default, 2.0 * t));
                    rows.push(row(p, msg, Algorithm::Linear, t));
                    rows.push(row(p, msg, Algorithm::Binomial, 3.0 * t));
                }
            }
            Dataset::from_rows(rows, Provenance::default())
        };
        let kinds = [
            SelectorKind::Learner(crate::learn::LearnerKind::Linear),
            SelectorKind::Nearest,
        ];
        let cv = |procs: &[u32]| {
            let d = campaign(procs);
            let full = crate::analytical::fit::fit_dataset(&d);
            cross_validate(&d, &full, &kinds, 5, || {})
                .unwrap()
                .unwrap()
        };
        let thin = cv(&[2, 4, 8]);
        assert_eq!(thin.auto.evidence, Evidence::MessageSizes);
        assert_eq!(thin.auto.inside, SelectorKind::Nearest);
        assert_eq!(thin.auto.outside, SelectorKind::Nearest);
        let jobs = cv(&[2, 4, 8, 16, 32]);
        assert_eq!(jobs.auto.evidence, Evidence::Jobs);
        assert_eq!(
            jobs.auto.inside, kinds[0],
            "both pick linear everywhere: the earlier of the tie"
        );
    }

    /// One configuration per job: the plain standard error of the mean.
    /// Many configurations of few jobs that agree within each job: the
    /// error of two jobs' worth of evidence, not of forty configurations'.
    #[test]
    fn errors_are_clustered_by_job() {
        let values: Vec<f64> = (0..40).map(|i| f64::from(i % 7) * 0.1).collect();
        let m = values.iter().sum::<f64>() / 40.0;
        let var = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 39.0;
        let own: Vec<(u32, u32)> = (0..40).map(|i| (i, 1)).collect();
        assert!((clustered_error(&values, &own, m) - (var / 40.0).sqrt()).abs() < 1e-12);

        let values: Vec<f64> = (0..40).map(|i| if i < 20 { 1.0 } else { -1.0 }).collect();
        let two: Vec<(u32, u32)> = (0..40).map(|i| (if i < 20 { 8 } else { 16 }, 1)).collect();
        let plain = clustered_error(&values, &own, 0.0);
        let clustered = clustered_error(&values, &two, 0.0);
        assert!((clustered - 1.0).abs() < 1e-12, "{clustered}");
        assert!(clustered > 4.0 * plain, "{clustered} vs {plain}");
    }

    /// A fold of a large campaign scores an even sample of its held-out
    /// configurations, every job kept; a small one scores them all.
    #[test]
    fn large_folds_score_an_even_sample() {
        let mut rows = Vec::new();
        for procs in [2, 4, 8] {
            for msg in 0..1500u64 {
                rows.push(row(procs, msg + 1, Algorithm::Default, 1.0));
                rows.push(row(procs, msg + 1, Algorithm::Linear, 2.0));
            }
        }
        let d = Dataset::from_rows(rows, Provenance::default());
        let small = scored_part(&d, &BTreeSet::from([4]));
        assert_eq!(small.configs().count(), 1500);
        assert!(small.configs().all(|c| c.procs == 4));
        let large = scored_part(&d, &BTreeSet::from([2, 8]));
        let configs: Vec<Config> = large.configs().collect();
        let jobs: BTreeSet<u32> = configs.iter().map(|c| c.procs).collect();
        assert!(
            configs.len().abs_diff(MOST_SCORED) <= 2,
            "{}",
            configs.len()
        );
        assert_eq!(jobs, BTreeSet::from([2, 8]));
        assert!(
            large.by_config().all(|g| g.len() == 2),
            "whole configurations"
        );
    }

    #[test]
    fn the_extrapolating_fold_holds_out_the_upper_half() {
        let d = |procs: &[u32]| {
            Dataset::from_rows(
                procs
                    .iter()
                    .map(|&p| row(p, 8, Algorithm::Linear, 1.0))
                    .collect(),
                Provenance::default(),
            )
        };
        assert_eq!(
            upper_half(&d(&[2, 4, 8, 16, 32])),
            Some(BTreeSet::from([16, 32]))
        );
        assert_eq!(upper_half(&d(&[4, 8, 12])), Some(BTreeSet::from([12])));
        assert_eq!(upper_half(&d(&[2, 4])), None);
        let groups = held_out_groups(&d(&[2, 4, 8, 16, 32]), 5);
        assert_eq!(groups.len(), 6);
        assert_eq!(
            held_out_groups(&d(&[4, 8, 12]), 5).len(),
            3,
            "{{12}} is a fold already"
        );
        assert!(held_out_groups(&d(&[2]), 5).is_empty());
    }
}
