use crate::cli::PredictArgs;
use crate::data::Placement;
use crate::decision::{DecisionTable, Job};
use crate::error::{Error, Result};
use crate::export::{self, Options};
use crate::learn::LearnerKind;
use crate::model_dir::{load_learner, load_manifest};
use crate::select::Selector;
use crate::train::default_margin;

pub fn predict(args: &PredictArgs) -> Result<()> {
    let manifest = load_manifest(&args.model)?;
    let (kind, label) = if args.learner == "auto" {
        (manifest.auto, format!("{} (auto)", manifest.auto))
    } else {
        let kind: LearnerKind = args.learner.parse().map_err(Error::Usage)?;
        (kind, kind.to_string())
    };
    let jobs = jobs(args)?;
    let models = load_learner(&args.model, &manifest, kind)?;
    let trained = &manifest.training;
    let sizes = args
        .sizes
        .clone()
        .map_or_else(|| trained.msg_bytes.clone(), |s| s.0);
    let selector = Selector {
        candidates: &models.candidates,
        models: &models.models,
        mappings: &manifest.candidate_mappings,
        default_margin: default_margin(&manifest.cv, kind),
    };
    let mut tables = Vec::with_capacity(jobs.len());
    for job in jobs {
        if let (Some(lo), Some(hi)) = (trained.procs.first(), trained.procs.last()) {
            if job.procs < *lo || job.procs > *hi {
                eprintln!(
                    "warning: {} ranks is outside the trained range {lo}-{hi}: predictions extrapolate",
                    job.procs
                );
            }
        }
        tables.push(DecisionTable::new(&selector, job, label.clone(), &sizes));
    }
    let options = Options {
        rules_version: args.rules_version,
        origin: format!(
            "model {}, learner {label}, mapping {}",
            args.model.display(),
            args.mapping
        ),
    };
    let text = export::render(&tables, args.format, &options)?;
    super::write_output(args.out.as_deref(), &text)
}

/// The job, or one job per `--procs` value spread over `--nodes` nodes.
fn jobs(args: &PredictArgs) -> Result<Vec<Job>> {
    let shapes: Vec<(u32, u32, u32)> = match (&args.procs, args.ppn) {
        (Some(list), _) => list
            .0
            .iter()
            .map(|&p| {
                let procs = u32::try_from(p)
                    .map_err(|_| Error::Usage(format!("--procs {p} is too large")))?;
                let nodes = args.nodes.min(procs);
                Ok((procs, nodes, procs.div_ceil(nodes.max(1))))
            })
            .collect::<Result<_>>()?,
        (None, Some(ppn)) => {
            let procs = args
                .nodes
                .checked_mul(ppn)
                .ok_or_else(|| Error::Usage("--nodes x --ppn is too large".into()))?;
            vec![(procs, args.nodes, ppn)]
        }
        (None, None) => return Err(Error::Usage("give --ppn or --procs".into())),
    };
    shapes
        .into_iter()
        .map(|(procs, nodes, ppn)| {
            Placement::new(procs, nodes, ppn, args.mapping.node_order())
                .map_err(|why| Error::Usage(format!("job of {procs} ranks: {why}")))?;
            Ok(Job {
                nodes,
                ppn,
                procs,
                mapping: args.mapping,
            })
        })
        .collect()
}
