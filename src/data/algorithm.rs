//! Broadcast algorithm names: Open MPI's `coll_tuned_bcast_algorithm` ids 0–9
//! with their spellings, plus the project's own algorithms, in one place.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A broadcast algorithm. The first ten are Open MPI's (ids 0–9); the rest
/// exist only as this project's implementations (`impl=own`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Algorithm {
    /// Leave the choice to the library (id 0).
    Default,
    Linear,
    /// `fanout` chains hanging off the root.
    Chain,
    /// One chain (Open MPI's `pipeline`; the model paper's "chain").
    Pipeline,
    SplitBinary,
    Binary,
    Binomial,
    Knomial,
    ScatterAllgather,
    ScatterAllgatherRing,
    /// Blocking, unsegmented balanced binomial tree (Cordeiro & Zola).
    Sbbt,
    /// Arrival-aware: the root broadcasts down a pipelined chain to each
    /// group of receivers that announced their arrival (Patarasuk & Yuan's
    /// arrival_b).
    Arrival,
    /// Open MPI's coll/tuned with its own fixed decision (id 0 there), on a
    /// communicator where components that outrank tuned are left out: the
    /// alternative to coll/han where HAN serves `default` (Open MPI 5
    /// across nodes). Elsewhere the same broadcast as `default`.
    Tuned,
}

impl Algorithm {
    /// Open MPI's algorithms, indexed by their id.
    pub const OMPI: [Algorithm; 10] = [
        Algorithm::Default,
        Algorithm::Linear,
        Algorithm::Chain,
        Algorithm::Pipeline,
        Algorithm::SplitBinary,
        Algorithm::Binary,
        Algorithm::Binomial,
        Algorithm::Knomial,
        Algorithm::ScatterAllgather,
        Algorithm::ScatterAllgatherRing,
    ];
    /// Every algorithm this tool knows: Open MPI's, then our own, then
    /// tuned's own decision.
    pub const ALL: [Algorithm; 13] = {
        let mut all = [Algorithm::Sbbt; 13];
        let mut i = 0;
        while i < Self::OMPI.len() {
            all[i] = Self::OMPI[i];
            i += 1;
        }
        all[11] = Algorithm::Arrival;
        all[12] = Algorithm::Tuned;
        all
    };

    /// The canonical name used in CSV files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Default => "default",
            Algorithm::Linear => "linear",
            Algorithm::Chain => "chain",
            Algorithm::Pipeline => "pipeline",
            Algorithm::SplitBinary => "split_binary",
            Algorithm::Binary => "binary",
            Algorithm::Binomial => "binomial",
            Algorithm::Knomial => "knomial",
            Algorithm::ScatterAllgather => "scatter_allgather",
            Algorithm::ScatterAllgatherRing => "scatter_allgather_ring",
            Algorithm::Sbbt => "sbbt",
            Algorithm::Arrival => "arrival",
            Algorithm::Tuned => "tuned",
        }
    }

    /// Open MPI's `coll_tuned_bcast_algorithm` id (0 for tuned's own
    /// decision); `None` for our own.
    pub fn ompi_id(self) -> Option<u8> {
        match self {
            Algorithm::Tuned => Some(0),
            _ => Self::OMPI.iter().position(|a| *a == self).map(|i| i as u8),
        }
    }

    /// Every accepted spelling, for error messages.
    pub fn accepted_names() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|a| a.name()).collect();
        format!(
            "{} (or basic_linear, split_binary_tree, binary_tree, or an id 0-9)",
            names.join(", ")
        )
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a canonical name, an Open MPI spelling or a numeric id (case-insensitive).
impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if let Ok(id) = lower.parse::<usize>() {
            return Self::OMPI
                .get(id)
                .copied()
                .ok_or_else(|| format!("algorithm id {id} is not one of 0-9"));
        }
        let alias = match lower.as_str() {
            "ignore" => Some(Algorithm::Default),
            "basic_linear" => Some(Algorithm::Linear),
            "split_binary_tree" => Some(Algorithm::SplitBinary),
            "binary_tree" => Some(Algorithm::Binary),
            _ => None,
        };
        alias
            .or_else(|| Self::ALL.iter().copied().find(|a| a.name() == lower))
            .ok_or_else(|| format!("unknown algorithm {s:?}"))
    }
}

impl From<Algorithm> for String {
    fn from(a: Algorithm) -> String {
        a.name().to_string()
    }
}

impl TryFrom<String> for Algorithm {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

/// Who executed a measured broadcast.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Impl {
    /// The MPI library: a forced algorithm or its own default choice.
    #[default]
    Ompi,
    /// This project's re-implementation over point-to-point messages.
    Own,
}

impl Impl {
    pub fn name(self) -> &'static str {
        match self {
            Impl::Ompi => "ompi",
            Impl::Own => "own",
        }
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Impl {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ompi" => Ok(Impl::Ompi),
            "own" => Ok(Impl::Own),
            _ => Err(format!("unknown impl {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_names_and_aliases_round_trip() {
        for (id, a) in Algorithm::OMPI.iter().enumerate() {
            assert_eq!(a.ompi_id(), Some(id as u8));
            assert_eq!(id.to_string().parse::<Algorithm>(), Ok(*a));
            assert_eq!(a.name().parse::<Algorithm>(), Ok(*a));
            assert_eq!(a.name().to_uppercase().parse::<Algorithm>(), Ok(*a));
        }
        assert_eq!("basic_linear".parse(), Ok(Algorithm::Linear));
        assert_eq!("split_binary_tree".parse(), Ok(Algorithm::SplitBinary));
        assert_eq!("binary_tree".parse(), Ok(Algorithm::Binary));
        assert!("10".parse::<Algorithm>().is_err());
        assert_eq!("sbbt".parse(), Ok(Algorithm::Sbbt));
        assert_eq!(Algorithm::Sbbt.ompi_id(), None);
        assert_eq!("tuned".parse(), Ok(Algorithm::Tuned));
        assert_eq!(Algorithm::Tuned.ompi_id(), Some(0), "tuned's own decision");
        assert!("ring".parse::<Algorithm>().is_err());
    }

    #[test]
    fn impl_parses_both_spellings_only() {
        assert_eq!("OWN".parse(), Ok(Impl::Own));
        assert_eq!(" ompi ".parse(), Ok(Impl::Ompi));
        assert!("mpich".parse::<Impl>().is_err());
    }
}
