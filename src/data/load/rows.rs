//! Measurements built from a table's checked columns, row by row.

use super::cells::{Cells, First};
use super::frame::Columns;
use super::rules::{required, Times};
use crate::data::{Algorithm, Arrival, Candidate, Collective, Config, Impl, Mapping, Measurement};
use crate::error::{InputError, Result};

/// The rows, and the collective of each.
pub(super) fn build_rows(
    cells: &Cells,
    columns: &Columns,
    warnings: &mut Vec<String>,
    times: Times,
) -> Result<(Vec<Measurement>, Vec<Collective>), InputError> {
    let mut first = First::default();
    cells.check_numbers(&mut first)?;
    for name in &required(times)[1..] {
        cells.check_present(name, &mut first)?;
    }
    let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
    let collective = cells.named::<Collective>(
        "collective",
        &format!("one of {}", names.join(", ")),
        false,
        &mut first,
    )?;
    let collective: Vec<Collective> = collective
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let algorithm = cells.algorithms(&collective, &mut first)?;
    let mapping = cells.named::<Mapping>(
        "mapping",
        "core, socket, block, node or cyclic",
        false,
        &mut first,
    )?;
    let implementation = cells.named::<Impl>("impl", "own, ompi or mpich", false, &mut first)?;
    let arrival = cells.named::<Arrival>(
        "arrival_pattern",
        "barrier, uniform or late:F with F between 0 and 1",
        false,
        &mut first,
    )?;
    if let Some((_, _, error)) = first.0 {
        return Err(error);
    }
    let whole = |name| -> Result<Vec<Option<u64>>, InputError> {
        Ok(cells
            .numbers(name)?
            .into_iter()
            .map(|v| v.map(|x| x as u64))
            .collect())
    };
    let small = |name| -> Result<Vec<Option<u32>>, InputError> {
        Ok(cells
            .numbers(name)?
            .into_iter()
            .map(|v| v.map(|x| x as u32))
            .collect())
    };
    let (procs, nodes, ppn, fanout) = (
        small("procs")?,
        small("nodes")?,
        small("ppn")?,
        small("fanout")?,
    );
    let (msg_bytes, segsize, reps) = (whole("msg_bytes")?, whole("segsize_bytes")?, whole("reps")?);
    let time_us = cells.numbers("time_us")?;
    let imbalance = cells.numbers("imbalance")?;
    let time_min = cells.numbers("time_min_us")?;
    let time_max = cells.numbers("time_max_us")?;
    let ci95 = cells.numbers("ci95_us")?;

    let mut empty_nodes = 0;
    let mut rows = Vec::with_capacity(procs.len());
    for row in 0..procs.len() {
        if columns.has("nodes") && nodes[row].is_none() {
            empty_nodes += 1;
        }
        let n = nodes[row].unwrap_or(1);
        // Present: checked above.
        let p = procs[row].unwrap_or(1);
        let k = ppn[row].unwrap_or(p.div_ceil(n));
        crate::data::Placement::new(p, n, k, crate::data::NodeOrder::Block).map_err(|why| {
            let name = if columns.has("ppn") { "ppn" } else { "nodes" };
            cells.error(
                row,
                name,
                format!("impossible job: {why}; expected nodes <= procs <= nodes x ppn"),
            )
        })?;
        if let (Some(lo), Some(hi)) = (time_min[row], time_max[row]) {
            if lo > hi {
                return Err(cells.error(
                    row,
                    "time_min_us",
                    format!("time_min_us {lo} exceeds time_max_us {hi}; expected min <= max"),
                ));
            }
        }
        // `-0` is written by some tools; it is the balanced 0.
        let x = imbalance[row].unwrap_or(0.0) + 0.0;
        // Files from before the pattern column: imbalance without a pattern
        // is the uniform one.
        let arrival = arrival[row].unwrap_or(if x > 0.0 {
            Arrival::Uniform
        } else {
            Arrival::Barrier
        });
        if arrival == Arrival::Barrier && x > 0.0 {
            return Err(cells.error(
                row,
                "imbalance",
                format!("imbalance {x} with arrival_pattern barrier; expected 0 (a barrier start has no imbalance)"),
            ));
        }
        let candidate = Candidate {
            algorithm: algorithm[row].unwrap_or(Algorithm::Default),
            segsize: segsize[row],
            fanout: fanout[row],
            implementation: implementation[row].unwrap_or_default(),
        };
        // A row of MPICH's names an algorithm of MPICH's.
        let c = collective[row];
        if candidate.implementation == Impl::Mpich
            && c.mpich_algorithm(candidate.algorithm).is_none()
        {
            let names: Vec<&str> = c
                .describe()
                .mpich
                .algorithms
                .iter()
                .map(|m| m.algorithm.name())
                .collect();
            return Err(cells.error(
                row,
                "algorithm",
                format!(
                    "impl mpich with {}, which is no MPICH {c} algorithm; expected one of {} \
                     (MPICH's own choice is `default` with impl ompi)",
                    candidate.algorithm,
                    names.join(", ")
                ),
            ));
        }
        rows.push(Measurement {
            config: Config {
                procs: p,
                nodes: n,
                ppn: k,
                mapping: mapping[row].unwrap_or_default(),
                msg_bytes: msg_bytes[row].unwrap_or_default(),
                imbalance: x,
                arrival,
            },
            candidate,
            // A grid's rows have no time.
            time_us: time_us[row].unwrap_or(f64::NAN),
            time_min_us: time_min[row],
            time_max_us: time_max[row],
            ci95_us: ci95[row],
            reps: reps[row],
            rows: 1,
        });
    }
    if empty_nodes > 0 {
        warnings.push(format!(
            "{}: {empty_nodes} rows with an empty 'nodes' value; assuming 1 node for them",
            cells.path.display()
        ));
    }
    Ok((rows, collective))
}
