use super::warn_all;
use crate::cli::{EvaluateArgs, SplitArg};
use crate::data::load::{load_campaigns, load_files, load_systems};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::evaluate::{evaluate as run, pool, small_train, split, Report, Split};
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
        leave_one_campaign_out(args)?
    } else {
        split_each_system(args)?
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

/// One (training, test) pair per campaign: that campaign against all the
/// others (a rerun of the same machine weeks later).
fn leave_one_campaign_out(args: &EvaluateArgs) -> Result<Vec<(Dataset, Dataset)>> {
    let (campaigns, warnings) = load_campaigns(&args.train, &args.system.choice())?;
    warn_all(&warnings);
    if campaigns.len() < 2 {
        return Err(Error::Usage(format!(
            "--split source needs two or more campaigns (distinct `source` values, or files \
             without one); found {}",
            campaigns.len()
        )));
    }
    Ok((0..campaigns.len())
        .map(|held| {
            let others = campaigns
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != held)
                .map(|(_, (_, d))| d.clone())
                .collect();
            (Dataset::merge(others), campaigns[held].1.clone())
        })
        .collect())
}

/// The split of each machine/MPI library's data on its own (their rows are
/// never combined), to be scored together; a system the split cannot cut
/// (one procs value, say) is skipped with a warning when others remain.
fn split_each_system(args: &EvaluateArgs) -> Result<Vec<(Dataset, Dataset)>> {
    let (systems, warnings) = load_systems(&args.train, &args.system.choice())?;
    warn_all(&warnings);
    let how = match args.split {
        SplitArg::Nodes => Split::Nodes {
            fraction: args.test_fraction,
            seed: args.seed,
        },
        SplitArg::Extrapolate => Split::Extrapolate {
            train_max: args.train_max_procs,
            test_min: args.test_min_procs,
        },
        _ => Split::Procs {
            fraction: args.test_fraction,
            seed: args.seed,
        },
    };
    let several = systems.len() > 1;
    let mut runs = Vec::with_capacity(systems.len());
    let mut first_error = None;
    for (system, d) in systems {
        match split(&d, how) {
            Ok(run) => runs.push(run),
            Err(e) if several => {
                eprintln!("warning: {system}: not evaluated: {e}");
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    if several && runs.len() > 1 {
        eprintln!(
            "evaluated {} machine/MPI combinations separately, scored together",
            runs.len()
        );
    }
    match (runs.is_empty(), first_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(runs),
    }
}
