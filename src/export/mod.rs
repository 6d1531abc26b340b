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
pub struct Options {
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
pub fn render(sections: &[Section], format: Format, opts: &Options) -> Result<String> {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::{Impl, Mapping};
    use crate::select::decision::{Choice, Decision, Job};

    pub fn cand(algorithm: Algorithm, segsize: Option<u64>, fanout: Option<u32>) -> Candidate {
        Candidate {
            algorithm,
            segsize,
            fanout,
            implementation: Impl::Ompi,
        }
    }

    /// Broadcast tables as the one section of an export.
    fn bcast(tables: &[DecisionTable]) -> Vec<Section> {
        vec![Section {
            collective: Collective::Bcast,
            tables: tables.to_vec(),
        }]
    }

    /// A table for `procs` ranks choosing `picks` at 1 B, 64 KiB, 1 MiB.
    pub fn table(procs: u32, picks: [Candidate; 3]) -> DecisionTable {
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

    fn opts(v: u8) -> Options {
        Options {
            rules_version: v,
            origin: "test 0123".into(),
            system: crate::data::System::default(),
            mpich_base: Some(
                mpich_json::Base::parse(std::path::Path::new("base.json"), MPICH_BASE).unwrap(),
            ),
        }
    }

    /// A selection file shaped like MPICH's, with a collective after bcast.
    const MPICH_BASE: &str = r#"{"collective=bcast": {"comm_type=intra": {"comm_size=any":
        {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_smp": {}}}}},
        "collective=barrier": {"comm_type=intra": {"comm_size<8": {"algorithm=B": {}},
        "comm_size=any": {"algorithm=A": {}}}}}"#;

    fn numbers(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('#').next().unwrap().trim().to_string())
            .collect()
    }

    /// HAN's file: per job size its own configuration, sizes above it
    /// handed back to HAN unless the next job starts there; `default`
    /// keeps HAN, any other choice goes to tuned, runs of one merged.
    #[test]
    fn han_rules_route_each_job() {
        let pipeline = cand(Algorithm::Pipeline, Some(1024), None);
        let binomial = cand(Algorithm::Binomial, Some(0), None);
        let tuned = cand(Algorithm::Tuned, None, None);
        let tables = [
            table(8, [pipeline, tuned, pipeline]),
            table(4, [Candidate::DEFAULT, pipeline, binomial]),
            table(9, [Candidate::DEFAULT; 3]),
        ];
        let text = render(&bcast(&tables), Format::OmpiHan, &opts(1)).unwrap();
        assert!(text.contains("coll_han_dynamic_rules_filename"), "{text}");
        let expected = [
            "1",
            "7",
            "1",
            "2", // one collective: bcast, one level: the job's communicator
            "5", // configurations
            "1",
            "1",
            "0 han", // below every job: HAN (its reader needs a first size of 1)
            "4",
            "2",
            "0 han",
            "65536 tuned", // 4 ranks
            "5",
            "1",
            "0 han", // above 4: HAN
            "8",
            "1",
            "0 tuned", // 8 ranks; 9 starts at once
            "9",
            "1",
            "0 han",
        ];
        assert_eq!(numbers(&text), expected);
        let one = render(&bcast(&tables[..1]), Format::OmpiHan, &opts(1)).unwrap();
        assert_eq!(
            numbers(&one),
            ["1", "7", "1", "2", "1", "1", "1", "0 tuned"],
            "one job covers every size"
        );
    }

    #[test]
    fn classic_rules_single_job() {
        let t = table(
            16,
            [
                Candidate::DEFAULT,
                cand(Algorithm::Chain, Some(8192), None),
                cand(Algorithm::Binomial, Some(0), None),
            ],
        );
        let text = render(&bcast(&[t]), Format::OmpiRules, &opts(1)).unwrap();
        assert_eq!(
            numbers(&text),
            [
                "1",
                "7",
                "1",
                "16",
                "3",
                "0 0 0 0",
                "65536 2 4 8192",
                "1048576 6 0 0"
            ]
        );
        // Comments never put digits where Open MPI reads numbers.
        assert!(text
            .lines()
            .all(|l| l.starts_with('#') || l.starts_with(char::is_numeric)));
        let v2 = render(
            &bcast(&[table(4, [Candidate::DEFAULT; 3])]),
            Format::OmpiRules,
            &opts(2),
        )
        .unwrap();
        assert!(v2.starts_with("rule-file-version-2\n"));
        // Identical neighbours merge: one rule.
        assert_eq!(numbers(&v2)[5..], ["1", "0 0 0 0"]);
    }

    #[test]
    fn classic_rules_several_jobs_pair_their_blocks() {
        let lin = cand(Algorithm::Linear, None, None);
        let bin = cand(Algorithm::Binary, Some(0), None);
        let text = render(
            &bcast(&[table(4, [lin; 3]), table(8, [bin; 3])]),
            Format::OmpiRules,
            &opts(1),
        )
        .unwrap();
        assert_eq!(
            numbers(&text),
            [
                "1", "7", "4", "4", "1", "0 1 0 0", "5", "1", "0 1 0 0", "8", "1", "0 5 0 0", "9",
                "1", "0 5 0 0"
            ]
        );
    }

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

    #[test]
    fn ompi_json_leaves_default_ranges_to_the_library() {
        let t = table(
            32,
            [
                cand(Algorithm::Knomial, Some(0), Some(4)),
                Candidate::DEFAULT,
                cand(Algorithm::SplitBinary, Some(8192), None),
            ],
        );
        let v: serde_json::Value =
            serde_json::from_str(&render(&bcast(&[t]), Format::OmpiJson, &opts(1)).unwrap())
                .unwrap();
        let comm = &v["collectives"]["bcast"][0];
        assert_eq!(
            (comm["comm_size_min"].clone(), comm["comm_size_max"].clone()),
            (32.into(), 32.into())
        );
        let rules = comm["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["alg"], "knomial");
        assert_eq!(rules[0]["msg_size_max"], 65535);
        assert_eq!(rules[1]["alg"], "split_binary_tree");
        assert_eq!(rules[1]["msg_size_min"], 1048576);
        assert!(rules[1].get("msg_size_max").is_none(), "open-ended");
    }

    #[test]
    fn mpich_json_replaces_only_the_bcast_part_of_the_base_file() {
        let t = table(4, [cand(Algorithm::Binary, Some(0), None); 3]);
        let text = render(
            &bcast(std::slice::from_ref(&t)),
            Format::MpichJson,
            &opts(1),
        )
        .unwrap();
        let pos = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{needle}:\n{text}"))
        };
        // bcast stays first and is ours; barrier follows, its conditions in
        // the base file's order (`<8` before `any`: first true key wins).
        assert!(pos("collective=bcast") < pos("collective=barrier"));
        assert!(pos("algorithm=MPIR_Bcast_intra_tree") < pos("collective=barrier"));
        assert!(!text.contains("MPIR_Bcast_intra_smp"), "{text}");
        assert!(pos("comm_size<8") < pos("\"comm_size=any\": {\n        \"algorithm=A\""));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value.as_object().unwrap().len(), 2);
        // Measured at 4 ranks per node; denser communicators keep MPICH's rule.
        let sizes = &value["collective=bcast"]["comm_type=intra"]["comm_size=any"];
        assert!(sizes["comm_avg_ppn<=4"]
            .to_string()
            .contains("MPIR_Bcast_intra_tree"));
        assert!(sizes["comm_avg_ppn=any"]
            .to_string()
            .contains("MPIR_Bcast_intra_binomial"));
        assert!(pos("comm_avg_ppn<=4") < pos("comm_avg_ppn=any"));

        let none = Options {
            mpich_base: None,
            ..opts(1)
        };
        let err = render(&bcast(std::slice::from_ref(&t)), Format::MpichJson, &none).unwrap_err();
        assert!(err.to_string().contains("--mpich-base"), "{err}");

        let path = std::path::Path::new("b.json");
        let err = mpich_json::Base::parse(path, "{\n \"collective=bcast\": 3}").unwrap_err();
        assert_eq!((err.line, err.file.as_path()), (Some(2), path));
        assert!(mpich_json::Base::parse(path, "{\"a\": {}}").is_err());
    }

    #[test]
    fn mpich_json_keeps_condition_order_and_expands_default() {
        let t = table(
            16,
            [
                Candidate::DEFAULT,
                Candidate::DEFAULT,
                cand(Algorithm::Binary, Some(65536), None),
            ],
        );
        let text = render(&bcast(&[t]), Format::MpichJson, &opts(1)).unwrap();
        // The measured ppn's branch (before MPICH's rule for denser ones).
        let ours = &text[..text.find("comm_avg_ppn=any").unwrap()];
        let keys: Vec<&str> = ours
            .lines()
            .filter_map(|l| l.trim().strip_prefix("\"avg_msg_size"))
            .collect();
        // MPICH's own rule for 16 ranks up to 1 MiB - 1, then ours.
        assert_eq!(
            keys,
            [
                "<=12288\": {",
                "<=524288\": {",
                "<=1048575\": {",
                "=any\": {"
            ]
        );
        assert!(text.find("binomial").unwrap() < text.find("recursive_doubling").unwrap());
        assert!(text.contains("\"chunk_size=65536\": {}"));
        serde_json::from_str::<serde_json::Value>(&text).unwrap();
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

    /// HAN's file routes every collective given, each by its id in
    /// coll/base's order: allreduce 2, bcast 7, reduce 11.
    #[test]
    fn han_rules_route_every_collective() {
        let ring = cand(Algorithm::SegmentedRing, Some(64), None);
        let binomial = cand(Algorithm::Binomial, Some(0), None);
        let sections = vec![
            Section {
                collective: Collective::Reduce,
                tables: vec![table(4, [Candidate::DEFAULT; 3])],
            },
            Section {
                collective: Collective::Bcast,
                tables: vec![table(4, [binomial; 3])],
            },
            Section {
                collective: Collective::Allreduce,
                tables: vec![table(4, [Candidate::DEFAULT, ring, ring])],
            },
        ];
        let text = render(&sections, Format::OmpiHan, &opts(1)).unwrap();
        assert!(
            text.contains("MPI_Allreduce and MPI_Bcast and MPI_Reduce routing"),
            "{text}"
        );
        // Per collective: id, one level (the job's communicator), one
        // configuration from size 1, its rules.
        let expected = [
            "3", // collectives
            "2",
            "1",
            "2",
            "1",
            "1",
            "2",
            "0 han",
            "65536 tuned", // allreduce
            "7",
            "1",
            "2",
            "1",
            "1",
            "1",
            "0 tuned", // bcast
            "11",
            "1",
            "2",
            "1",
            "1",
            "1",
            "0 han", // reduce
        ];
        assert_eq!(numbers(&text), expected);
    }

    /// MPICH's alltoall part: an in-place alltoall keeps MPICH's own
    /// algorithm, a decided modified Bruck is MPICH's Bruck, `default`
    /// MPICH's own rule; pairwise (MPICH pairs by xor) has no equivalent.
    #[test]
    fn mpich_json_alltoall_runs_modified_bruck_as_mpichs_bruck() {
        let bruck = cand(Algorithm::ModifiedBruck, None, None);
        let sections = vec![Section {
            collective: Collective::Alltoall,
            tables: vec![table(16, [bruck, Candidate::DEFAULT, Candidate::DEFAULT])],
        }];
        let text = render(&sections, Format::MpichJson, &opts(1)).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let intra = &json["collective=alltoall"]["comm_type=intra"];
        assert!(
            intra["is_sendbuf_inplace=yes"]
                ["algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace"]
                .is_object(),
            "{text}"
        );
        let sizes = &intra["is_sendbuf_inplace=no"]["comm_size=any"]["comm_avg_ppn<=16"];
        let keys: Vec<&String> = sizes.as_object().unwrap().keys().collect();
        // Bruck up to the next decided size, then MPICH's rule for 16
        // ranks from 64 KiB: scattered to 32 KiB (inside Bruck's range),
        // then pairwise.
        assert_eq!(keys, ["avg_msg_size<=65535", "avg_msg_size=any"], "{text}");
        assert!(sizes["avg_msg_size<=65535"]["algorithm=MPIR_Alltoall_intra_brucks"].is_object());
        assert!(
            sizes["avg_msg_size=any"]["algorithm=MPIR_Alltoall_intra_pairwise"].is_object(),
            "{text}"
        );
        let pairwise = cand(Algorithm::Pairwise, None, None);
        assert!(!mpich_json::has_equivalent(Collective::Alltoall, &pairwise));
        assert!(mpich_json::has_equivalent(Collective::Alltoall, &bruck));
    }

    /// MPICH's algorithms in an MPICH model's decisions go into the file by
    /// MPICH's function names with their parameters, and reading the file
    /// back as MPICH's selection walks it finds each size's decision (and
    /// MPICH's own rule for the denser job the decisions were not made for).
    #[test]
    fn mpich_json_names_a_power_of_two_algorithm_only_on_powers_of_two() {
        use mpich_json::Call;
        let rd = Candidate {
            algorithm: Algorithm::RecursiveDoubling,
            segsize: None,
            fanout: None,
            implementation: Impl::Ompi,
        };
        let noncommutative = Candidate {
            algorithm: Algorithm::Noncommutative,
            implementation: Impl::Mpich,
            ..rd
        };
        let sections = [
            Section {
                collective: Collective::Allgather,
                tables: vec![table(8, [rd; 3])],
            },
            Section {
                collective: Collective::ReduceScatterBlock,
                tables: vec![table(8, [noncommutative; 3])],
            },
        ];
        let text = render(&sections, Format::MpichJson, &opts(1)).unwrap();
        let file = mpich_json::Base::parse(std::path::Path::new("x.json"), &text).unwrap();
        let function = |collective, procs| {
            let call = Call {
                collective,
                procs,
                nodes: 1,
                node_consecutive: true,
                msg_bytes: 1024,
            };
            file.select(&call).unwrap().function
        };
        // The job's 8 ranks and a sub-communicator of 4 run what was
        // decided; one of 5 or 7 in the same comm_size range what MPICH
        // runs there (the noncommutative reduce-scatter would fail an
        // assertion).
        for p in [4, 8] {
            assert_eq!(
                function(Collective::Allgather, p),
                "MPIR_Allgather_intra_recursive_doubling"
            );
            assert_eq!(
                function(Collective::ReduceScatterBlock, p),
                "MPIR_Reduce_scatter_block_intra_noncommutative"
            );
        }
        for p in [5, 7] {
            assert_eq!(
                function(Collective::Allgather, p),
                "MPIR_Allgather_intra_brucks"
            );
            assert_eq!(
                function(Collective::ReduceScatterBlock, p),
                "MPIR_Reduce_scatter_block_intra_recursive_halving"
            );
        }
    }

    #[test]
    fn mpich_json_of_mpich_algorithms_reads_back_as_decided() {
        use mpich_json::{Call, Selected};
        let mpich = |algorithm| Candidate {
            algorithm,
            segsize: None,
            fanout: None,
            implementation: Impl::Mpich,
        };
        let t = table(
            4,
            [
                mpich(Algorithm::Binomial),
                mpich(Algorithm::Tree),
                mpich(Algorithm::ScatterRingAllgather),
            ],
        );
        let text = render(&bcast(&[t]), Format::MpichJson, &opts(1)).unwrap();
        assert!(
            text.contains("\"algorithm=MPIR_Bcast_intra_tree\": {\n"),
            "{text}"
        );
        assert!(text.contains("\"k=2\": {}"), "{text}");
        // A radix measured (the fan-out) is the file's `k`.
        let radix4 = Candidate {
            fanout: Some(4),
            ..mpich(Algorithm::Tree)
        };
        let t4 = table(4, [radix4; 3]);
        let text4 = render(&bcast(&[t4]), Format::MpichJson, &opts(1)).unwrap();
        assert!(
            text4.contains("\"k=4\": {}") && !text4.contains("\"k=2\""),
            "{text4}"
        );
        // Open MPI's formats take none of MPICH's algorithms.
        for format in [Format::OmpiRules, Format::OmpiHan, Format::OmpiJson] {
            let t4 = table(4, [radix4; 3]);
            let err = render(&bcast(&[t4]), format, &opts(1)).unwrap_err();
            assert!(err.to_string().contains("measured under MPICH"), "{err}");
        }
        // A chunk measured (the segment size) is the file's `chunk_size`.
        let chunk = Candidate {
            segsize: Some(65536),
            ..mpich(Algorithm::PipelinedTree)
        };
        let t5 = table(4, [chunk; 3]);
        let text5 = render(&bcast(&[t5]), Format::MpichJson, &opts(1)).unwrap();
        assert!(text5.contains("\"chunk_size=65536\": {}"), "{text5}");
        let file = mpich_json::Base::parse(std::path::Path::new("x.json"), &text).unwrap();
        let call = |procs, nodes, msg_bytes| Call {
            collective: Collective::Bcast,
            procs,
            nodes,
            node_consecutive: true,
            msg_bytes,
        };
        let function = |c: Call| file.select(&c).map(|s: Selected| s.function);
        assert_eq!(
            function(call(4, 1, 1)).unwrap(),
            "MPIR_Bcast_intra_binomial"
        );
        assert_eq!(
            function(call(4, 1, 65536)).unwrap(),
            "MPIR_Bcast_intra_tree"
        );
        let tree = file.select(&call(4, 1, 65536)).unwrap();
        assert!(tree.params.contains(&("tree_type".into(), "kary".into())));
        assert_eq!(
            function(call(4, 1, 4 << 20)).unwrap(),
            "MPIR_Bcast_intra_scatter_ring_allgather"
        );
        // 8 ranks on one node: denser than measured, MPICH's own rule
        // (binomial below 12 KiB on 8 ranks).
        assert_eq!(
            function(call(8, 1, 1)).unwrap(),
            "MPIR_Bcast_intra_binomial"
        );
        // A collective the file lacks, and a condition MPICH does not have.
        let reduce = Call {
            collective: Collective::Reduce,
            ..call(4, 1, 4)
        };
        assert!(file
            .select(&reduce)
            .unwrap_err()
            .contains("no \"collective=reduce\""));
        let odd = text.replace("comm_avg_ppn<=4", "comm_avg_ppn>=4");
        let odd = mpich_json::Base::parse(std::path::Path::new("x.json"), &odd).unwrap();
        assert!(odd
            .select(&call(4, 1, 1))
            .unwrap_err()
            .contains("comm_avg_ppn>=4"));
    }
}
