//! `verify` under MPICH: the selection file the job names, which
//! collectives consult it, and each collective and size timed three ways
//! in paired rounds: MPICH's own choice (the call left to its device
//! layer), the job's call through the file, and the file's algorithm
//! forced alone.

use super::run::Planned;
use super::{Expected, MpichEnvironment, VerifyOptions};
use crate::bench::compare::{Arm, Request};
use crate::bench::{self, control, mpich as forcing, Session};
use crate::collective::{MpichAlgorithm, MpichParam};
use crate::data::{Candidate, Collective, Impl, Mapping};
use crate::error::{Error, Result};
use crate::export::mpich_json::{Base, Call, Selected};
use std::path::Path;

pub(super) fn checked(session: &Session, opts: &VerifyOptions) -> Result<()> {
    let rank0 = session.rank() == 0;
    let env = environment(&opts.collectives)?;
    // Every rank reads the file, as MPICH did at start-up on each.
    let file = env
        .in_effect()
        .and_then(|()| Base::read(Path::new(&env.selection_file)).map_err(|e| e.to_string()));
    match (session.first_failing(file.is_err()), file) {
        (_, Err(line)) if rank0 => Err(Error::NotInEffect(line)),
        (Some(rank), _) if rank0 => Err(Error::NotInEffect(format!(
            "rank {rank} cannot read the selection file rank 0 reads (a path relative to its \
             working directory, or a file its node lacks): give its absolute path on a shared \
             filesystem"
        ))),
        (Some(_), _) | (None, Err(_)) => Err(Error::Reported(3)),
        (None, Ok(file)) => measure(session, opts, &env, &file),
    }
}

fn environment(collectives: &[Collective]) -> Result<MpichEnvironment> {
    let device = collectives
        .iter()
        .map(|c| {
            let name = format!(
                "MPIR_CVAR_{}_DEVICE_COLLECTIVE",
                c.name().to_ascii_uppercase()
            );
            let value = control::int_variable(&name).map_err(Error::Other)?;
            Ok((*c, value.unwrap_or(1) != 0))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(MpichEnvironment {
        library: bench::library_version(),
        selection_file: forcing::selection_file().map_err(Error::Other)?,
        device_collectives: forcing::device_collectives().map_err(Error::Other)?,
        device,
    })
}

/// The candidate of MPICH's algorithm a file selects, where it is one of
/// the collective's with parameters `bench` can force (MPICH's defaults,
/// any radix); else the file's algorithm cannot be timed alone.
fn candidate(collective: Collective, selected: &Selected) -> Option<Candidate> {
    let m = collective
        .describe()
        .mpich
        .algorithms
        .iter()
        .find(|m| collective.mpich_function(m.algorithm) == selected.function)?;
    let value = |key: &str| {
        selected
            .params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    // The radix and the chunk as a candidate holds them.
    let swept = |param: Option<&MpichParam>| -> Option<Option<u64>> {
        match param {
            Some(p) => Some(MpichAlgorithm::normalized(p, value(p.key)?.parse().ok()?)),
            None => Some(None),
        }
    };
    let segsize = swept(m.chunk())?;
    let fanout = swept(m.radix())?.map(|k| k as u32);
    let forceable = m
        .params
        .iter()
        .all(|p| value(p.key) == Some(m.value(p, segsize, fanout).as_str()));
    forceable.then_some(Candidate {
        algorithm: m.algorithm,
        segsize,
        fanout,
        implementation: Impl::Mpich,
    })
}

fn measure(
    session: &Session,
    opts: &VerifyOptions,
    env: &MpichEnvironment,
    file: &Base,
) -> Result<()> {
    let mut plans: Vec<(Collective, Vec<Planned>)> = Vec::new();
    for &collective in &opts.collectives {
        let mut planned = Vec::new();
        for (p, placed, m) in super::run::calls(session, opts, collective)? {
            let call = Call {
                collective,
                procs: p,
                nodes: placed.nodes,
                node_consecutive: placed.mapping != Mapping::Node,
                msg_bytes: m,
            };
            let selected = file.select(&call).map_err(|why| {
                Error::NotInEffect(format!(
                    "{} on {p} ranks at {m} B: {why} in {}",
                    collective.function(),
                    env.selection_file
                ))
            })?;
            let rule = candidate(collective, &selected);
            let mut arms = vec![Arm::DeviceLayer, Arm::Job];
            arms.extend(rule.map(Arm::Forced));
            planned.push(Planned {
                procs: p,
                expected: Expected {
                    served_by: "selection file".into(),
                    rule,
                },
                decision: rule.is_none().then_some(selected.function),
                request: Request { msg_bytes: m, arms },
            });
        }
        plans.push((collective, planned));
    }
    if session.rank() == 0 {
        header(env, file, opts.json);
    }
    super::run::time_and_report(session, opts, &plans)
}

/// What is in effect, said before the timings (standard error with JSON).
fn header(env: &MpichEnvironment, file: &Base, json: bool) {
    let taken: Vec<String> = env
        .device
        .iter()
        .map(|(c, _)| {
            format!(
                "MPIR_CVAR_{}_DEVICE_COLLECTIVE=0",
                c.name().to_ascii_uppercase()
            )
        })
        .collect();
    let lines = [
        env.library.clone(),
        format!(
            "MPICH selection file {}: read (entries: {})",
            env.selection_file,
            file.collectives().join(", ")
        ),
        format!(
            "consulted for the collectives checked: MPIR_CVAR_DEVICE_COLLECTIVES={} {}",
            env.device_collectives,
            taken.join(" ")
        ),
        "speed-up: MPICH's own choice (the call left to its device layer) over the job's call \
         through the selection file; above 1: the file is faster"
            .to_string(),
    ];
    super::run::print_header(&lines, json);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Algorithm;

    fn selected(function: &str, params: &[(&str, &str)]) -> Selected {
        Selected {
            function: function.into(),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The file's algorithm is timed alone where `bench` can force it: its
    /// parameters MPICH's defaults but for the radix.
    #[test]
    fn the_files_algorithm_is_forced_with_its_radix() {
        let c = Collective::Allgather;
        let k = |v| selected("MPIR_Allgather_intra_k_brucks", &[("k", v)]);
        let forced = candidate(c, &k("2")).unwrap();
        assert_eq!(
            (forced.algorithm, forced.fanout),
            (Algorithm::KBrucks, None)
        );
        assert_eq!(candidate(c, &k("8")).unwrap().fanout, Some(8));
        let ring = candidate(c, &selected("MPIR_Allgather_intra_ring", &[])).unwrap();
        assert_eq!(ring.implementation, Impl::Mpich);
        // Another parameter than MPICH's default: not forceable alone.
        let recexch = |single: &str| {
            selected(
                "MPIR_Allgather_intra_recexch_doubling",
                &[("k", "2"), ("single_phase_recv", single)],
            )
        };
        assert!(candidate(c, &recexch("0")).is_some());
        assert!(candidate(c, &recexch("1")).is_none());
        assert!(candidate(c, &selected("MPIR_Allgather_intra_unknown", &[])).is_none());
        // The pipelined tree's chunk is the candidate's segment size.
        let pipelined = |chunk| {
            let params = [
                ("tree_type", "kary"),
                ("k", "2"),
                ("is_non_blocking", "1"),
                ("chunk_size", chunk),
                ("recv_pre_posted", "0"),
            ];
            candidate(
                Collective::Bcast,
                &selected("MPIR_Bcast_intra_pipelined_tree", &params),
            )
        };
        assert_eq!(pipelined("8192").unwrap().segsize, None);
        assert_eq!(pipelined("65536").unwrap().segsize, Some(65536));
        assert!(
            pipelined("0").is_none(),
            "MPICH's chunk 0 is no candidate's"
        );
    }
}
