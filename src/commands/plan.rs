//! `collsel plan`: which points a campaign should measure next.

use super::{warn_all, write_output};
use crate::cli::PlanArgs;
use crate::data::load::{load_files, load_grid};
use crate::error::{Error, Result};
use crate::plan::{choose, score, Settings};

pub fn plan(args: &PlanArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&args.explore) {
        return Err(Error::Usage(format!(
            "--explore {}: expected a share between 0 and 1",
            args.explore
        )));
    }
    let loaded = load_files(&args.data, &args.system.choice())?;
    warn_all(&loaded.warnings);
    let grid = load_grid(&args.grid)?;
    warn_all(&grid.warnings);
    // The models are one collective's: the grid's points must be of it.
    let collective = loaded.dataset.provenance.collective();
    if let Some(other) = grid.collectives.iter().find(|c| **c != collective) {
        return Err(Error::Usage(format!(
            "{}: the grid holds {} points but the data are {}'s; a grid's `collective` \
             column (bcast where it has none) must name the data's collective",
            args.grid.display(),
            other.name(),
            collective.name()
        )));
    }
    let points = grid.pairs();
    let settings = Settings {
        members: args.members as usize,
        learners: args.learners.clone(),
        explore: args.explore,
        seed: args.seed,
    };
    let scored = score(&loaded.dataset, &points, &settings)?;
    if scored.is_empty() {
        eprintln!("every point of the grid is measured already: nothing to plan");
    } else if scored.iter().all(|s| s.points.len() > args.budget) {
        let fewest = scored.iter().map(|s| s.points.len()).min().unwrap_or(0);
        return Err(Error::Usage(format!(
            "--budget {} is smaller than any configuration's unmeasured points \
             (at least {fewest}); configurations are measured whole",
            args.budget
        )));
    }
    let chosen = choose(&scored, args.budget);
    let configs = scored
        .iter()
        .filter(|s| {
            s.points
                .first()
                .is_some_and(|p| chosen.binary_search(p).is_ok())
        })
        .count();
    let top = scored.iter().map(|s| s.regret).fold(0.0, f64::max);
    eprintln!(
        "chose {} of {} unmeasured grid points ({configs} configurations); \
         largest expected regret {top:.4} (ln time)",
        chosen.len(),
        scored.iter().map(|s| s.points.len()).sum::<usize>(),
    );
    let mut text = grid.header.clone();
    text.push('\n');
    for i in chosen {
        text.push_str(&grid.points[i].record);
        text.push('\n');
    }
    write_output(args.out.as_deref(), &text)
}
