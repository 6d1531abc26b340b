//! `src/lib.rs` lists the modules in the order they build on each other,
//! one folder per stage of the pipeline; this keeps the list true: outside
//! comments and test modules, a module names only modules listed above it
//! (so imports run one way, no cycles), and `src/` holds a folder per
//! stage, with loose files only for the crate's entry points and the
//! foundations every stage shares.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The modules of `src/lib.rs`, in order.
fn stages() -> Vec<String> {
    std::fs::read_to_string("src/lib.rs")
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

fn sources(module: &str) -> Vec<PathBuf> {
    sources_in(Path::new("src"), module)
}

/// The files of `module` under `root`: `root/<module>.rs` and every file
/// below `root/<module>/`.
fn sources_in(root: &Path, module: &str) -> Vec<PathBuf> {
    let mut files = vec![];
    let single = root.join(format!("{module}.rs"));
    if single.exists() {
        files.push(single);
    }
    let mut dirs = vec![root.join(module)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The code of a file without comments and without its test modules (the
/// tests of a file come last, after `#[cfg(test)]`; a test-only file such
/// as `sim/tests.rs` is skipped whole).
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text
        .find("#[cfg(test)]\nmod ")
        .or_else(|| text.find("#[cfg(test)]\npub(crate) mod "))
    {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level modules a piece of code names: `crate::x` and the items of
/// `use crate::{x, y::z}`.
fn named(code: &str) -> BTreeSet<String> {
    after(code, "crate::")
}

/// The first names of the paths that follow `prefix` in `code`: `x` of
/// `prefix x::y` and `x`, `y` of `prefix {x, y::z}`.
fn after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices(prefix) {
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        out.insert(ident(&group[j..]));
                        start = false;
                    }
                    _ => start = false,
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

#[test]
fn every_module_names_only_modules_listed_above_it() {
    let stages = stages();
    assert!(stages.len() > 10, "src/lib.rs lists {stages:?}");
    let mut problems = vec![];
    for (at, module) in stages.iter().enumerate() {
        for file in sources(module) {
            for used in named(&code(&file)) {
                if let Some(later) = stages[at + 1..].iter().position(|s| *s == used) {
                    problems.push(format!(
                        "{} ({module}, stage {at}) uses {used} (stage {})",
                        file.display(),
                        at + 1 + later
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Inside a stage, its modules name each other one way too: the modules a
/// file or folder of `src/<stage>/` names through `super::` (from a file
/// directly in the folder) or `crate::<stage>::` form no circle, so that
/// each can be read knowing only those it names.
#[test]
fn no_module_circles_inside_a_stage() {
    let problems = circles(Path::new("src"), &stages());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A circle through `super::` is found: `tests/fixtures/layering/` holds a
/// stage whose `a` names `b` and whose `b` names `a`, and a folder inside
/// it whose `c` and `d` do the same.
#[test]
fn a_circle_through_super_is_found() {
    let got = circles(Path::new("tests/fixtures/layering"), &["stage".to_string()]);
    assert_eq!(
        got,
        [
            "stage/inner: c -> d -> c",
            "stage/inner: d -> c -> d",
            "stage: a -> b -> a",
            "stage: b -> a -> b",
        ]
    );
}

/// The circles among sibling modules of every folder of `stages` under
/// `root` (nested folders too), each as `folder: a -> b -> a`.
fn circles(root: &Path, stages: &[String]) -> Vec<String> {
    let mut problems = vec![];
    // Every folder of a stage, nested ones too (`data/load`).
    let mut folders: Vec<String> = stages.to_vec();
    let mut at = 0;
    while at < folders.len() {
        if let Ok(entries) = std::fs::read_dir(root.join(&folders[at])) {
            for e in entries {
                let path = e.unwrap().path();
                if path.is_dir() {
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    folders.push(format!("{}/{name}", folders[at]));
                }
            }
        }
        at += 1;
    }
    for stage in folders {
        let dir = root.join(&stage);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        // Each sibling module: its name and its files.
        let mut modules: Vec<(String, Vec<PathBuf>)> = vec![];
        for e in entries {
            let path = e.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if name == "mod" || name == "tests" {
                continue;
            }
            let files = sources_in(root, &format!("{stage}/{name}"));
            if !modules.iter().any(|(n, _)| *n == name) {
                modules.push((name, files));
            }
        }
        let names: BTreeSet<String> = modules.iter().map(|(n, _)| n.clone()).collect();
        let edges: Vec<(String, BTreeSet<String>)> = modules
            .iter()
            .map(|(name, files)| {
                let mut to = BTreeSet::new();
                for file in files {
                    let code = code(file);
                    to.extend(after(
                        &code,
                        &format!("crate::{}::", stage.replace('/', "::")),
                    ));
                    if file.parent() == Some(dir.as_path()) {
                        to.extend(after(&code, "super::"));
                    }
                }
                to.retain(|t| names.contains(t) && t != name);
                (name.clone(), to)
            })
            .collect();
        // A circle: a path from a module back to itself.
        for (start, _) in &edges {
            let mut seen = BTreeSet::new();
            let mut stack = vec![vec![start.clone()]];
            while let Some(path) = stack.pop() {
                let last = path.last().unwrap();
                let next = &edges.iter().find(|(n, _)| n == last).unwrap().1;
                for n in next {
                    if n == start {
                        problems.push(format!("{stage}: {} -> {start}", path.join(" -> ")));
                    } else if seen.insert(n.clone()) {
                        let mut longer = path.clone();
                        longer.push(n.clone());
                        stack.push(longer);
                    }
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// The files that may sit directly in `src/`: entry points, the command
/// line, and what every stage uses (errors, units).
const LOOSE: [&str; 5] = ["lib.rs", "main.rs", "cli.rs", "error.rs", "units.rs"];

#[test]
fn every_stage_is_a_folder() {
    let mut loose = vec![];
    for e in std::fs::read_dir("src").unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_file() && !LOOSE.contains(&name.as_str()) {
            loose.push(name);
        }
    }
    assert!(loose.is_empty(), "loose files in src/: {loose:?}");
    for stage in stages() {
        let file = format!("{stage}.rs");
        assert!(
            LOOSE.contains(&file.as_str()) || Path::new("src").join(&stage).is_dir(),
            "stage {stage} is not a folder"
        );
    }
}

#[test]
fn the_scanner_sees_grouped_and_nested_imports() {
    let got = named("use crate::{data::{A, B}, learn::X};\nlet x = crate::cv::f();");
    let want: BTreeSet<String> = ["data", "learn", "cv"].map(String::from).into();
    assert_eq!(got, want);
}
