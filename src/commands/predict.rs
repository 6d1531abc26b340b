//! `collsel predict`: a model's decision table for a job, in every export
//! format.

use crate::cli::PredictArgs;
use crate::data::{Impl, System};
use crate::error::{Error, Result};
use crate::export::{self, mpich_json, Format, Section};
use crate::select::decision::{self, DecisionTable, Shapes};
use crate::select::validation;
use crate::train::{store, SelectorChoice};

pub fn predict(args: &PredictArgs) -> Result<()> {
    let choice: SelectorChoice = args.learner.parse().map_err(Error::Usage)?;
    let jobs = Shapes {
        nodes: args.nodes,
        ppn: args.ppn,
        procs: args.procs.as_ref().map(|p| &p.0[..]),
        mapping: args.mapping,
        imbalance: args.imbalance,
        arrival: super::arrival(args.imbalance.is_some(), args.late_fraction),
    }
    .jobs()?;
    let mut sections = Vec::new();
    let mut systems: Vec<System> = Vec::new();
    let mut labels = Vec::new();
    // Each warning once, though several jobs may raise it.
    let mut warnings: Vec<String> = Vec::new();
    for model in &args.model {
        let trained = store::load(model, choice)?;
        let system = trained.manifest.training.system();
        let collective = system.collective;
        let asked = args.sizes.as_ref().map(|s| &s.0[..]);
        let sizes = decision::sizes(collective, asked, &trained.manifest.training.msg_bytes)?;
        let under_mpich = trained
            .manifest
            .candidates
            .iter()
            .any(|c| c.implementation == Impl::Mpich);
        let allowed = match args.format {
            // Measured under MPICH: MPICH's own choice there was its device
            // layer's, which a selection file cannot name (the file serves
            // only collectives taken from the device): decide among the
            // algorithms forced.
            Format::MpichJson if under_mpich => {
                let (allowed, _) = trained.allowed(|c| c.implementation == Impl::Mpich);
                eprintln!(
                    "note: {} decides among MPICH's algorithms; MPICH's own choice (`default`) \
                     is its device layer's, which the file replaces only where \
                     MPIR_CVAR_{}_DEVICE_COLLECTIVE=0 (see `verify`)",
                    collective.function(),
                    collective.name().to_ascii_uppercase()
                );
                Some(allowed)
            }
            // MPICH lacks some of Open MPI's algorithms: decide among what it
            // has.
            Format::MpichJson => {
                let (allowed, left_out) =
                    trained.allowed(|c| mpich_json::has_equivalent(collective, c));
                if !left_out.is_empty() {
                    eprintln!(
                        "note: MPICH has no {} equivalent of {}: deciding among the other \
                         candidates (this model was measured under Open MPI: the file maps its \
                         algorithms to MPICH's by analogy)",
                        collective.name(),
                        left_out.join(", ")
                    );
                }
                Some(allowed)
            }
            // A model of MPICH's algorithms whose decisions keep `default`
            // is still MPICH's (its rows may not name the library).
            Format::OmpiRules | Format::OmpiHan | Format::OmpiJson if under_mpich => {
                return Err(Error::Usage(format!(
                    "{} was measured under MPICH (its candidates are MPICH's algorithms): \
                     Open MPI's rules cannot come from it; export with --format mpich-json, \
                     or measure under Open MPI",
                    model.display()
                )));
            }
            _ => None,
        };
        for w in jobs.iter().flat_map(|j| trained.warnings(j)) {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let decider = trained.decider(choice)?;
        let label = trained.label(choice);
        let mut tables = jobs
            .iter()
            .map(|job| {
                DecisionTable::new(&decider, *job, label.clone(), &sizes, allowed.as_deref())
            })
            .collect::<Result<Vec<_>>>()?;
        // A model of `tune`: on the job sizes it tuned, a switch ships only
        // where its validation kept it.
        if let Some(rows) = store::load_validation(model)? {
            let tuned = &trained.manifest.training.procs;
            let mut reverted = 0;
            for table in tables.iter_mut().filter(|t| tuned.contains(&t.job.procs)) {
                reverted += validation::apply(collective, std::slice::from_mut(table), &rows).len();
            }
            if reverted > 0 {
                eprintln!(
                    "note: {} kept default at {reverted} size(s) where tune's validation did not \
                     prove the model's choice faster",
                    model.display()
                );
            }
        }
        sections.push(Section { collective, tables });
        labels.push(format!("{} ({label})", model.display()));
        systems.push(system);
    }
    super::warn_all(&warnings);
    let system = one_system(&systems)?;
    let options = export::ExportOptions {
        rules_version: args.rules_version,
        origin: format!("model {}, mapping {}", labels.join(", "), args.mapping),
        system,
        mpich_base: args
            .mpich_base
            .as_deref()
            .map(mpich_json::Base::read)
            .transpose()?,
    };
    let text = export::render(&sections, args.format, &options)?;
    super::write_output(args.out.as_deref(), &text)
}

/// The system all models were measured on (one model: its own, collective
/// included); models of different machines or MPI libraries do not go
/// into one file.
fn one_system(systems: &[System]) -> Result<System> {
    let first = systems[0].clone();
    if let Some(other) = systems
        .iter()
        .find(|s| (&s.machine, &s.mpi) != (&first.machine, &first.mpi))
    {
        return Err(Error::Usage(format!(
            "the models were measured on different systems ({first} and {other}); a rules \
             file is for one machine and MPI library"
        )));
    }
    Ok(first)
}
