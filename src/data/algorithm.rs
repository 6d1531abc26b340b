//! Collectives and their algorithms: Open MPI's `coll_tuned_<collective>_algorithm`
//! ids per collective with their spellings, plus the project's own
//! algorithms, in one place.

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
    /// Reduce: a binary tree combining in rank order (for operations
    /// that do not commute).
    InOrderBinary,
    /// Reduce and allreduce: reduce-scatter by recursive halving, then
    /// gather (reduce) or allgather (allreduce).
    Rabenseifner,
    /// Allreduce: a reduce, then a broadcast.
    Nonoverlapping,
    /// Allreduce: recursive doubling.
    RecursiveDoubling,
    /// Allreduce: a ring reduce-scatter then allgather.
    Ring,
    /// Allreduce: the ring, segmented.
    SegmentedRing,
    /// Allreduce: an allgather of every vector, then a local reduction.
    AllgatherReduce,
}

impl Algorithm {
    /// Open MPI's broadcast algorithms, indexed by their id.
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
    /// Every algorithm this tool knows: Open MPI's broadcasts, then our
    /// own, tuned's own decision, and those of the other collectives.
    pub const ALL: [Algorithm; 20] = {
        let mut all = [Algorithm::Sbbt; 20];
        let mut i = 0;
        while i < Self::OMPI.len() {
            all[i] = Self::OMPI[i];
            i += 1;
        }
        all[11] = Algorithm::Arrival;
        all[12] = Algorithm::Tuned;
        all[13] = Algorithm::InOrderBinary;
        all[14] = Algorithm::Rabenseifner;
        all[15] = Algorithm::Nonoverlapping;
        all[16] = Algorithm::RecursiveDoubling;
        all[17] = Algorithm::Ring;
        all[18] = Algorithm::SegmentedRing;
        all[19] = Algorithm::AllgatherReduce;
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
            Algorithm::InOrderBinary => "in-order_binary",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::Nonoverlapping => "nonoverlapping",
            Algorithm::RecursiveDoubling => "recursive_doubling",
            Algorithm::Ring => "ring",
            Algorithm::SegmentedRing => "segmented_ring",
            Algorithm::AllgatherReduce => "allgather_reduce",
        }
    }

    /// Open MPI's `coll_tuned_bcast_algorithm` id (0 for tuned's own
    /// decision); `None` for our own and other collectives' algorithms.
    pub fn ompi_id(self) -> Option<u8> {
        Collective::Bcast.ompi_id(self)
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
            "in_order_binary" => Some(Algorithm::InOrderBinary),
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

/// An MPI collective operation.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Collective {
    #[default]
    Bcast,
    Reduce,
    Allreduce,
}

impl Collective {
    pub const ALL: [Collective; 3] = [Collective::Bcast, Collective::Reduce, Collective::Allreduce];

    /// The name in CSV files (`bcast`, `reduce`, `allreduce`).
    pub fn name(self) -> &'static str {
        match self {
            Collective::Bcast => "bcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
        }
    }

    /// Whether ranks combine contributions (reduce, allreduce) rather than
    /// pass one message on (broadcast).
    pub fn reduces(self) -> bool {
        self != Collective::Bcast
    }

    /// The MPI function, for people (`MPI_Bcast`).
    pub fn function(self) -> &'static str {
        match self {
            Collective::Bcast => "MPI_Bcast",
            Collective::Reduce => "MPI_Reduce",
            Collective::Allreduce => "MPI_Allreduce",
        }
    }

    /// Open MPI's algorithms of this collective, indexed by their
    /// `coll_tuned_<collective>_algorithm` id (Open MPI 4.1's tables, and
    /// reduce's knomial, 8, which Open MPI has after 5.0: main, not 5.0.9).
    pub fn ompi_algorithms(self) -> &'static [Algorithm] {
        use Algorithm::*;
        match self {
            Collective::Bcast => &Algorithm::OMPI,
            Collective::Reduce => &[
                Default,
                Linear,
                Chain,
                Pipeline,
                Binary,
                Binomial,
                InOrderBinary,
                Rabenseifner,
                Knomial,
            ],
            Collective::Allreduce => &[
                Default,
                Linear,
                Nonoverlapping,
                RecursiveDoubling,
                Ring,
                SegmentedRing,
                Rabenseifner,
                AllgatherReduce,
            ],
        }
    }

    /// Open MPI's id of `algorithm` for this collective (0 for tuned's own
    /// decision); `None` where Open MPI has no such algorithm for it.
    pub fn ompi_id(self, algorithm: Algorithm) -> Option<u8> {
        match algorithm {
            Algorithm::Tuned => Some(0),
            _ => self
                .ompi_algorithms()
                .iter()
                .position(|a| *a == algorithm)
                .map(|i| i as u8),
        }
    }

    /// Whether `algorithm` is one of this collective's: Open MPI's, tuned's
    /// own decision, and for broadcast our own algorithms.
    pub fn knows(self, algorithm: Algorithm) -> bool {
        self.ompi_id(algorithm).is_some()
            || (self == Collective::Bcast
                && matches!(algorithm, Algorithm::Sbbt | Algorithm::Arrival))
    }

    /// The names this collective accepts, for error messages.
    pub fn accepted_names(self) -> String {
        let names: Vec<&str> = Algorithm::ALL
            .iter()
            .filter(|a| self.knows(**a))
            .map(|a| a.name())
            .collect();
        let spellings = match self {
            Collective::Bcast => "basic_linear, split_binary_tree, binary_tree, ",
            Collective::Reduce => "in_order_binary, ",
            Collective::Allreduce => "basic_linear, ",
        };
        format!(
            "{} (or {spellings}or an id 0-{})",
            names.join(", "),
            self.ompi_algorithms().len() - 1
        )
    }

    /// An algorithm of this collective: a name (any spelling) or Open
    /// MPI's numeric id for it.
    pub fn algorithm(self, s: &str) -> Result<Algorithm, String> {
        let table = self.ompi_algorithms();
        if let Ok(id) = s.trim().parse::<usize>() {
            return table.get(id).copied().ok_or_else(|| {
                format!(
                    "{} algorithm id {id} is not one of 0-{}",
                    self.name(),
                    table.len() - 1
                )
            });
        }
        s.parse()
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Collective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.trim().to_ascii_lowercase();
        let lower = lower.strip_prefix("mpi_").unwrap_or(&lower);
        match lower {
            "bcast" | "broadcast" => Ok(Collective::Bcast),
            "reduce" => Ok(Collective::Reduce),
            "allreduce" => Ok(Collective::Allreduce),
            _ => Err(format!("unknown collective {s:?}")),
        }
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
        assert!("spiral".parse::<Algorithm>().is_err());
        // Allreduce's ring is no broadcast.
        assert_eq!("ring".parse(), Ok(Algorithm::Ring));
        assert!(!Collective::Bcast.knows(Algorithm::Ring));
        assert!(Collective::Bcast
            .algorithm("ring")
            .is_ok_and(|a| !Collective::Bcast.knows(a)));
    }

    #[test]
    fn each_collective_has_its_own_ids() {
        assert_eq!(Collective::Bcast.algorithm("4"), Ok(Algorithm::SplitBinary));
        assert_eq!(Collective::Reduce.algorithm("4"), Ok(Algorithm::Binary));
        assert_eq!(
            Collective::Reduce.algorithm("6"),
            Ok(Algorithm::InOrderBinary)
        );
        assert_eq!(Collective::Allreduce.algorithm("4"), Ok(Algorithm::Ring));
        assert_eq!(
            Collective::Allreduce.algorithm("basic_linear"),
            Ok(Algorithm::Linear)
        );
        assert!(Collective::Allreduce.algorithm("8").is_err());
        assert_eq!(Collective::Reduce.ompi_id(Algorithm::Rabenseifner), Some(7));
        assert_eq!(
            Collective::Allreduce.ompi_id(Algorithm::Rabenseifner),
            Some(6)
        );
        assert_eq!(Collective::Bcast.ompi_id(Algorithm::Ring), None);
        assert_eq!("MPI_Reduce".parse(), Ok(Collective::Reduce));
        for c in Collective::ALL {
            assert_eq!(c.name().parse(), Ok(c));
            for (id, a) in c.ompi_algorithms().iter().enumerate() {
                assert_eq!(c.ompi_id(*a), Some(id as u8), "{c} {a}");
            }
        }
    }

    #[test]
    fn impl_parses_both_spellings_only() {
        assert_eq!("OWN".parse(), Ok(Impl::Own));
        assert_eq!(" ompi ".parse(), Ok(Impl::Ompi));
        assert!("mpich".parse::<Impl>().is_err());
    }
}
