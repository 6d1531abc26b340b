//! The export's tables decide at 1 B, 64 KiB and 1 MiB.

use super::*;
use crate::data::{Algorithm, Candidate, Collective};
use crate::export::fixtures::{cand, table};
use crate::export::{self, Format, Section};

fn candidate(algorithm: Algorithm, segsize: u64) -> Candidate {
    cand(algorithm, Some(segsize), None)
}

fn exported(format: Format, version: u8) -> String {
    let pipeline = candidate(Algorithm::Pipeline, 1024);
    let ring = candidate(Algorithm::Ring, 0);
    let sections = [
        Section {
            collective: Collective::Bcast,
            tables: vec![
                table(2, [Candidate::DEFAULT, pipeline, pipeline]),
                table(
                    4,
                    [
                        pipeline,
                        Candidate::DEFAULT,
                        candidate(Algorithm::Binomial, 0),
                    ],
                ),
            ],
        },
        Section {
            collective: Collective::Allreduce,
            tables: vec![
                table(2, [ring, ring, Candidate::DEFAULT]),
                table(4, [Candidate::DEFAULT; 3]),
            ],
        },
    ];
    let opts = export::ExportOptions {
        rules_version: version,
        origin: "test".into(),
        system: crate::data::System::default(),
        mpich_base: None,
    };
    export::render(&sections, format, &opts).unwrap()
}

/// Our own rules files read as Open MPI reads them decide what we wrote,
/// for every communicator size the lookup can meet.
#[test]
fn our_rules_files_read_back_as_written() {
    for version in [1, 2] {
        let text = exported(Format::OmpiRules, version);
        let rules = read_tuned(text.as_bytes(), true).unwrap();
        assert_eq!(rules.version, u32::from(version));
        let alg = |id, procs, m| rules.lookup(id, procs, m).map(|r| (r.alg, r.segsize));
        // bcast (7): 2 ranks default below 64 KiB, pipeline with 1 KiB
        // segments from there; 4 ranks pipeline first.
        assert_eq!(alg(7, 2, 1), Some((0, 0)));
        assert_eq!(alg(7, 2, 65536), Some((3, 1024)));
        assert_eq!(alg(7, 4, 1), Some((3, 1024)));
        assert_eq!(alg(7, 4, 65536), Some((0, 0)));
        assert_eq!(alg(7, 4, 4 << 20), Some((6, 0)));
        // Smaller communicators take the first block, larger the last.
        assert_eq!(alg(7, 1, 65536), Some((3, 1024)));
        assert_eq!(alg(7, 64, 1024), Some((3, 1024)));
        // allreduce (2): ring (4) for 2 ranks up to 1 MiB.
        assert_eq!(alg(2, 2, 4), Some((4, 0)));
        assert_eq!(alg(2, 2, 1 << 20), Some((0, 0)));
        assert_eq!(alg(2, 4, 1 << 20), Some((0, 0)));
        assert_eq!(rules.lookup(11, 2, 4), None, "no reduce section");
        assert!(rules.problems(4).is_empty(), "{:?}", rules.problems(4));
    }
}

#[test]
fn an_old_reader_refuses_the_version_2_header_at_its_first_line() {
    let text = exported(Format::OmpiRules, 2);
    let e = read_tuned(text.as_bytes(), false).unwrap_err();
    assert_eq!(
        e.pos,
        Pos {
            line: 1,
            column: 18
        }
    );
    assert!(e.message.contains("found -2"), "{e}");
    assert!(e.message.contains("--rules-version 1"), "{e}");
    assert!(read_tuned(exported(Format::OmpiRules, 1).as_bytes(), false).is_ok());
}

/// Where Open MPI's reader gives up, with the file's own line and column.
#[test]
fn malformed_files_are_refused_where_open_mpi_gives_up() {
    let cases: [(&str, Pos, &str); 6] = [
        (
            "",
            Pos { line: 1, column: 1 },
            "the number of collectives, found the end",
        ),
        (
            "1\n7 # bcast\n1\n4\n2\n0 0 0 0\n65536 3 0",
            Pos {
                line: 7,
                column: 10,
            },
            "the segment size of rule 2 of communicator block 1 of bcast, found the end",
        ),
        (
            "1\n7\n1\n4\n1\n-1 0 0 0\n",
            Pos { line: 6, column: 1 },
            "message size of rule 1",
        ),
        (
            "1\n7\n1\n4\n1\n8 6 0 0\n",
            Pos { line: 6, column: 1 },
            "starts at 8 bytes",
        ),
        ("1\n22\n", Pos { line: 2, column: 1 }, "collective id 22"),
        ("23\n", Pos { line: 1, column: 1 }, "23 collectives"),
    ];
    for (text, pos, message) in cases {
        let e = read_tuned(text.as_bytes(), true).unwrap_err();
        assert_eq!(e.pos, pos, "{text:?}: {e}");
        assert!(e.message.contains(message), "{text:?}: {e}");
    }
}

/// Words between numbers are skipped as Open MPI skips them; a leading 0
/// is octal; a collective given twice keeps its last section.
#[test]
fn the_reader_is_as_lenient_as_open_mpis() {
    let text = "two collectives: 2\n7 1 4 1 0 6 0 0\nbcast again: 7 1 4 1 0 010 0 0x10\n";
    let rules = read_tuned(text.as_bytes(), true).unwrap();
    assert_eq!(rules.sections.len(), 1);
    let r = rules.lookup(7, 4, 0).unwrap();
    assert_eq!((r.alg, r.segsize), (8, 16));
}

#[test]
fn rules_that_read_but_cannot_work_are_named() {
    let text = "1\n7\n2\n8\n2\n0 99 0 0\n1024 6 0 0\n4\n1\n0 6 0 0\n";
    let rules = read_tuned(text.as_bytes(), true).unwrap();
    let problems = rules.problems(4);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].pos, Pos { line: 6, column: 1 });
    assert!(
        problems[0].message.contains("bcast algorithm 99"),
        "{problems:?}"
    );
    assert!(problems[1]
        .message
        .contains("communicator size 4 comes after 8"));
}

#[test]
fn our_han_files_read_back_as_written() {
    let text = exported(Format::OmpiHan, 1);
    let rules = read_han(text.as_bytes()).unwrap();
    let component = |id, procs, m| rules.lookup(id, procs, m).map(|r| r.component.as_str());
    assert_eq!(component(7, 1, 65536), Some("han"), "below every job");
    assert_eq!(component(7, 2, 1024), Some("han"));
    assert_eq!(component(7, 2, 65536), Some("tuned"));
    assert_eq!(component(7, 4, 1), Some("tuned"));
    assert_eq!(component(7, 4, 65536), Some("han"));
    assert_eq!(component(2, 2, 1024), Some("tuned"));
    assert_eq!(component(2, 4, 1024), Some("han"));
    assert_eq!(component(11, 4, 1024), None);
}

#[test]
fn han_refuses_what_its_reader_refuses() {
    let cases: [(&str, &str); 5] = [
        ("0\n", "0 collectives"),
        (
            "1\nbcast 1 global_communicator 1 2 1 0 tuned\n",
            "the first must be 1",
        ),
        (
            "1\nbcast 1 global_communicator 1 1 1 4 tuned\n",
            "must be 0 or 1",
        ),
        (
            "1\nbcast 1 global_communicator 1 1 1 0 fast\n",
            "component \"fast\"",
        ),
        ("1\nbroadcast 1\n", "found \"broadcast\""),
    ];
    for (text, message) in cases {
        let e = read_han(text.as_bytes()).unwrap_err();
        assert!(e.message.contains(message), "{text:?}: {e}");
    }
    let ok = "1\n7 # bcast\n1\n2\n1\n1\n2\n0 han @1 [ 4 8 ]\n# big\n65536 tuned\n";
    let rules = read_han(ok.as_bytes()).unwrap();
    assert_eq!(rules.lookup(7, 8, 1 << 20).unwrap().component, "tuned");
}

#[test]
fn version_headers_by_release() {
    assert!(!reads_version_header(4, 1, 4));
    assert!(reads_version_header(4, 1, 8));
    assert!(!reads_version_header(5, 0, 6));
    assert!(reads_version_header(5, 0, 9));
    assert!(reads_version_header(6, 0, 0));
}
