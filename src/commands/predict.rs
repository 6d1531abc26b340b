use crate::cli::PredictArgs;
use crate::data::Placement;
use crate::error::{Error, Result};
use crate::export::{self, Options};
use crate::select::decision::{DecisionTable, Job};
use crate::select::measured::Decided;
use crate::select::{Auto, AutoSelector, Predictor, Rank, Selector, SelectorKind};
use crate::train::cv::policy;
use crate::train::store::{load_analytical, load_learner, load_manifest, load_measured};

pub fn predict(args: &PredictArgs) -> Result<()> {
    let arrival = crate::cli::arrival(args.imbalance.is_some(), args.late_fraction);
    predict_jobs(args, jobs(args, arrival)?)
}

/// The decisions for `jobs` (the placement options of `args` aside) in
/// one output.
pub(super) fn predict_jobs(args: &PredictArgs, jobs: Vec<Job>) -> Result<()> {
    let manifest = load_manifest(&args.model)?;
    let name = args.learner.trim().to_ascii_lowercase();
    let is_auto = name == "auto";
    let (choice, label) = match name.as_str() {
        "auto" => (manifest.auto, format!("{} (auto)", manifest.auto)),
        name => {
            let kind: SelectorKind = name
                .parse()
                .map_err(|e| Error::Usage(format!("{e}, or auto")))?;
            let one = Auto {
                inside: kind,
                outside: kind,
            };
            (one, kind.to_string())
        }
    };
    let analytical = load_analytical(&args.model)?;
    let models = |kind: SelectorKind| match kind {
        SelectorKind::Learner(learner) => Ok(load_learner(&args.model, &manifest, learner)?.models),
        SelectorKind::Analytical if analytical.platform.is_none() => Err(Error::Usage(
            "the analytical model was fitted on no rows: the training data has no \
             algorithm with a schedule"
                .into(),
        )),
        SelectorKind::Analytical => Ok(Vec::new()),
    };
    let (inside_models, outside_models) = (models(choice.inside)?, models(choice.outside)?);
    let trained = &manifest.training;
    // MPI_Bcast of no data, or over one rank, returns at once in Open MPI
    // and MPICH: there is nothing to decide (see also `jobs`).
    let sizes = match &args.sizes {
        Some(list) if list.0.contains(&0) => {
            return Err(Error::Usage(
                "--sizes has 0 B: a broadcast of no data returns without \
                 communicating, so there is nothing to decide; give sizes of 1 byte or more"
                    .into(),
            ))
        }
        Some(list) => list.0.clone(),
        None => trained
            .msg_bytes
            .iter()
            .copied()
            .filter(|&m| m > 0)
            .collect(),
    };
    let selector = |kind: SelectorKind, models| Selector {
        candidates: &manifest.candidates,
        predictor: Predictor::of(kind, models, &analytical),
        target: manifest.target,
        mappings: &manifest.candidate_mappings,
        policy: policy(&manifest.cv, kind),
        range: manifest.range,
    };
    let both = AutoSelector {
        inside: selector(choice.inside, &inside_models),
        outside: selector(choice.outside, &outside_models),
    };
    // `auto` decides measured configurations by their measurement.
    let measured = if is_auto {
        Some(load_measured(&args.model, &manifest)?)
    } else {
        None
    };
    let decided = measured.as_ref().map(|measured| Decided {
        selector: &both,
        measured,
        margin: both.inside.policy.margin,
    });
    let selector: &dyn Rank = match &decided {
        Some(d) => d,
        None => &both,
    };
    // Every job of one call shares its arrival pattern and mapping.
    let (arrival, mapping) = jobs
        .first()
        .map_or((Default::default(), args.mapping), |j| {
            (j.arrival, j.mapping)
        });
    let pattern = arrival.to_string();
    if !trained
        .arrivals
        .iter()
        .any(|a| a.split(' ').next() == Some(pattern.as_str()))
    {
        eprintln!(
            "warning: the training data has no arrival pattern {pattern} (it has {}): \
             predictions extrapolate",
            trained.arrivals.join(", ")
        );
    }
    // MPICH has no chain or split-binary: decide among what it has.
    let allowed: Option<Vec<bool>> = (args.format == export::Format::MpichJson).then(|| {
        let keep: Vec<bool> = manifest
            .candidates
            .iter()
            .map(export::mpich_json::has_equivalent)
            .collect();
        let left_out: Vec<String> = manifest
            .candidates
            .iter()
            .zip(&keep)
            .filter(|(_, k)| !**k)
            .map(|(c, _)| c.to_string())
            .collect();
        if !left_out.is_empty() {
            eprintln!(
                "note: MPICH has no equivalent of {}: deciding among the other candidates",
                left_out.join(", ")
            );
        }
        keep
    });
    let mut tables = Vec::with_capacity(jobs.len());
    for job in jobs {
        let (lo, hi) = manifest.range.procs;
        if job.procs < lo || job.procs > hi {
            eprintln!(
                "warning: {} ranks is outside the trained range {lo}-{hi}: decisions there \
                 extrapolate, and keep `default` unless cross-validation showed the \
                 selector extrapolates that far",
                job.procs
            );
        }
        tables.push(
            DecisionTable::new(selector, job, label.clone(), &sizes, allowed.as_deref())
                .map_err(Error::Other)?,
        );
    }
    let options = Options {
        rules_version: args.rules_version,
        origin: format!(
            "model {}, learner {label}, mapping {}",
            args.model.display(),
            mapping
        ),
        system: trained.system(),
        mpich_base: args.mpich_base.as_deref().map(mpich_base).transpose()?,
    };
    let text = export::render(&tables, args.format, &options)?;
    super::write_output(args.out.as_deref(), &text)
}

/// The job, or one job per `--procs` value spread over `--nodes` nodes, for
/// ranks arriving as `arrival` says.
fn jobs(args: &PredictArgs, arrival: crate::data::Arrival) -> Result<Vec<Job>> {
    let mut shapes: Vec<(u32, u32, u32)> = match (&args.procs, args.ppn) {
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
    // A 1-rank broadcast sends nothing: left out of a list, refused alone.
    if shapes.iter().all(|&(procs, ..)| procs == 1) {
        return Err(Error::Usage(
            "a job of 1 rank: its broadcast sends nothing, so there is nothing to decide; \
             give 2 ranks or more"
                .into(),
        ));
    }
    if shapes.iter().any(|&(procs, ..)| procs == 1) {
        eprintln!("note: --procs 1 left out: a 1-rank broadcast sends nothing");
        shapes.retain(|&(procs, ..)| procs > 1);
    }
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
                imbalance: args.imbalance.unwrap_or(0.0),
                arrival,
            })
        })
        .collect()
}

/// Reads the MPICH selection file `--mpich-base` names.
fn mpich_base(path: &std::path::Path) -> Result<export::mpich_json::Base> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        crate::error::InputError::new(
            path,
            format!("cannot read ({e}); expected MPICH's selection JSON"),
        )
    })?;
    Ok(export::mpich_json::Base::parse(path, &text)?)
}
