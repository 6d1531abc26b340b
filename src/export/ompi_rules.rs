//! Open MPI's classic rules file (coll/tuned dynamic rules): one section
//! per collective, keyed by coll/tuned's collective id; message sizes are
//! bytes of the whole buffer (for reduce and allreduce: count × type size,
//! as `coll_tuned_decision_dynamic.c` computes them).
//!
//! Numbers are never zero-padded (Open MPI reads a leading 0 as octal). Each
//! job size P gets two identical comm-size blocks keyed P and P + 1: Open MPI
//! 4.1/5.0 use the last block whose key is <= the communicator size, while
//! 6.0 reads block i as sizes [key(i-1), key(i) - 1]; with the pair, a
//! communicator of exactly P ranks gets P's rules in every version. With one
//! job size the file is portable for any communicator size.

use super::{changes_tuned, ompi_rule, radix_notes, ExportOptions, Section};
use crate::data::Collective;
use crate::error::{Error, Result};
use crate::select::decision::DecisionTable;
use crate::units::format_bytes;
use std::fmt::Write;

pub fn render(sections: &[Section], opts: &ExportOptions) -> Result<String> {
    if !matches!(opts.rules_version, 1 | 2) {
        return Err(Error::Usage(format!(
            "--rules-version {} is not 1 or 2",
            opts.rules_version
        )));
    }
    let mut s = String::new();
    if opts.rules_version == 2 {
        // Must be the very first bytes; Open MPI before 4.1.8 / 5.0.7 rejects it.
        s.push_str("rule-file-version-2\n");
    }
    let (mut sections, left): (Vec<&Section>, Vec<&Section>) =
        sections.iter().partition(|s| changes_tuned(s));
    sections.sort_by_key(|s| coll_id(s.collective));
    let functions: Vec<&str> = sections.iter().map(|s| s.collective.function()).collect();
    let _ = match functions.is_empty() {
        true => writeln!(s, "# No rules for Open MPI coll/tuned, written by collsel"),
        false => writeln!(
            s,
            "# {} rules for Open MPI coll/tuned, written by collsel",
            functions.join(" and ")
        ),
    };
    let _ = writeln!(s, "# {}", opts.origin);
    let _ = writeln!(s, "# for {} (measured there)", opts.system);
    let _ = writeln!(
        s,
        "# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename THIS_FILE ..."
    );
    for section in &sections {
        let tables = &section.tables;
        let procs: Vec<String> = tables.iter().map(|t| t.job.procs.to_string()).collect();
        let name = section.collective.function();
        if tables.len() == 1 {
            let _ = writeln!(
                s,
                "# {name}: decided for {} ranks; one comm-size block, so every communicator uses \
                 these rules.",
                procs[0]
            );
        } else {
            let _ = writeln!(
                s,
                "# {name}: decided for communicators of exactly {} ranks (each as two identical \
                 blocks, itself and the size above where that is not decided too, so that",
                procs.join(", ")
            );
            let _ = writeln!(
                s,
                "# every Open MPI version picks them). Other sizes get the nearest size below in \
                 4.1/5.0"
            );
            let _ = writeln!(s, "# and the nearest size above in 6.0 and later.");
        }
    }
    let _ = writeln!(
        s,
        "# Algorithm 0 leaves the choice to Open MPI's fixed decision."
    );
    if !left.is_empty() {
        let mut names: Vec<&str> = left.iter().map(|s| s.collective.function()).collect();
        names.sort_unstable();
        let _ = writeln!(
            s,
            "# Left out, as Open MPI's fixed decision serves them at every size decided: {} \
             (a collective in this file costs each of its calls a rules lookup).",
            names.join(", ")
        );
    }
    for note in radix_notes(sections.iter().copied()) {
        let _ = writeln!(s, "# NOTE: {note}");
    }
    // Leaving a collective to the library beyond the trained sizes is a
    // proposal too.
    let extrapolated = sections
        .iter()
        .chain(&left)
        .flat_map(|x| &x.tables)
        .any(|t| t.decisions.iter().any(|d| d.extrapolated));
    if extrapolated {
        let _ = writeln!(
            s,
            "# NOTE: rules marked EXTRAPOLATED, and any collective left out, decide job or \
             message sizes beyond those the model was trained on: a proposal, not a \
             measurement. Confirm them in such a job with `collsel verify` (under mpirun with \
             this file) before relying on them."
        );
    }
    let _ = writeln!(s, "{} # collectives in this file", sections.len());
    for section in &sections {
        let tables = &section.tables;
        let _ = writeln!(
            s,
            "{} # collective id: {}",
            coll_id(section.collective),
            section.collective.name()
        );
        // Each size as itself and the size above, unless that one is
        // decided too (consecutive sizes: one block each).
        let keys = |p: u32| -> Vec<u32> {
            let taken = tables.iter().any(|t| t.job.procs == p + 1);
            match tables.len() == 1 || taken {
                true => vec![p],
                false => vec![p, p + 1],
            }
        };
        let blocks: usize = tables.iter().map(|t| keys(t.job.procs).len()).sum();
        let _ = writeln!(s, "{blocks} # comm-size blocks");
        for t in tables {
            for key in keys(t.job.procs) {
                let rules = rule_lines(section.collective, t, key)?;
                let _ = writeln!(s, "{key} # comm size");
                let _ = writeln!(s, "{} # message-size rules", rules.len());
                for line in &rules {
                    let _ = writeln!(s, "{line}");
                }
            }
        }
    }
    Ok(s)
}

/// The message size coll/tuned looks rules up by
/// (`coll_tuned_decision_dynamic.c`, 4.1 to 6.0) for a message size of
/// `msg_bytes` on `comm_size` ranks: the type size times the count, and
/// for allgather, alltoall, gather, scatter and both reduce-scatters times
/// the ranks too (all the blocks; reduce_scatter sums the counts).
pub fn tuned_bytes(collective: Collective, comm_size: u32, msg_bytes: u64) -> u64 {
    match collective.describe().semantics.blocks {
        true => u64::from(comm_size) * msg_bytes,
        false => msg_bytes,
    }
}

/// coll/tuned's id of a collective (`COLLTYPE_T` in Open MPI's
/// `coll_base_functions.h`).
pub fn coll_id(c: Collective) -> u8 {
    c.describe().ompi.coll_id
}

/// `MSGSIZE ALG FANINOUT SEGSIZE # comment` for a communicator of
/// `comm_size` ranks, identical neighbours merged.
/// A rule whose sizes reach beyond the trained ones says so.
fn rule_lines(collective: Collective, t: &DecisionTable, comm_size: u32) -> Result<Vec<String>> {
    /// One rule: from which size, (algorithm, fan-out, segment size), the
    /// candidate's name, and whether a size it decides was extrapolated.
    struct Rule {
        from: u64,
        rule: (u8, u32, u64),
        what: String,
        beyond: bool,
    }
    let mut out: Vec<Rule> = Vec::new();
    for (i, range) in t.ranges().iter().enumerate() {
        let from = if i == 0 { 0 } else { range.from_bytes };
        let rule = ompi_rule(collective, &range.candidate)?;
        let beyond = t.decisions[range.first..=range.last]
            .iter()
            .any(|d| d.extrapolated);
        match out.last_mut() {
            Some(last) if last.rule == rule => last.beyond |= beyond,
            _ => out.push(Rule {
                from,
                rule,
                what: range.candidate.to_string(),
                beyond,
            }),
        }
    }
    Ok(out
        .into_iter()
        .map(
            |Rule {
                 from,
                 rule: (alg, fan, seg),
                 what,
                 beyond,
             }| {
                let bytes = tuned_bytes(collective, comm_size, from);
                let all = match bytes == from {
                    true => String::new(),
                    false => format!(" ({} in all)", format_bytes(bytes)),
                };
                let mark = match beyond {
                    true => " EXTRAPOLATED",
                    false => "",
                };
                format!(
                    "{bytes} {alg} {fan} {seg} # from {}{all}: {what}{mark}",
                    format_bytes(from)
                )
            },
        )
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::export::fixtures::*;
    use crate::export::*;

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
        let lin = cand(Algorithm::Linear, None, None);
        let v2 = render(&bcast(&[table(4, [lin; 3])]), Format::OmpiRules, &opts(2)).unwrap();
        assert!(v2.starts_with("rule-file-version-2\n"));
        // Identical neighbours merge: one rule.
        assert_eq!(numbers(&v2)[5..], ["1", "0 1 0 0"]);
    }

    #[test]
    fn collectives_left_to_the_library_are_left_out() {
        let lin = cand(Algorithm::Linear, None, None);
        let mut sections = bcast(&[table(4, [Candidate::DEFAULT; 3])]);
        let text = render(&sections, Format::OmpiRules, &opts(1)).unwrap();
        assert_eq!(numbers(&text), ["0"], "{text}");
        assert!(text.contains(
            "Left out, as Open MPI's fixed decision serves them at every \
             size decided: MPI_Bcast"
        ));
        sections.push(Section {
            collective: Collective::Reduce,
            tables: vec![table(4, [Candidate::DEFAULT, lin, Candidate::DEFAULT])],
        });
        let text = render(&sections, Format::OmpiRules, &opts(1)).unwrap();
        assert_eq!(numbers(&text)[..2], ["1", "11"], "{text}");
        assert!(text.starts_with("# MPI_Reduce rules"), "{text}");
        let json = render(&sections, Format::OmpiJson, &opts(1)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let names: Vec<&String> = v["collectives"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["reduce"]);
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
}
