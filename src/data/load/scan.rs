//! The quote-aware scan of a CSV text: where each record starts, its
//! fields, and the line and column of a byte offset.

use crate::error::{InputError, Result};
use std::path::Path;

pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|e| {
        InputError::new(
            path,
            format!("cannot read file ({e}); expected a benchmark CSV file"),
        )
        .at(1, 1)
    })
}

/// The text of a file: UTF-8, a byte-order mark dropped.
pub(super) fn decode<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = locate(&bytes[..e.valid_up_to()]);
        InputError::new(
            path,
            format!(
                "invalid UTF-8 (byte 0x{:02x}); expected UTF-8 text",
                bytes[e.valid_up_to()]
            ),
        )
        .at(line, column)
    })
}

pub(super) fn scan(path: &Path, text: &str) -> Result<Vec<Record>, InputError> {
    scan_records(text).map_err(|(line, msg)| InputError::new(path, msg).at(line, 1))
}

/// Where one CSV record sits in the text.
#[derive(Debug)]
pub(super) struct Record {
    /// 1-based line the record starts on.
    pub(super) line: usize,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) fields: usize,
}

/// Splits the text into records (RFC 4180 quoting; blank lines skipped).
/// Errors carry the line of an unterminated quote.
fn scan_records(text: &str) -> Result<Vec<Record>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut records = Vec::new();
    let (mut line, mut start, mut start_line) = (1, 0, 1);
    let (mut fields, mut in_quotes) = (1, false);
    let mut push = |start: usize, end: usize, line: usize, fields: usize| {
        let end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        if !text[start..end].trim().is_empty() {
            records.push(Record {
                line,
                start,
                end,
                fields,
            });
        }
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => fields += 1,
            b'\n' => {
                line += 1;
                if !in_quotes {
                    push(start, i, start_line, fields);
                    (start, start_line, fields) = (i + 1, line, 1);
                }
            }
            _ => {}
        }
    }
    if in_quotes {
        return Err((
            start_line,
            "unterminated quoted field; expected a closing '\"'".into(),
        ));
    }
    push(start, bytes.len(), start_line, fields);
    Ok(records)
}

/// The fields of one record, unquoted.
pub(super) fn split_fields(record: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut chars = record.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Line and field number of the end of `prefix` (which is valid UTF-8).
fn locate(prefix: &[u8]) -> (usize, usize) {
    let line = 1 + prefix.iter().filter(|&&b| b == b'\n').count();
    let line_start = prefix
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut in_quotes = false;
    let mut column = 1;
    for &b in &prefix[line_start..] {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => column += 1,
            _ => {}
        }
    }
    (line, column)
}
