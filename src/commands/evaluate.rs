use super::warn_all;
use crate::cli::EvaluateArgs;
use crate::data::load::load_files;
use crate::error::{Error, Result};
use crate::evaluate::{evaluate as run, held_out, key, small_train};
use crate::report;
use indicatif::ProgressBar;

pub fn evaluate(args: &EvaluateArgs) -> Result<()> {
    if !(0.0..1.0).contains(&args.test_fraction) || args.test_fraction == 0.0 {
        return Err(Error::Usage(format!(
            "--test-fraction {} must be between 0 and 1",
            args.test_fraction
        )));
    }
    let loaded = load_files(&args.train)?;
    warn_all(&loaded.warnings);
    let (mut train, test) = if args.test.is_empty() {
        let all = loaded.dataset;
        let held = held_out(&all, args.split, args.test_fraction, args.seed)?;
        let by = args.split;
        (
            all.subset(|m| !held.contains(&key(&m.config, by))),
            all.subset(|m| held.contains(&key(&m.config, by))),
        )
    } else {
        let test = load_files(&args.test)?;
        warn_all(&test.warnings);
        (loaded.dataset, test.dataset)
    };
    if args.small_train {
        train = small_train(&train);
    }
    let bar = ProgressBar::new(
        (args.learning.learners.len() * (args.learning.folds as usize + 1)) as u64,
    );
    let report = run(
        &train,
        &test,
        &args.learning.learners,
        args.learning.folds as usize,
        || bar.inc(1),
    )?;
    bar.finish_and_clear();
    let text = report::render(&report, args.format)?;
    super::write_output(args.out.as_deref(), &text)?;
    if let Some(dir) = &args.plots {
        let files = report::plots::write(&report, dir)?;
        eprintln!("wrote {} plots into {}", files.len(), dir.display());
    }
    Ok(())
}
