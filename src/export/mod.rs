//! Decision tables rendered for people, programs and MPI libraries: one
//! module per format.

mod csv;
mod json;
pub mod mpich_json;
mod ompi_han;
mod ompi_json;
mod ompi_rules;

pub use ompi_rules::{coll_id, tuned_bytes};
mod table;

use crate::data::{Algorithm, Candidate, Collective};
use crate::error::{Error, Result};
use crate::select::decision::DecisionTable;

/// The decision tables of one collective, one per job size (ascending
/// procs).
#[derive(Clone, Debug)]
pub struct Section {
    pub collective: Collective,
    pub tables: Vec<DecisionTable>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
    OmpiRules,
    OmpiHan,
    OmpiJson,
    MpichJson,
}

impl Format {
    /// Each format with its name and what it is (for the command line).
    pub const ALL: &[(Format, &str, &str)] = &[
        (
            Format::Table,
            "table",
            "Aligned text, consecutive sizes with the same choice merged",
        ),
        (Format::Csv, "csv", "One row per job and message size"),
        (
            Format::Json,
            "json",
            "The tables with their ranges (an array when several job sizes)",
        ),
        (
            Format::OmpiRules,
            "ompi-rules",
            "Open MPI coll/tuned rules file, classic text format (all versions; applied by \
             4.1 and 5.0.11 in the tests)",
        ),
        (
            Format::OmpiHan,
            "ompi-han",
            "Open MPI 5 coll/han rules file: on communicators that span nodes, sends each \
             size's call (broadcast, reduce, allreduce) to coll/tuned (whose rules come from \
             ompi-rules) or leaves it to HAN where `default` was chosen",
        ),
        (
            Format::OmpiJson,
            "ompi-json",
            "Open MPI coll/tuned rules file, JSON format (6.0 and later)",
        ),
        (
            Format::MpichJson,
            "mpich-json",
            "MPICH selection JSON: the --mpich-base file with the parts of the collectives \
             decided replaced (applied by MPICH 5.0 in the tests; see the README for its \
             variables)",
        ),
    ];
}

/// What the rules formats need besides the tables.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Classic rules-file version: 1 (every release) or 2 (4.1.8+, 5.0.7+).
    pub rules_version: u8,
    /// Where the decisions came from, for the files' comments.
    pub origin: String,
    /// The machine and MPI library the models were measured on (and, for
    /// one model, its collective): decisions are for that system only.
    pub system: crate::data::System,
    /// The MPICH selection file whose bcast part `mpich-json` replaces.
    pub mpich_base: Option<mpich_json::Base>,
}

/// Renders the sections: each collective's tables. The rules formats hold
/// every collective in one file; the others describe one collective.
pub fn render(sections: &[Section], format: Format, opts: &ExportOptions) -> Result<String> {
    let empty =
        |s: &Section| s.tables.is_empty() || s.tables.iter().any(|t| t.decisions.is_empty());
    if sections.is_empty() || sections.iter().any(empty) {
        return Err(Error::Usage(
            "nothing to export: no job or message size".into(),
        ));
    }
    let mut seen: Vec<Collective> = sections.iter().map(|s| s.collective).collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() < sections.len() {
        return Err(Error::Usage(
            "two models of the same collective: give one --model per collective".into(),
        ));
    }
    let rules = matches!(
        format,
        Format::OmpiRules | Format::OmpiHan | Format::OmpiJson | Format::MpichJson
    );
    if !rules && sections.len() > 1 {
        return Err(Error::Usage(
            "several models (one per collective) go into one rules file: --format ompi-rules, \
             ompi-han, ompi-json or mpich-json; the other formats take one --model"
                .into(),
        ));
    }
    let open_mpi = matches!(
        format,
        Format::OmpiRules | Format::OmpiHan | Format::OmpiJson
    );
    // Decisions measured under MPICH name MPICH's algorithms, and its
    // `default` is MPICH's own choice: none of it is Open MPI's. (Rows
    // without an `mpi` column say so by their `impl` alone.)
    let library = crate::library::Library::detect(&[opts.system.mpi.clone()].into());
    let picks_mpich = sections.iter().flat_map(|s| &s.tables).any(|t| {
        t.rules()
            .iter()
            .any(|(_, c)| c.implementation == crate::data::Impl::Mpich)
    });
    if open_mpi && (library == crate::library::Library::Mpich || picks_mpich) {
        return Err(Error::Usage(format!(
            "these decisions were measured under MPICH ({}): Open MPI's rules cannot come from \
             them; export with --format mpich-json, or measure under Open MPI",
            opts.system
        )));
    }
    let tables = &sections[0].tables;
    match format {
        Format::Table => Ok(tables
            .iter()
            .map(|t| table::render(t, &opts.system))
            .collect::<Vec<_>>()
            .join("\n")),
        Format::Csv => Ok(csv::render(tables, &opts.system)),
        Format::Json => json::render(tables, &opts.system),
        Format::OmpiRules => ompi_rules::render(sections, opts),
        Format::OmpiHan => Ok(ompi_han::render(sections, opts)),
        Format::OmpiJson => ompi_json::render(sections),
        Format::MpichJson => mpich_json::render(sections, opts.mpich_base.as_ref()),
    }
}

/// Whether any of a section's rules makes coll/tuned run something other
/// than its fixed decision. A collective named in a tuned rules file pays a
/// rules lookup on every call, at every size, even where every rule says
/// algorithm 0: on 2 ranks here a file of algorithm 0 only made calls of
/// 4-64 B 4-9% slower (`experiments/validation.md`, "the rules file's
/// lookup"). So the tuned formats leave out the collectives this is false of.
fn changes_tuned(section: &Section) -> bool {
    let c = section.collective;
    section
        .tables
        .iter()
        .flat_map(DecisionTable::rules)
        .any(|(_, candidate)| c.ompi_id(candidate.algorithm) != Some(0))
}

/// Open MPI's (algorithm id, fan-in/out, segment size) for a candidate of
/// `collective`. `default` is algorithm 0: no match, the library decides.
/// Our own re-implementations of Open MPI algorithms map to the library's
/// version; algorithms Open MPI lacks are an error.
fn ompi_rule(collective: Collective, c: &Candidate) -> Result<(u8, u32, u64)> {
    let id = collective.ompi_id(c.algorithm).ok_or_else(|| {
        Error::Usage(format!(
            "the {} decision picks '{}', which Open MPI does not have; \
             train without it or export to another format",
            collective.name(),
            c.algorithm
        ))
    })?;
    // In a rules file a chain's fan-in/out is the number of chains, and 0
    // would mean one chain; a measured chain without a fan-out ran with the
    // MCA default of 4.
    let faninout = match c.algorithm {
        Algorithm::Chain => c.fanout.unwrap_or(crate::schedule::DEFAULT_FANOUT),
        _ => 0,
    };
    Ok((id, faninout, c.segsize.unwrap_or(0)))
}

/// Open MPI's radix for knomial comes from an MCA variable, never from a
/// rules file: a note when a decision needs another radix.
fn radix_notes<'a>(sections: impl IntoIterator<Item = &'a Section>) -> Vec<String> {
    let mut radices: Vec<(&str, u32)> = sections
        .into_iter()
        .filter(|s| s.collective.describe().ompi.knomial_radix)
        .flat_map(|s| s.tables.iter().map(|t| (s.collective.name(), t)))
        .flat_map(|(name, t)| t.rules().into_iter().map(move |(_, c)| (name, c)))
        .filter(|(_, c)| c.algorithm == Algorithm::Knomial)
        .filter_map(|(name, c)| Some((name, c.fanout?)))
        .filter(|(_, r)| *r != crate::schedule::DEFAULT_FANOUT)
        .collect();
    radices.sort_unstable();
    radices.dedup();
    radices
        .iter()
        .map(|(name, r)| {
            format!(
                "knomial was chosen with radix {r}: also set --mca coll_tuned_{name}_algorithm_knomial_radix {r}"
            )
        })
        .collect()
}

/// Tables, options and a base selection file the formats' tests share.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::data::{Impl, Mapping};
    use crate::select::decision::{Choice, Decision, Job};

    pub(crate) fn cand(
        algorithm: Algorithm,
        segsize: Option<u64>,
        fanout: Option<u32>,
    ) -> Candidate {
        Candidate {
            algorithm,
            segsize,
            fanout,
            implementation: Impl::Ompi,
        }
    }

    /// Broadcast tables as the one section of an export.
    pub(crate) fn bcast(tables: &[DecisionTable]) -> Vec<Section> {
        vec![Section {
            collective: Collective::Bcast,
            tables: tables.to_vec(),
        }]
    }

    /// A table for `procs` ranks choosing `picks` at 1 B, 64 KiB, 1 MiB.
    pub(crate) fn table(procs: u32, picks: [Candidate; 3]) -> DecisionTable {
        let decisions = [1u64, 65536, 1 << 20]
            .iter()
            .zip(picks)
            .map(|(&m, c)| Decision {
                msg_bytes: m,
                choice: Choice {
                    candidate: c,
                    predicted_us: 1.0,
                },
                runner_up: None,
                margin: None,
                extrapolated: false,
                at_floor: false,
            })
            .collect();
        DecisionTable {
            job: Job {
                nodes: 1,
                ppn: procs,
                procs,
                mapping: Mapping::Core,
                imbalance: 0.0,
                arrival: crate::data::Arrival::Barrier,
            },
            learner: "test".into(),
            decisions,
        }
    }

    pub(crate) fn opts(v: u8) -> ExportOptions {
        ExportOptions {
            rules_version: v,
            origin: "test 0123".into(),
            system: crate::data::System::default(),
            mpich_base: Some(
                mpich_json::Base::parse(std::path::Path::new("base.json"), MPICH_BASE).unwrap(),
            ),
        }
    }

    /// A selection file shaped like MPICH's, with a collective after bcast.
    pub(crate) const MPICH_BASE: &str = r#"{"collective=bcast": {"comm_type=intra": {"comm_size=any":
        {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_smp": {}}}}},
        "collective=barrier": {"comm_type=intra": {"comm_size<8": {"algorithm=B": {}},
        "comm_size=any": {"algorithm=A": {}}}}}"#;

    pub(crate) fn numbers(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('#').next().unwrap().trim().to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn algorithms_a_library_lacks_are_refused() {
        let sbbt = cand(Algorithm::Sbbt, None, None);
        let t = table(4, [sbbt; 3]);
        assert!(matches!(
            render(
                &bcast(std::slice::from_ref(&t)),
                Format::OmpiRules,
                &opts(1)
            ),
            Err(Error::Usage(_))
        ));
        assert!(matches!(
            render(&bcast(std::slice::from_ref(&t)), Format::OmpiJson, &opts(1)),
            Err(Error::Usage(_))
        ));
        assert!(
            render(&bcast(&[t]), Format::MpichJson, &opts(1)).is_ok(),
            "sbbt is MPICH's binomial"
        );
        // `predict` offers MPICH only what it has; a table with chain here
        // is a bug, reported as such rather than written.
        let chain = cand(Algorithm::Chain, Some(0), Some(4));
        assert!(!mpich_json::has_equivalent(Collective::Bcast, &chain));
        assert!(mpich_json::has_equivalent(Collective::Bcast, &sbbt));
        assert!(matches!(
            render(&bcast(&[table(4, [chain; 3])]), Format::MpichJson, &opts(1)),
            Err(Error::Other(_))
        ));
        assert!(matches!(
            render(&bcast(&[]), Format::OmpiRules, &opts(1)),
            Err(Error::Usage(_))
        ));
    }

    /// Broadcast and reduce in one file: a section per collective with
    /// coll/tuned's ids (reduce 11, its algorithm ids its own), the JSON
    /// with both collectives, MPICH's file with the reduce part replaced;
    /// the formats of one collective refuse several.
    #[test]
    fn every_collective_goes_into_one_rules_file() {
        let in_order = cand(Algorithm::InOrderBinary, Some(0), None);
        let binomial = cand(Algorithm::Binomial, Some(8192), None);
        let sections = vec![
            Section {
                collective: Collective::Reduce,
                tables: vec![table(4, [in_order, binomial, Candidate::DEFAULT])],
            },
            Section {
                collective: Collective::Bcast,
                tables: vec![table(4, [binomial; 3])],
            },
        ];
        let text = render(&sections, Format::OmpiRules, &opts(1)).unwrap();
        assert!(text.contains("MPI_Bcast and MPI_Reduce rules"), "{text}");
        assert!(text.contains("\n2 # collectives in this file"), "{text}");
        let bcast_at = text.find("7 # collective id: bcast").unwrap();
        let reduce_at = text.find("11 # collective id: reduce").unwrap();
        assert!(bcast_at < reduce_at, "{text}");
        // Reduce's in-order binary is its algorithm 6, binomial its 5; the
        // broadcast keeps binomial as its 6.
        let reduce_part = &text[reduce_at..];
        assert!(reduce_part.contains("\n0 6 0 0 #"), "{text}");
        assert!(reduce_part.contains("\n65536 5 0 8192 #"), "{text}");
        assert!(reduce_part.contains("\n1048576 0 0 0 #"), "{text}");
        assert!(
            text[bcast_at..reduce_at].contains("\n0 6 0 8192 #"),
            "{text}"
        );

        let json: serde_json::Value =
            serde_json::from_str(&render(&sections, Format::OmpiJson, &opts(1)).unwrap()).unwrap();
        let reduce = &json["collectives"]["reduce"][0]["rules"];
        assert_eq!(reduce[0]["alg"], "in-order_binary");
        assert_eq!(reduce[1]["alg"], "binomial");
        assert_eq!(
            json["collectives"]["bcast"][0]["rules"][0]["alg"],
            "binomial"
        );

        // MPICH: in-order binary has no equivalent, so only binomial and
        // default may be offered there.
        let mpich_sections = vec![
            Section {
                collective: Collective::Reduce,
                tables: vec![table(
                    4,
                    [
                        binomial,
                        cand(Algorithm::Rabenseifner, None, None),
                        Candidate::DEFAULT,
                    ],
                )],
            },
            sections[1].clone(),
        ];
        let text = render(&mpich_sections, Format::MpichJson, &opts(1)).unwrap();
        assert!(text.contains("\"collective=reduce\""), "{text}");
        assert!(
            text.contains("MPIR_Reduce_intra_reduce_scatter_gather"),
            "{text}"
        );
        assert!(text.contains("\"collective=barrier\""), "{text}");
        assert!(!mpich_json::has_equivalent(Collective::Reduce, &in_order));
        assert!(render(&sections, Format::MpichJson, &opts(1)).is_err());

        for (format, why) in [(Format::Table, "one --model"), (Format::Csv, "one --model")] {
            let err = render(&sections, format, &opts(1)).unwrap_err();
            assert!(err.to_string().contains(why), "{err}");
        }
        let twice = vec![sections[1].clone(), sections[1].clone()];
        let err = render(&twice, Format::OmpiRules, &opts(1)).unwrap_err();
        assert!(
            err.to_string().contains("one --model per collective"),
            "{err}"
        );
    }

    /// Allreduce joins them: coll/tuned's id 2 with its own algorithm ids
    /// (basic linear 1, segmented ring 5 with its segment size), the 6.0
    /// JSON names, MPICH's recursive doubling, ring and reduce-scatter +
    /// allgather; its linear has no MPICH equivalent.
    #[test]
    fn allreduce_joins_the_rules_file() {
        let linear = cand(Algorithm::Linear, None, None);
        let ring8k = cand(Algorithm::SegmentedRing, Some(8192), None);
        let binomial = cand(Algorithm::Binomial, Some(0), None);
        let sections = vec![
            Section {
                collective: Collective::Bcast,
                tables: vec![table(4, [binomial; 3])],
            },
            Section {
                collective: Collective::Reduce,
                tables: vec![table(4, [binomial; 3])],
            },
            Section {
                collective: Collective::Allreduce,
                tables: vec![table(4, [linear, ring8k, Candidate::DEFAULT])],
            },
        ];
        let text = render(&sections, Format::OmpiRules, &opts(1)).unwrap();
        assert!(text.contains("\n3 # collectives in this file"), "{text}");
        let allreduce_at = text.find("2 # collective id: allreduce").unwrap();
        let bcast_at = text.find("7 # collective id: bcast").unwrap();
        assert!(allreduce_at < bcast_at, "{text}");
        let part = &text[allreduce_at..bcast_at];
        assert!(part.contains("\n0 1 0 0 #"), "{text}");
        assert!(part.contains("\n65536 5 0 8192 #"), "{text}");
        assert!(part.contains("\n1048576 0 0 0 #"), "{text}");

        let json: serde_json::Value =
            serde_json::from_str(&render(&sections, Format::OmpiJson, &opts(1)).unwrap()).unwrap();
        let rules = &json["collectives"]["allreduce"][0]["rules"];
        assert_eq!(rules[0]["alg"], "basic_linear");
        assert_eq!(rules[1]["alg"], "segmented_ring");
        assert_eq!(rules[1]["seg_size"], 8192);

        let mpich = |picks| {
            let mut s = sections.clone();
            s[2].tables = vec![table(4, picks)];
            render(&s, Format::MpichJson, &opts(1))
        };
        let doubling = cand(Algorithm::RecursiveDoubling, None, None);
        let ring = cand(Algorithm::Ring, None, None);
        let rabenseifner = cand(Algorithm::Rabenseifner, None, None);
        let text = mpich([doubling, ring, rabenseifner]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sizes =
            &v["collective=allreduce"]["comm_type=intra"]["comm_size=any"]["comm_avg_ppn<=4"];
        // In size order in the file (MPICH takes the first that matches).
        let at = |k: &str| text.find(k).unwrap();
        assert!(
            at("avg_msg_size<=65535") < at("avg_msg_size<=1048575"),
            "{text}"
        );
        assert_eq!(sizes.as_object().unwrap().len(), 3);
        assert!(sizes["avg_msg_size<=65535"]
            .get("algorithm=MPIR_Allreduce_intra_recursive_doubling")
            .is_some());
        assert!(sizes["avg_msg_size<=1048575"]
            .get("algorithm=MPIR_Allreduce_intra_ring")
            .is_some());
        assert!(sizes["avg_msg_size=any"]["count=any"]
            .get("algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather")
            .is_some());
        assert!(text.contains("MPIR_Allreduce_inter_reduce_exchange_bcast"));
        assert!(!mpich_json::has_equivalent(Collective::Allreduce, &linear));
        assert!(mpich([linear, ring, ring]).is_err());
    }
}
