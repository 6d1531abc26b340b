//! Open MPI 5's coll/han dynamic rules file: which component serves
//! `MPI_Bcast`, `MPI_Reduce` and `MPI_Allreduce` on the job's communicator.
//!
//! From Open MPI 5.0 coll/han serves these on every communicator that spans
//! nodes, and coll/tuned's rules file then reaches only HAN's
//! sub-communicators. HAN reads a file of its own (collective, topological
//! level, configuration size, message size → component by name); at the
//! level of the user's communicator it can hand the call to `tuned`, whose
//! rules file then decides the algorithm. So each size where a tuned
//! algorithm was chosen goes to `tuned`, and each size where `default`
//! was goes to `han`, which keeps HAN's own algorithm. The format, as Open
//! MPI 5.0's coll_han_dynamic_file.h describes it: nested counted lists,
//! collectives by coll/base's id (as in tuned's file); configuration and
//! message sizes (bytes of the whole buffer, count × type size for the
//! reductions) are lower bounds, ascending, and the first of each must be
//! 1 and 0 (HAN's reader refuses the file otherwise).

use super::{ExportOptions, Section};
use crate::select::decision::DecisionTable;
use crate::units::format_bytes;
use std::fmt::Write;

/// HAN's level of the user's communicator (`GLOBAL_COMMUNICATOR`).
const GLOBAL_COMMUNICATOR: u8 = 2;

/// The MCA variables that make Open MPI 5 read both files.
fn variables(han_file: &str, tuned_file: &str) -> String {
    format!(
        "--mca coll_han_use_dynamic_file_rules 1 --mca coll_han_dynamic_rules_filename {han_file} \
         --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename {tuned_file}"
    )
}

pub fn render(sections: &[Section], opts: &ExportOptions) -> String {
    // HAN's reader refuses a whole file naming a collective HAN lacks
    // (alltoall in 5.0): those stay with tuned's file alone.
    let (mut sections, without): (Vec<&Section>, Vec<&Section>) = sections
        .iter()
        .partition(|s| s.collective.describe().ompi.han);
    sections.sort_by_key(|s| super::ompi_rules::coll_id(s.collective));
    let functions: Vec<&str> = sections.iter().map(|s| s.collective.function()).collect();
    let mut s = String::new();
    for section in without {
        let _ = writeln!(
            s,
            "# {} is not in this file: coll/han does not serve it (tuned's rules do)",
            section.collective.function()
        );
    }
    let _ = writeln!(
        s,
        "# {} routing for Open MPI 5 coll/han, written by collsel",
        functions.join(" and ")
    );
    let _ = writeln!(s, "# {}", opts.origin);
    let _ = writeln!(s, "# for {} (measured there)", opts.system);
    let _ = writeln!(
        s,
        "# Sends each call on the job's communicator to coll/tuned where a tuned algorithm was\n\
         # chosen (its rules: the file of `predict --format ompi-rules` for the same jobs) and\n\
         # leaves it to coll/han where `default` was. Use both files:\n\
         # mpirun {} ...",
        variables("THIS_FILE", "TUNED_RULES_FILE")
    );
    let _ = writeln!(s, "{} # collectives in this file", sections.len());
    for section in sections {
        let id = super::ompi_rules::coll_id(section.collective);
        let name = section.collective.name();
        let _ = writeln!(s, "{id} # collective id: {name}");
        collective(&mut s, &section.tables);
    }
    s
}

/// One collective's levels, configurations and rules.
fn collective(s: &mut String, tables: &[DecisionTable]) {
    // Configuration sizes are lower bounds: each job size P starts a
    // configuration, and P + 1 hands the sizes above it back to HAN
    // unless the next job starts there; a configuration that routes as
    // the one before it is left out. One job covers every size.
    let mut jobs: Vec<&DecisionTable> = tables.iter().collect();
    jobs.sort_by_key(|t| t.job.procs);
    jobs.dedup_by_key(|t| t.job.procs);
    let han = || vec![(0, "han", "HAN's own".to_string())];
    let mut configurations: Vec<(u32, Vec<Rule>)> = Vec::new();
    for (i, t) in jobs.iter().enumerate() {
        let procs = t.job.procs;
        let from = if jobs.len() == 1 { 1 } else { procs };
        configurations.push((from, rules(t)));
        let next = jobs.get(i + 1).map(|n| n.job.procs);
        if jobs.len() > 1 && next != Some(procs + 1) {
            configurations.push((procs + 1, han()));
        }
    }
    // HAN rejects a file whose first configuration starts above size 1
    // (its reader's check; the whole file is then ignored without a
    // word): communicators smaller than every job stay with HAN.
    if configurations.first().is_some_and(|(from, _)| *from > 1) {
        configurations.insert(0, (1, han()));
    }
    let routes = |r: &[Rule]| r.iter().map(|(m, c, _)| (*m, *c)).collect::<Vec<_>>();
    configurations.dedup_by(|b, a| routes(&a.1) == routes(&b.1));
    let _ = writeln!(s, "1 # topological levels");
    let _ = writeln!(s, "{GLOBAL_COMMUNICATOR} # level: the job's communicator");
    let _ = writeln!(s, "{} # configurations", configurations.len());
    for (from, rules) in configurations {
        let _ = writeln!(s, "{from} # from communicator size");
        let _ = writeln!(s, "{} # message-size rules", rules.len());
        for (bytes, component, what) in rules {
            let _ = writeln!(
                s,
                "{bytes} {component} # from {}: {what}",
                format_bytes(bytes)
            );
        }
    }
}

/// (first message size, component, what was decided).
type Rule = (u64, &'static str, String);

/// The component of each run of sizes, from 0 B: `han` where `default` was
/// decided, `tuned` elsewhere.
fn rules(t: &DecisionTable) -> Vec<Rule> {
    let mut out: Vec<Rule> = Vec::new();
    for (from, c) in t.rules() {
        let component = if c.is_default() { "han" } else { "tuned" };
        if out.last().is_none_or(|(_, last, _)| *last != component) {
            out.push((from, component, c.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::*;
    use crate::export::*;

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
}
