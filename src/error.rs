//! Errors and the exit codes they map to: 2 = bad input or usage, 3 = a
//! rules file the job names is not in effect, 1 = anything else.

use std::fmt;
use std::path::{Path, PathBuf};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad content in a user file, located as precisely as we can.
    #[error("{0}")]
    Input(#[from] InputError),
    /// A command-line value that makes no sense.
    #[error("{0}")]
    Usage(String),
    /// An operating-system failure on something that is not the user's input.
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
    /// A rules file the job names is not in effect (`verify`).
    #[error("rules not in effect: {0}")]
    NotInEffect(String),
    /// A failure another process (MPI rank 0) has already reported; carries
    /// the exit code.
    #[error("failed (reported by rank 0)")]
    Reported(i32),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Usage(_) => 2,
            Error::Io { .. } | Error::Other(_) => 1,
            Error::NotInEffect(_) => 3,
            Error::Reported(code) => *code,
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

/// A problem in an input file: `file:line:column: [column 'name': ]message`.
/// Line and column are 1-based; the column is the CSV field number.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub column_name: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn new(file: &Path, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_path_buf(),
            line: None,
            column: None,
            column_name: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn named(mut self, column_name: &str) -> Self {
        self.column_name = Some(column_name.to_string());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(name) = &self.column_name {
            write!(f, "column '{name}': ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

/// Prints warnings on standard error, prefixed so they stand out from
/// results (a command's own output goes to standard output).
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_read_like_compiler_messages() {
        let e = InputError::new(Path::new("a.csv"), "expected a number")
            .at(3, 4)
            .named("time_us");
        assert_eq!(
            e.to_string(),
            "a.csv:3:4: column 'time_us': expected a number"
        );
        assert_eq!(Error::from(e).exit_code(), 2);
        let bare = InputError::new(Path::new("b.csv"), "cannot read");
        assert_eq!(bare.to_string(), "b.csv: cannot read");
    }
}
