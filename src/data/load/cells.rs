//! Cells that polars or the rules flagged, found back in the text and
//! named by line, column and what they hold.

use super::rules::{Rule, NUMERIC};
use super::scan::{split_fields, Record};
use crate::data::{Algorithm, Collective};
use crate::error::{InputError, Result};
use polars::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// The checked columns of one file, with what is needed to say where a bad
/// cell stands.
pub(super) struct Cells<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
    pub(super) records: &'a [Record],
    pub(super) names: Vec<String>,
    pub(super) frame: DataFrame,
}

/// The first problem in a file, by line and then by column.
#[derive(Default)]
pub(super) struct First(pub(super) Option<(usize, usize, InputError)>);

impl First {
    fn offer(&mut self, row: usize, column: usize, error: impl FnOnce() -> InputError) {
        if self
            .0
            .as_ref()
            .is_none_or(|(r, c, _)| (row, column) < (*r, *c))
        {
            self.0 = Some((row, column, error()));
        }
    }
}

impl Cells<'_> {
    pub(super) fn position(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).map_or(0, |i| i)
    }

    pub(super) fn error(&self, row: usize, name: &str, message: String) -> InputError {
        InputError::new(self.path, message)
            .at(self.records[row].line, self.position(name) + 1)
            .named(name)
    }

    /// The text of one cell as the file has it.
    pub(super) fn raw(&self, row: usize, name: &str) -> String {
        let r = &self.records[row];
        let fields = split_fields(&self.text[r.start..r.end]);
        fields[self.position(name)].trim().to_string()
    }

    /// The column's cells (`None` where empty); an absent column is all empty.
    pub(super) fn strings(&self, name: &str) -> Result<Vec<Option<&str>>, InputError> {
        let Ok(column) = self.frame.column(name) else {
            return Ok(vec![None; self.frame.height()]);
        };
        let strings = column
            .str()
            .map_err(|e| InputError::new(self.path, format!("column '{name}' unreadable: {e}")))?;
        Ok(strings
            .iter()
            .map(|cell| cell.map(str::trim).filter(|s| !s.is_empty()))
            .collect())
    }

    /// Offers the first cell of each numeric column that breaks its rule,
    /// found by one polars pass over all of them.
    pub(super) fn check_numbers(&self, first: &mut First) -> Result<(), InputError> {
        let present: Vec<(&str, Rule)> = NUMERIC
            .iter()
            .copied()
            .filter(|(name, _)| self.frame.column(name).is_ok())
            .collect();
        let checks = present
            .iter()
            .map(|(name, rule)| rule.broken(col(*name)).alias(*name))
            .collect::<Vec<_>>();
        let broken = self
            .frame
            .clone()
            .lazy()
            .select(checks)
            .collect()
            .map_err(|e| InputError::new(self.path, format!("checking the numbers failed: {e}")))?;
        for (name, rule) in present {
            let mask = broken.column(name).and_then(|c| c.bool().cloned());
            let Some(row) = mask
                .ok()
                .and_then(|m| m.iter().position(|b| b == Some(true)))
            else {
                continue;
            };
            let found = self
                .float_column(name)?
                .and_then(|c| c.get(row))
                .unwrap_or(f64::NAN);
            first.offer(row, self.position(name), || {
                let raw = self.raw(row, name);
                let message = format!("expected {}, found {raw:?}", rule.expected_for(found));
                self.error(row, name, message)
            });
        }
        Ok(())
    }

    /// Offers the first empty cell of a required numeric column.
    pub(super) fn check_present(&self, name: &str, first: &mut First) -> Result<(), InputError> {
        let Some(column) = self.float_column(name)? else {
            return Ok(());
        };
        if column.null_count() == 0 {
            return Ok(());
        }
        if let Some(row) = column.iter().position(|v| v.is_none()) {
            first.offer(row, self.position(name), || {
                let expected = Rule::of(name).map(Rule::expected).unwrap_or_default();
                self.error(row, name, format!("empty value; expected {expected}"))
            });
        }
        Ok(())
    }

    /// A numeric column as polars read it; `None` when the file lacks it.
    fn float_column(&self, name: &str) -> Result<Option<&Float64Chunked>, InputError> {
        let Ok(column) = self.frame.column(name) else {
            return Ok(None);
        };
        column
            .f64()
            .map(Some)
            .map_err(|e| InputError::new(self.path, format!("column '{name}' unreadable: {e}")))
    }

    /// A numeric column's cells; an absent column is all empty.
    pub(super) fn numbers(&self, name: &str) -> Result<Vec<Option<f64>>, InputError> {
        Ok(match self.float_column(name)? {
            Some(column) => column.iter().collect(),
            None => vec![None; self.frame.height()],
        })
    }

    /// The algorithm column, each cell read as an algorithm of its row's
    /// collective (ids differ between collectives); each distinct (collective,
    /// text) parsed once; the first that names nothing is offered with what
    /// that collective accepts.
    pub(super) fn algorithms(
        &self,
        collectives: &[Collective],
        first: &mut First,
    ) -> Result<Vec<Option<Algorithm>>, InputError> {
        let name = "algorithm";
        let mut known: HashMap<(Collective, &str), Option<Algorithm>> = HashMap::new();
        let cells = self.strings(name)?;
        let mut values = Vec::with_capacity(cells.len());
        for (row, cell) in cells.iter().enumerate() {
            let c = collectives[row];
            let value = match cell {
                Some(s) => *known
                    .entry((c, s))
                    .or_insert_with(|| c.algorithm(s).ok().filter(|a| c.knows(*a))),
                None => None,
            };
            let expected = || format!("a {c} algorithm: {}", c.accepted_names());
            match (cell, value) {
                (Some(s), None) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("expected {}, found {s:?}", expected()))
                }),
                (None, _) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("empty value; expected {}", expected()))
                }),
                _ => {}
            }
            values.push(value);
        }
        Ok(values)
    }

    /// A named column (algorithm, mapping, ...): each distinct text parsed
    /// once; the first that names nothing is offered with what is accepted.
    pub(super) fn named<T: std::str::FromStr + Copy>(
        &self,
        name: &str,
        accepted: &str,
        required: bool,
        first: &mut First,
    ) -> Result<Vec<Option<T>>, InputError> {
        let mut known: HashMap<&str, Option<T>> = HashMap::new();
        let cells = self.strings(name)?;
        let mut values = Vec::with_capacity(cells.len());
        for (row, cell) in cells.iter().enumerate() {
            let value = match cell {
                Some(s) => *known.entry(s).or_insert_with(|| s.parse().ok()),
                None => None,
            };
            match (cell, value) {
                (Some(s), None) => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("expected {accepted}, found {s:?}"))
                }),
                (None, _) if required => first.offer(row, self.position(name), || {
                    self.error(row, name, format!("empty value; expected {accepted}"))
                }),
                _ => {}
            }
            values.push(value);
        }
        Ok(values)
    }
}
