//! The training and test parts of an evaluation: held-out communicator
//! sizes or node counts, small jobs against large ones, one campaign
//! against the others; each machine and MPI library on its own.

use crate::data::{Config, Dataset, System};
use crate::error::{Error, Result};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::BTreeSet;

/// How one dataset is split into training and test parts. (Leaving one
/// campaign out at a time is [`pool`]ed over the campaigns by the caller.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Split {
    /// A random `fraction` of the distinct procs values held out.
    Procs { fraction: f64, seed: u64 },
    /// Likewise of the distinct node counts.
    Nodes { fraction: f64, seed: u64 },
    /// Train on the small jobs, test on the large ones: procs ≤
    /// `train_max` (default a quarter of the largest) against procs ≥
    /// `test_min` (default half the largest).
    Extrapolate {
        train_max: Option<u32>,
        test_min: Option<u32>,
    },
}

/// The training and test parts of `d`.
pub fn split(d: &Dataset, how: Split) -> Result<(Dataset, Dataset)> {
    let part = |held: &dyn Fn(&Config) -> Option<bool>| {
        (
            d.subset(|m| held(&m.config) == Some(false)),
            d.subset(|m| held(&m.config) == Some(true)),
        )
    };
    let (train, test) = match how {
        Split::Procs { fraction, seed } => {
            let held = held_out(d, |c| c.procs, "procs", fraction, seed)?;
            part(&|c| Some(held.contains(&c.procs)))
        }
        Split::Nodes { fraction, seed } => {
            let held = held_out(d, |c| c.nodes, "nodes", fraction, seed)?;
            part(&|c| Some(held.contains(&c.nodes)))
        }
        Split::Extrapolate {
            train_max,
            test_min,
        } => {
            let largest = d.configs().map(|c| c.procs).max().unwrap_or(0);
            let train_max = train_max.unwrap_or(largest / 4);
            let test_min = test_min.unwrap_or(largest / 2);
            if train_max >= test_min {
                return Err(Error::Usage(format!(
                    "--train-max-procs {train_max} must be below --test-min-procs {test_min}"
                )));
            }
            part(&|c| {
                (c.procs <= train_max)
                    .then_some(false)
                    .or((c.procs >= test_min).then_some(true))
            })
        }
    };
    if train.is_empty() || test.is_empty() {
        return Err(Error::Usage(format!(
            "the split leaves {} training and {} test measurements; it needs both",
            train.measurements().len(),
            test.measurements().len()
        )));
    }
    Ok((train, test))
}

/// `fraction` of the distinct values of a column (at least one, never all),
/// drawn with `seed`.
fn held_out(
    d: &Dataset,
    key: impl Fn(&Config) -> u32,
    name: &str,
    fraction: f64,
    seed: u64,
) -> Result<BTreeSet<u32>> {
    let mut values: Vec<u32> = d
        .configs()
        .map(|c| key(&c))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if values.len() < 2 {
        return Err(Error::Usage(format!(
            "cannot split by {name}: the data has {} distinct value(s), a split needs two or more",
            values.len()
        )));
    }
    let n = ((values.len() as f64 * fraction).round() as usize).clamp(1, values.len() - 1);
    values.shuffle(&mut StdRng::seed_from_u64(seed));
    Ok(values.into_iter().take(n).collect())
}

/// Keeps every third distinct procs value (the lowest, the fourth lowest,
/// ...): Hunold et al.'s "small training dataset".
pub fn small_train(d: &Dataset) -> Dataset {
    let keep: BTreeSet<u32> = d.procs_values().into_iter().step_by(3).collect();
    d.subset(|m| keep.contains(&m.config.procs))
}

/// One (training, test) pair per campaign: that campaign against all the
/// others (a rerun of the same machine weeks later).
pub fn leave_one_campaign_out(campaigns: &[(String, Dataset)]) -> Result<Vec<(Dataset, Dataset)>> {
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
pub fn split_each_system(
    systems: Vec<(System, Dataset)>,
    how: Split,
) -> Result<Vec<(Dataset, Dataset)>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::row;
    use crate::data::{Algorithm, Provenance};

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
        let procs = |c: &Config| c.procs;
        let held = held_out(&d, procs, "procs", 0.3, 7).unwrap();
        assert_eq!(held.len(), 3);
        assert_eq!(
            held,
            held_out(&d, procs, "procs", 0.3, 7).unwrap(),
            "seeded"
        );
        assert!(
            held_out(&d, procs, "procs", 1.0, 7).unwrap().len() < 10,
            "never all"
        );
        let (train, test) = split(
            &d,
            Split::Procs {
                fraction: 0.3,
                seed: 7,
            },
        )
        .unwrap();
        let tested: BTreeSet<u32> = test.configs().map(|c| c.procs).collect();
        assert_eq!(tested, held);
        assert!(train.configs().all(|c| !held.contains(&c.procs)));
        let (train, test) = split(
            &d,
            Split::Extrapolate {
                train_max: None,
                test_min: None,
            },
        )
        .unwrap();
        let trained: BTreeSet<u32> = train.configs().map(|c| c.procs).collect();
        let tested: BTreeSet<u32> = test.configs().map(|c| c.procs).collect();
        assert_eq!(trained, BTreeSet::from([2]), "up to a quarter of 11");
        assert_eq!(
            tested,
            BTreeSet::from([5, 6, 7, 8, 9, 10, 11]),
            "from half of 11"
        );
        let bad = Split::Extrapolate {
            train_max: Some(8),
            test_min: Some(4),
        };
        assert!(split(&d, bad).is_err());
        let small = small_train(&d);
        let kept: BTreeSet<u32> = small.configs().map(|c| c.procs).collect();
        assert_eq!(kept, BTreeSet::from([2, 5, 8, 11]));
    }
}
