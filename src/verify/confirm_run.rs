//! `verify --confirm` in the job (Open MPI): every switch of the rules file
//! timed against the library's own choice, both forced through coll/tuned's
//! control variables, the way `tune` validates; then (rank 0) the verdicts,
//! the confirmed file and its table.

use super::confirm::{self, write, Confirm, Switch};
use super::files::read_tuned;
use crate::bench::compare::{Arm, Batch, Request, RoundLimits};
use crate::bench::{self, control, Session};
use crate::data::{Candidate, Collective, Mapping};
use crate::error::{Error, Result};
use crate::select::validation::{self, Validation, Verdict};

/// Confirms `confirm.rules` in this job within `seconds` (collective).
pub(super) fn confirmed(session: &Session, confirm: &Confirm, seconds: f64) -> Result<()> {
    let rank0 = session.rank() == 0;
    if let Some((variable, file)) = control::rules_in_effect() {
        return Err(Error::Usage(format!(
            "a rules file is in effect in this job ({variable}={file}): the confirmation \
             times each rule against the library's own choice, forcing both, and the file \
             would change the latter; run `verify --confirm` without the rules variables"
        )));
    }
    // Rank 0 reads the file and every rank parses the same bytes: the same
    // plan everywhere, whatever each node's filesystem holds.
    let read = match rank0 {
        true => std::fs::read(&confirm.rules),
        false => Ok(Vec::new()),
    };
    if session.first_failing(read.is_err()).is_some() {
        return Err(match read {
            Err(e) => Error::Usage(format!("cannot read {}: {e}", confirm.rules.display())),
            Ok(_) => Error::Reported(2),
        });
    }
    let text = session.share(read.unwrap_or_default());
    let header = text.starts_with(b"rule-file-version-");
    let rules = read_tuned(&text, header).map_err(|e| {
        Error::Usage(format!(
            "{}: {e}: Open MPI would not read this file",
            confirm.rules.display()
        ))
    })?;
    let switches = confirm::switches(&rules, session.size());
    let mut rows = time(session, &switches, seconds)?;
    if !rank0 {
        return Ok(());
    }
    // A switch ships only where it held across the jobs that timed it too.
    let earlier = confirm.earlier();
    if !earlier.is_empty() {
        eprintln!(
            "verify: each switch also across the {} earlier job(s) that timed it ({}and every \
             confirmation before this one in {})",
            earlier.len(),
            if confirm.report.is_some() {
                "tune's "
            } else {
                ""
            },
            confirm.out_dir.join(confirm::CONFIRMATIONS).display()
        );
    }
    confirm::across_jobs(&earlier, &mut rows);
    let verdicts: Vec<Verdict> = switches
        .iter()
        .map(|s| confirm::verdict(s, &rows))
        .collect();
    let job = format!("{} ranks, {}", session.size(), library_name());
    let text = String::from_utf8_lossy(&text);
    let out = confirm::rewrite(&text, &rules, &switches, &verdicts, &job);
    std::fs::create_dir_all(&confirm.out_dir)
        .map_err(|e| Error::io(format!("cannot create {}", confirm.out_dir.display()), e))?;
    let rules_out = confirm.out_dir.join("rules");
    write(&rules_out, &out)?;
    write(
        &confirm.out_dir.join("confirmation.csv"),
        &validation::csv(&rows),
    )?;
    confirm.record(&rows)?;
    let table = confirm::table(&switches, &verdicts, &rows);
    print!("{table}");
    let kept = verdicts.iter().filter(|v| **v == Verdict::Kept).count();
    eprintln!(
        "verify: {kept} of {} switches confirmed in this job; wrote {} (the others set back \
         to the library's own choice) and {}",
        switches.len(),
        rules_out.display(),
        confirm.out_dir.join("confirmation.csv").display()
    );
    if let Some(report) = &confirm.report {
        let summary = confirm::note_in_report(
            report,
            &earlier,
            &table,
            &rules_out,
            &rows,
            (kept, switches.len()),
        )?;
        eprintln!("verify: noted the confirmation in {}\n", report.display());
        // The tune's summary, now with the confirmation: the last thing
        // printed, as `tune` ends with it.
        eprint!("{summary}");
    }
    Ok(())
}

/// Times every size of every switch against `default` within `seconds`,
/// the replicas spread over all of them ([`Session::compare_spread`]);
/// rank 0 has the rows.
fn time(session: &Session, switches: &[Switch], seconds: f64) -> Result<Vec<Validation>> {
    let mut collectives: Vec<Collective> = switches.iter().map(|s| s.collective).collect();
    collectives.dedup();
    let mut batches = Vec::new();
    // Per collective, per communicator size: the (switch, size) each request is.
    let mut whiches: Vec<Vec<Vec<(&Switch, u64)>>> = Vec::new();
    for collective in collectives {
        let mut sizes: Vec<(Option<u32>, Mapping, Vec<Request>)> = Vec::new();
        let mut which: Vec<Vec<(&Switch, u64)>> = Vec::new();
        for sw in switches.iter().filter(|s| s.collective == collective) {
            for &m in &sw.sizes {
                let request = Request {
                    msg_bytes: m,
                    arms: vec![Arm::Forced(Candidate::DEFAULT), Arm::Forced(sw.candidate)],
                };
                match sizes.iter().position(|s| s.0 == Some(sw.procs)) {
                    Some(k) => {
                        sizes[k].2.push(request);
                        which[k].push((sw, m));
                    }
                    None => {
                        sizes.push((Some(sw.procs), Mapping::Core, vec![request]));
                        which.push(vec![(sw, m)]);
                    }
                }
            }
        }
        let n: usize = which.iter().map(Vec::len).sum();
        if n == 0 {
            continue;
        }
        if session.rank() == 0 {
            eprintln!(
                "verify: confirming {n} sizes of {} against the library's own choice",
                collective.function()
            );
        }
        batches.push(Batch {
            collective,
            sizes,
            timing: bench::BenchOptions {
                collective,
                ..super::run::timing_options()
            },
        });
        whiches.push(which);
    }
    let results = session.compare_spread(&batches, &RoundLimits::replicated(), seconds)?;
    let mut rows = Vec::new();
    for ((batch, which), results) in batches.iter().zip(whiches).zip(results) {
        for (asked, results) in which.into_iter().zip(results) {
            for ((sw, m), compared) in asked.into_iter().zip(results) {
                rows.push(Validation::timed(
                    batch.collective,
                    sw.procs,
                    m,
                    sw.candidate,
                    compared.as_ref().and_then(|c| c.timed(1)),
                ));
            }
        }
    }
    validation::discoveries(&mut rows);
    Ok(rows)
}

/// The library's version string, first line.
fn library_name() -> String {
    bench::library_version()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}
