//! `collsel import`: other tools' measurements (OSU) as benchmark rows.

use super::warn_all;
use crate::cli::OsuArgs;
use crate::data::osu::parse_osu;
use crate::data::write::{CsvWriter, RowMeta};
use crate::data::{Candidate, Config, Measurement};
use crate::error::{InputError, Result};

pub fn osu(args: &OsuArgs) -> Result<()> {
    let placement = args.placement.placement(args.procs)?;
    let candidate = Candidate {
        algorithm: args.algorithm,
        segsize: args.segsize,
        fanout: args.fanout,
        implementation: args.implementation,
    };
    // Parse everything before writing anything, so a bad file adds no rows.
    let mut runs = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let bytes = std::fs::read(file).map_err(|e| {
            InputError::new(
                file,
                format!("cannot read file ({e}); expected osu_bcast output"),
            )
            .at(1, 1)
        })?;
        let run = parse_osu(file, &bytes)?;
        warn_all(&run.warnings);
        runs.push((file, run));
    }
    let mut out = CsvWriter::append(&args.out)?;
    let mut written = 0;
    for (file, run) in runs {
        let meta = RowMeta {
            system: crate::data::System {
                collective: crate::data::Collective::Bcast,
                machine: args.machine.clone(),
                mpi: args.mpi.clone(),
            },
            source: format!("osu_bcast:{}", file.display()),
        };
        for p in run.points {
            let m = Measurement {
                config: Config {
                    procs: args.procs,
                    nodes: placement.nodes,
                    ppn: placement.ppn,
                    mapping: args.placement.mapping,
                    msg_bytes: p.msg_bytes,
                    imbalance: 0.0,
                    arrival: crate::data::Arrival::Barrier,
                },
                candidate,
                time_us: p.avg_us,
                time_min_us: p.min_us,
                time_max_us: p.max_us,
                ci95_us: None,
                reps: p.iterations,
                rows: 1,
            };
            out.write(&m, &meta)?;
            written += 1;
        }
    }
    eprintln!("wrote {written} rows to {}", args.out.display());
    Ok(())
}
