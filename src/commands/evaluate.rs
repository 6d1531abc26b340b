//! `collsel evaluate`: every selector on data the models never saw.

use super::warn_all;
use crate::cli::{EvaluateArgs, SplitArg};
use crate::data::load::{load_campaigns, load_files, load_systems};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::evaluate::split::{leave_one_campaign_out, small_train, split_each_system};
use crate::evaluate::{evaluate as run, pool, Report};
use crate::report;
use crate::train;

pub fn evaluate(args: &EvaluateArgs) -> Result<()> {
    if !(0.0..1.0).contains(&args.test_fraction) || args.test_fraction == 0.0 {
        return Err(Error::Usage(format!(
            "--test-fraction {} must be between 0 and 1",
            args.test_fraction
        )));
    }
    let choice = args.system.choice();
    let runs: Vec<(Dataset, Dataset)> = if !args.test.is_empty() {
        let train = load_files(&args.train, &choice)?;
        warn_all(&train.warnings);
        let test = load_files(&args.test, &choice)?;
        warn_all(&test.warnings);
        vec![(train.dataset, test.dataset)]
    } else if args.split == SplitArg::Source {
        let (campaigns, warnings) = load_campaigns(&args.train, &choice)?;
        warn_all(&warnings);
        leave_one_campaign_out(&campaigns)?
    } else {
        let (systems, warnings) = load_systems(&args.train, &choice)?;
        warn_all(&warnings);
        split_each_system(systems, args.how())?
    };
    let options = args.learning.options();
    let runs: Vec<(Dataset, Dataset)> = runs
        .into_iter()
        .map(|(train, test)| match args.small_train {
            true => (small_train(&train), test),
            false => (train, test),
        })
        .collect();
    let steps = runs
        .iter()
        .map(|(train, _)| train::steps(train, &options))
        .sum();
    let bar = super::progress(steps)?;
    bar.set_message("evaluating");
    let mut reports: Vec<Report> = Vec::with_capacity(runs.len());
    for (train, test) in &runs {
        super::note_size(train, options.max_rows);
        reports.push(run(train, test, &options, || bar.inc(1))?);
    }
    bar.finish_and_clear();
    let report = pool(reports).ok_or_else(|| Error::Usage("nothing to evaluate".into()))?;
    let text = report::render(&report, args.format)?;
    super::write_output(args.out.as_deref(), &text)?;
    if let Some(dir) = &args.plots {
        let files = report::plots::write(&report, dir)?;
        eprintln!("wrote {} plots into {}", files.len(), dir.display());
    }
    Ok(())
}

impl EvaluateArgs {
    /// How `--split` cuts each system's data (`source` aside, which is
    /// by campaign).
    pub fn how(&self) -> crate::evaluate::Split {
        use crate::evaluate::Split;
        match self.split {
            SplitArg::Nodes => Split::Nodes {
                fraction: self.test_fraction,
                seed: self.seed,
            },
            SplitArg::Extrapolate => Split::Extrapolate {
                train_max: self.train_max_procs,
                test_min: self.test_min_procs,
            },
            SplitArg::Procs | SplitArg::Source => Split::Procs {
                fraction: self.test_fraction,
                seed: self.seed,
            },
        }
    }
}
