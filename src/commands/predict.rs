use crate::cli::PredictArgs;
use crate::error::{Error, Result};
use crate::export::{self, mpich_json, Format};
use crate::select::decision::DecisionTable;
use crate::train::{store, Choice};

pub fn predict(args: &PredictArgs) -> Result<()> {
    let choice: Choice = args.learner.parse().map_err(Error::Usage)?;
    let jobs = args.jobs()?;
    let trained = store::load(&args.model, choice)?;
    let sizes = args.sizes(&trained.manifest.training.msg_bytes)?;
    // MPICH has no chain or split-binary: decide among what it has.
    let allowed = (args.format == Format::MpichJson).then(|| {
        let (allowed, left_out) = trained.allowed(mpich_json::has_equivalent);
        if !left_out.is_empty() {
            eprintln!(
                "note: MPICH has no equivalent of {}: deciding among the other candidates",
                left_out.join(", ")
            );
        }
        allowed
    });
    // Each warning once, though several jobs may raise it.
    let mut warnings: Vec<String> = Vec::new();
    for w in jobs.iter().flat_map(|j| trained.warnings(j)) {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    super::warn_all(&warnings);
    let decider = trained.decider(choice)?;
    let label = trained.label(choice);
    let tables = jobs
        .into_iter()
        .map(|job| DecisionTable::new(&decider, job, label.clone(), &sizes, allowed.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    let options = export::Options {
        rules_version: args.rules_version,
        origin: format!(
            "model {}, learner {label}, mapping {}",
            args.model.display(),
            args.mapping
        ),
        system: trained.manifest.training.system(),
        mpich_base: args
            .mpich_base
            .as_deref()
            .map(mpich_json::Base::read)
            .transpose()?,
    };
    let text = export::render(&tables, args.format, &options)?;
    super::write_output(args.out.as_deref(), &text)
}
