use crate::cli::PredictArgs;
use crate::data::Placement;
use crate::decision::{DecisionTable, Job};
use crate::error::{Error, Result};
use crate::export;
use crate::learn::LearnerKind;
use crate::model_dir::{load_learner, load_manifest};
use crate::select::Selector;

pub fn predict(args: &PredictArgs) -> Result<()> {
    let manifest = load_manifest(&args.model)?;
    let (kind, label) = if args.learner == "auto" {
        (manifest.auto, format!("{} (auto)", manifest.auto))
    } else {
        let kind: LearnerKind = args.learner.parse().map_err(Error::Usage)?;
        (kind, kind.to_string())
    };
    let procs = args
        .nodes
        .checked_mul(args.ppn)
        .ok_or_else(|| Error::Usage("--nodes x --ppn is too large".into()))?;
    Placement::new(procs, args.nodes, args.ppn, args.mapping.node_order())
        .map_err(|why| Error::Usage(format!("--nodes/--ppn: {why}")))?;
    let models = load_learner(&args.model, &manifest, kind)?;
    let trained = &manifest.training;
    if let (Some(lo), Some(hi)) = (trained.procs.first(), trained.procs.last()) {
        if procs < *lo || procs > *hi {
            eprintln!(
                "warning: {procs} ranks is outside the trained range {lo}-{hi}: predictions extrapolate"
            );
        }
    }
    let sizes = args
        .sizes
        .clone()
        .map_or_else(|| trained.msg_bytes.clone(), |s| s.0);
    let selector = Selector {
        candidates: &models.candidates,
        models: &models.models,
        mappings: &manifest.candidate_mappings,
    };
    let job = Job {
        nodes: args.nodes,
        ppn: args.ppn,
        procs,
        mapping: args.mapping,
    };
    let table = DecisionTable::new(&selector, job, label, &sizes);
    let text = export::render(&table, args.format)?;
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e)),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
