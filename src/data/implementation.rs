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
    fn impl_parses_both_spellings_only() {
        assert_eq!("OWN".parse(), Ok(Impl::Own));
        assert_eq!(" ompi ".parse(), Ok(Impl::Ompi));
        assert!("mpich".parse::<Impl>().is_err());
    }
}
