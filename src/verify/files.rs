//! Open MPI's rules files read the way Open MPI reads them, so that `verify`
//! can say whether the library took a file, and what it decides.
//!
//! Both readers (coll/tuned's `coll_tuned_dynamic_file.c`, coll/han's
//! `coll_han_dynamic_file.c`) scan numbers with `fscanf("%li")` and skip any
//! character that does not start one, a `#` to the end of its line: text
//! between numbers is ignored, a leading 0 makes a number octal, and a
//! negative or missing number makes the reader give up on the whole file,
//! after which the library runs as if there were none, without a word
//! unless its verbosity is raised. The scanner here follows those rules
//! and says where the reader gave up, by line and column. Open MPI's own
//! line count misses the line breaks `fscanf` skips; these positions are
//! the file's.

use std::fmt;

/// A place in a file: line and column, from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Why a reader gave up on a file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

/// coll/base's collective ids (`COLLTYPE_T`), the index of each name.
pub const COLLECTIVES: [&str; 22] = [
    "allgather",
    "allgatherv",
    "allreduce",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "barrier",
    "bcast",
    "exscan",
    "gather",
    "gatherv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "scatter",
    "scatterv",
    "neighbor_allgather",
    "neighbor_allgatherv",
    "neighbor_alltoall",
    "neighbor_alltoallv",
    "neighbor_alltoallw",
];

/// The name of collective `id`, or the number.
pub fn collective_name(id: u64) -> String {
    COLLECTIVES
        .get(id as usize)
        .map_or_else(|| id.to_string(), |n| n.to_string())
}

/// How many algorithm ids coll/tuned accepts for collective `id` (0, its
/// own decision, included; from each `coll_tuned_<name>_decision.c` of
/// 4.1.4-4.1.8 and 5.0.0-5.0.9), in Open MPI of major version `major`. A
/// rule naming a larger id is read, and the collective then fails when it
/// meets it. `None`: coll/tuned has no rules for it.
pub fn algorithm_count(id: u64, major: u32) -> Option<u64> {
    let five = major >= 5;
    Some(match COLLECTIVES.get(id as usize)? {
        &"allgather" => 7 + u64::from(five),
        &"allgatherv" => 6 + u64::from(five),
        &"allreduce" | &"barrier" => 7,
        &"alltoall" => 6,
        &"alltoallv" | &"exscan" | &"scan" => 3,
        &"bcast" => 10,
        &"gather" | &"scatter" => 4,
        &"reduce" => 8,
        &"reduce_scatter" | &"reduce_scatter_block" => 5,
        _ => return None,
    })
}

/// Which of coll/tuned's readers: the rules-file format version 2 header
/// (`rule-file-version-2`, and an optional fifth number per rule) is read
/// by Open MPI 4.1.8 and later 4.1, and by 5.0.7 and later.
pub fn reads_version_header(major: u32, minor: u32, release: u32) -> bool {
    match (major, minor) {
        (4, 1) => release >= 8,
        (5, 0) => release >= 7,
        (m, _) => m > 5,
    }
}

/// One message-size rule of coll/tuned: from `msg_size` bytes on, algorithm
/// `alg` with its fan-in/out and segment size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunedRule {
    pub msg_size: u64,
    pub alg: u64,
    pub faninout: u64,
    pub segsize: u64,
    pub at: Pos,
    /// The bytes of the file from the algorithm to the segment size: what
    /// a rewrite replaces.
    pub span: std::ops::Range<usize>,
}

/// The message-size rules of one communicator size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunedBlock {
    pub comm_size: u64,
    pub rules: Vec<TunedRule>,
}

/// One collective's section of coll/tuned's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunedSection {
    pub id: u64,
    pub blocks: Vec<TunedBlock>,
    pub at: Pos,
}

/// coll/tuned's rules file as the library holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TunedRules {
    pub version: u32,
    /// A collective given twice keeps its last section (the library's
    /// table has one slot per collective).
    pub sections: Vec<TunedSection>,
}

impl TunedRules {
    /// The rule coll/tuned applies to collective `id` on a communicator of
    /// `comm_size` ranks at `msg_size` bytes (4.1 and 5.0's lookup: the
    /// last block whose size is at most the communicator's, else the first;
    /// within it, the last rule whose size is at most the message's).
    pub fn lookup(&self, id: u64, comm_size: u64, msg_size: u64) -> Option<&TunedRule> {
        let section = self.sections.iter().rev().find(|s| s.id == id)?;
        let block = section
            .blocks
            .iter()
            .take_while(|b| b.comm_size <= comm_size)
            .last()
            .or(section.blocks.first())?;
        block
            .rules
            .iter()
            .take_while(|r| r.msg_size <= msg_size)
            .last()
            .or(block.rules.first())
    }

    /// Rules the library reads but that cannot work as meant, in this
    /// Open MPI (`major`): an algorithm it lacks makes the collective fail;
    /// sizes out of order make the lookup skip rules.
    pub fn problems(&self, major: u32) -> Vec<FileError> {
        let mut out = Vec::new();
        for s in &self.sections {
            let name = collective_name(s.id);
            let count = algorithm_count(s.id, major);
            for (i, b) in s.blocks.iter().enumerate() {
                if i > 0 && b.comm_size < s.blocks[i - 1].comm_size {
                    out.push(FileError {
                        pos: b.rules.first().map_or(s.at, |r| r.at),
                        message: format!(
                            "{name}: communicator size {} comes after {}: Open MPI takes the \
                             blocks in the file's order and stops at the first larger one",
                            b.comm_size,
                            s.blocks[i - 1].comm_size
                        ),
                    });
                }
                for (j, r) in b.rules.iter().enumerate() {
                    if let Some(count) = count.filter(|&c| r.alg >= c) {
                        out.push(FileError {
                            pos: r.at,
                            message: format!(
                                "{name} algorithm {} does not exist in Open MPI {major} (it has \
                                 0-{}): {name} fails at {} bytes and above",
                                r.alg,
                                count - 1,
                                r.msg_size
                            ),
                        });
                    }
                    if j > 0 && r.msg_size < b.rules[j - 1].msg_size {
                        out.push(FileError {
                            pos: r.at,
                            message: format!(
                                "{name}: message size {} comes after {}: Open MPI stops at the \
                                 first larger one",
                                r.msg_size,
                                b.rules[j - 1].msg_size
                            ),
                        });
                    }
                }
            }
        }
        out
    }
}

/// Reads coll/tuned's classic rules file as Open MPI does; `header`: this
/// Open MPI reads the version-2 header ([`reads_version_header`]).
pub fn read_tuned(text: &[u8], header: bool) -> Result<TunedRules, FileError> {
    let mut s = Scanner::new(text);
    let mut version = 1;
    if header {
        if let Some(v) = s.literal_number(b"rule-file-version-") {
            version = v as u32;
        }
    }
    let hint = if !header && text.starts_with(b"rule-file-version-") {
        " (the file starts with a version-2 header, which Open MPI reads from 4.1.8 and 5.0.7 \
         on: write it with --rules-version 1)"
    } else {
        ""
    };
    let count = s.count("the number of collectives", hint)?;
    if count > COLLECTIVES.len() as u64 {
        return Err(s.error(format!(
            "{count} collectives, more than the {} Open MPI has",
            COLLECTIVES.len()
        )));
    }
    let mut rules = TunedRules {
        version,
        sections: Vec::new(),
    };
    for _ in 0..count {
        let id = s.count("a collective id", "")?;
        let at = s.last;
        if id >= COLLECTIVES.len() as u64 {
            return Err(s.error(format!(
                "collective id {id}: Open MPI's are 0-{}",
                COLLECTIVES.len() - 1
            )));
        }
        let name = collective_name(id);
        let blocks = s.count(&format!("the number of communicator sizes of {name}"), "")?;
        let mut section = TunedSection {
            id,
            blocks: Vec::new(),
            at,
        };
        for b in 0..blocks {
            let what = format!("of communicator block {} of {name}", b + 1);
            let comm_size = s.count(&format!("the communicator size {what}"), "")?;
            let n = s.count(&format!("the number of message sizes {what}"), "")?;
            let mut block = TunedBlock {
                comm_size,
                rules: Vec::new(),
            };
            for r in 0..n {
                let rule = format!("rule {} {what}", r + 1);
                let msg_size = s.count(&format!("the message size of {rule}"), "")?;
                let at = s.last;
                let alg = s.count(&format!("the algorithm of {rule}"), "")?;
                let span_start = s.last_offset;
                let faninout = s.count(&format!("the fan-in/out of {rule}"), "")?;
                let segsize = s.count(&format!("the segment size of {rule}"), "")?;
                let span = span_start..s.at;
                if version > 1 && s.next_is_digit() {
                    s.count(&format!("the maximum requests of {rule}"), "")?;
                }
                if r == 0 && msg_size != 0 {
                    return Err(FileError {
                        pos: at,
                        message: format!(
                            "the first rule {what} starts at {msg_size} bytes; Open MPI needs \
                             every block to start at 0"
                        ),
                    });
                }
                block.rules.push(TunedRule {
                    msg_size,
                    alg,
                    faninout,
                    segsize,
                    at,
                    span,
                });
            }
            section.blocks.push(block);
        }
        rules.sections.retain(|old| old.id != id);
        rules.sections.push(section);
    }
    Ok(rules)
}

/// coll/han's levels: the user's communicator is the last.
pub const HAN_LEVELS: [&str; 3] = ["intra_node", "inter_node", "global_communicator"];

/// The components coll/han can hand a call to, by their ids.
pub const HAN_COMPONENTS: [&str; 7] = ["self", "basic", "libnbc", "tuned", "sm", "adapt", "han"];

/// The collectives coll/han's file can route (Open MPI 5.0).
pub const HAN_COLLECTIVES: [&str; 8] = [
    "allgather",
    "allgatherv",
    "allreduce",
    "barrier",
    "bcast",
    "gather",
    "reduce",
    "scatter",
];

/// One rule of coll/han's file: from `msg_size` bytes on, `component`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HanRule {
    pub msg_size: u64,
    pub component: String,
    pub at: Pos,
}

/// The rules of one configuration: communicators of `size` ranks and up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HanConfiguration {
    pub size: u64,
    pub rules: Vec<HanRule>,
}

/// One collective's rules at one level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HanSection {
    pub collective: u64,
    pub level: u64,
    pub configurations: Vec<HanConfiguration>,
}

/// coll/han's rules file as the library holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HanRules {
    pub sections: Vec<HanSection>,
}

impl HanRules {
    /// The rule coll/han applies to collective `id` on the user's
    /// communicator of `comm_size` ranks at `msg_size` bytes (5.0's lookup:
    /// the last configuration and rule at or below each).
    pub fn lookup(&self, id: u64, comm_size: u64, msg_size: u64) -> Option<&HanRule> {
        let section = self
            .sections
            .iter()
            .rev()
            .find(|s| s.collective == id && s.level == 2)?;
        let configuration = section
            .configurations
            .iter()
            .rev()
            .find(|c| c.size <= comm_size)?;
        configuration
            .rules
            .iter()
            .rev()
            .find(|r| r.msg_size <= msg_size)
    }
}

/// Reads coll/han's dynamic rules file as Open MPI 5.0 does.
pub fn read_han(text: &[u8]) -> Result<HanRules, FileError> {
    let mut s = Scanner::new(text);
    let count = s.count("the number of collectives", "")?;
    if count == 0 {
        return Err(s.error("0 collectives: HAN needs at least one".into()));
    }
    let mut rules = HanRules::default();
    for _ in 0..count {
        let collective = s.named("a collective", &COLLECTIVES)?;
        let name = collective_name(collective);
        let levels = s.count(&format!("the number of levels of {name}"), "")?;
        for _ in 0..levels {
            let level = s.named(&format!("a level of {name}"), &HAN_LEVELS)?;
            let what = format!("{name} at level {}", HAN_LEVELS[level as usize]);
            let n = s.count(&format!("the number of configurations of {what}"), "")?;
            let mut section = HanSection {
                collective,
                level,
                configurations: Vec::new(),
            };
            for k in 0..n {
                let size = s.count(&format!("a configuration size of {what}"), "")?;
                if size < 1 || (k == 0 && size > 1) {
                    return Err(s.error(format!(
                        "configuration size {size} of {what}: the first must be 1, the others \
                         at least 1"
                    )));
                }
                let m = s.count(&format!("the number of message sizes of {what}"), "")?;
                let mut configuration = HanConfiguration {
                    size,
                    rules: Vec::new(),
                };
                for l in 0..m {
                    let msg_size = s.count(&format!("a message size of {what}"), "")?;
                    let at = s.last;
                    if l == 0 && msg_size > 1 {
                        return Err(s.error(format!(
                            "the first message size of {what} is {msg_size}: it must be 0 or 1"
                        )));
                    }
                    let component = s.token(&format!("the component of {what}"))?;
                    if !HAN_COMPONENTS.contains(&component.as_str()) {
                        return Err(s.error(format!(
                            "component {component:?} of {what}: HAN knows {}",
                            HAN_COMPONENTS.join(", ")
                        )));
                    }
                    if component == "han" && s.peek_is(b'@') {
                        s.token(&format!("HAN's algorithm for {what}"))?;
                    }
                    if s.peek_is(b'[') {
                        while !s.peek_is(b']') {
                            s.count(&format!("a segment length of {what}"), "")?;
                        }
                    }
                    configuration.rules.push(HanRule {
                        msg_size,
                        component,
                        at,
                    });
                }
                section.configurations.push(configuration);
            }
            rules.sections.push(section);
        }
    }
    Ok(rules)
}

/// A cursor over a rules file with `fscanf`'s ways.
struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
    /// Where the last token read began, and its byte offset.
    last: Pos,
    last_offset: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a [u8]) -> Self {
        Scanner {
            text,
            at: 0,
            last: Pos { line: 1, column: 1 },
            last_offset: 0,
        }
    }

    fn pos(&self, offset: usize) -> Pos {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Pos {
            line,
            column: offset - start + 1,
        }
    }

    fn error(&self, message: String) -> FileError {
        FileError {
            pos: self.last,
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_line(&mut self) {
        while let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\n' {
                return;
            }
        }
    }

    fn skip_space(&mut self) {
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_whitespace() || b == 0x0b)
        {
            self.at += 1;
        }
    }

    /// `fscanf(f, "LITERAL%u")` at the very start: the number after the
    /// literal, consumed with it.
    fn literal_number(&mut self, literal: &[u8]) -> Option<u64> {
        let rest = self.text.strip_prefix(literal)?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let value = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        self.at = literal.len() + digits;
        Some(value)
    }

    /// `ompi_coll_base_file_getnext_long`: the next number `fscanf("%li")`
    /// converts, skipping any character that starts none (a `#` to the end
    /// of its line); `None` at the end of the file.
    fn long(&mut self) -> Option<i64> {
        loop {
            self.skip_space();
            let start = self.at;
            match self.convert() {
                Some(v) => {
                    self.last = self.pos(start);
                    self.last_offset = start;
                    return Some(v);
                }
                None if self.at >= self.text.len() => return None,
                None => {
                    let b = self.text[self.at];
                    self.at += 1;
                    if b == b'#' {
                        self.skip_line();
                    }
                }
            }
        }
    }

    /// One `%li` conversion at the cursor: sign, then 0x hex, 0 octal or
    /// decimal digits. On failure a sign stays consumed (glibc pushes back
    /// one character only).
    fn convert(&mut self) -> Option<i64> {
        let mut negative = false;
        if let Some(sign @ (b'+' | b'-')) = self.peek() {
            negative = sign == b'-';
            self.at += 1;
        }
        let digit = |b: u8, radix: u32| (b as char).to_digit(radix);
        let rest = &self.text[self.at..];
        let (radix, skip) = match rest {
            [b'0', b'x' | b'X', h, ..] if digit(*h, 16).is_some() => (16, 2),
            [b'0', ..] => (8, 0),
            [d, ..] if d.is_ascii_digit() => (10, 0),
            _ => return None,
        };
        self.at += skip;
        let mut value: i64 = 0;
        while let Some(d) = self.peek().and_then(|b| digit(b, radix)) {
            value = value
                .saturating_mul(i64::from(radix))
                .saturating_add(i64::from(d));
            self.at += 1;
        }
        Some(if negative { -value } else { value })
    }

    /// The next number, which must be there and not negative (Open MPI
    /// gives up on the file otherwise).
    fn count(&mut self, what: &str, hint: &str) -> Result<u64, FileError> {
        match self.long() {
            Some(v) if v >= 0 => Ok(v as u64),
            Some(v) => Err(self.error(format!("expected {what}, found {v}{hint}"))),
            None => {
                self.last = self.pos(self.text.len());
                Err(self.error(format!("expected {what}, found the end of the file{hint}")))
            }
        }
    }

    /// `ompi_coll_base_file_getnext_string`: the next word of up to 32
    /// characters, a word that starts with `#` skipping its line.
    fn token(&mut self, what: &str) -> Result<String, FileError> {
        loop {
            self.skip_space();
            if self.at >= self.text.len() {
                self.last = self.pos(self.text.len());
                return Err(self.error(format!("expected {what}, found the end of the file")));
            }
            let start = self.at;
            while self.at - start < 32
                && self
                    .peek()
                    .is_some_and(|b| !b.is_ascii_whitespace() && b != 0x0b)
            {
                self.at += 1;
            }
            if self.text[start] == b'#' {
                self.skip_line();
                continue;
            }
            self.last = self.pos(start);
            return Ok(String::from_utf8_lossy(&self.text[start..self.at]).into_owned());
        }
    }

    /// A word that is one of `names` or the number of one.
    fn named(&mut self, what: &str, names: &[&str]) -> Result<u64, FileError> {
        let word = self.token(what)?;
        if let Some(i) = names.iter().position(|n| *n == word) {
            return Ok(i as u64);
        }
        match word.parse::<u64>() {
            Ok(i) if (i as usize) < names.len() => Ok(i),
            _ => Err(self.error(format!(
                "expected {what} ({} or 0-{}), found {word:?}",
                names.join(", "),
                names.len() - 1
            ))),
        }
    }

    /// `ompi_coll_base_file_peek_next_char_is`: skipping blanks, line
    /// breaks and comments, whether the next character is `expected`
    /// (consumed if so).
    fn peek_is(&mut self, expected: u8) -> bool {
        loop {
            match self.peek() {
                None => return false,
                Some(b'#') => self.skip_line(),
                Some(b) if b == expected => {
                    self.at += 1;
                    return true;
                }
                Some(b' ' | b'\t' | b'\n') => self.at += 1,
                Some(_) => return false,
            }
        }
    }

    /// Skipping spaces and tabs, whether a digit comes next.
    fn next_is_digit(&mut self) -> bool {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        self.peek().is_some_and(|b| b.is_ascii_digit())
    }
}

#[cfg(test)]
mod tests;
