//! `--help` text built from the descriptions, so that the help names every
//! collective the tool knows and each one's defaults.

use super::Algorithm;
use super::Collective;

/// `--help` text: `what`, then each collective's default from its
/// description, so that the help names every collective the tool knows.
pub fn per_collective(what: &str, default: fn(Collective) -> String) -> String {
    listed(what, "default", default)
}

/// `--help` text: `what`, then `label` and each collective's `each`.
pub fn listed(what: &str, label: &str, each: fn(Collective) -> String) -> String {
    let all: Vec<String> = Collective::ALL
        .iter()
        .map(|&c| format!("{} {}", c.name(), each(c)))
        .collect();
    format!("{what} [{label}: {}]", all.join("; "))
}

/// `--help` text: `what`, then the name of every collective the tool
/// knows.
pub fn naming_collectives(what: &str) -> String {
    let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
    format!("{what} [collectives: {}]", names.join(", "))
}

/// The algorithms measured by default, comma separated (after `default`
/// where it is named).
pub fn measured_by_default(c: Collective, with_default: bool) -> String {
    let measured = c.describe().measured_by_default.iter();
    let names: Vec<&str> = with_default
        .then_some(Algorithm::Default)
        .iter()
        .chain(measured)
        .map(|a| a.name())
        .collect();
    names.join(",")
}
