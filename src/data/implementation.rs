//! Who executed a measured collective: the MPI library or this project.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Who executed a measured collective.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Impl {
    /// The MPI library's own call: Open MPI's forced algorithm, or any
    /// library's own choice (`default`, Open MPI's or MPICH's).
    #[default]
    Ompi,
    /// This project's re-implementation over point-to-point messages.
    Own,
    /// MPICH's algorithm of that name, forced through MPI_T: MPICH's
    /// namespace (its `binomial` is not Open MPI's).
    Mpich,
}

impl Impl {
    pub fn name(self) -> &'static str {
        match self {
            Impl::Ompi => "ompi",
            Impl::Own => "own",
            Impl::Mpich => "mpich",
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
            "mpich" => Ok(Impl::Mpich),
            _ => Err(format!("unknown impl {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impl_parses_its_three_names_only() {
        assert_eq!("OWN".parse(), Ok(Impl::Own));
        assert_eq!(" ompi ".parse(), Ok(Impl::Ompi));
        assert_eq!("MPICH".parse(), Ok(Impl::Mpich));
        assert!("library".parse::<Impl>().is_err());
    }
}
