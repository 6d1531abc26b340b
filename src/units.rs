//! Byte sizes as people write them: `8K`, `4MiB`, `1048576`.

/// Parses a byte count with an optional binary suffix (K, M, G, with or
/// without `i`/`B`; case-insensitive). `8K` = 8192.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let value: u64 = digits
        .parse()
        .map_err(|_| format!("expected a byte count such as 1024, 8K or 4M, found {s:?}"))?;
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "ki" | "kib" => 10,
        "m" | "mb" | "mi" | "mib" => 20,
        "g" | "gb" | "gi" | "gib" => 30,
        _ => return Err(format!("unknown size suffix in {s:?}; expected K, M or G")),
    };
    value
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("size {s:?} is too large"))
}

/// A list of sizes: comma-separated sizes or ranges `FROM:TO:xF` (times F)
/// and `FROM:TO:+S` (plus S), e.g. `1:4M:x4` or `0,1K:8K:+1K`. The sizes
/// must increase from left to right.
pub fn parse_size_list(s: &str) -> Result<Vec<u64>, String> {
    let mut out: Vec<u64> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let parts: Vec<&str> = item.split(':').collect();
        let (before, start) = (out.last().copied(), out.len());
        match parts.as_slice() {
            [one] => out.push(parse_bytes(one)?),
            [from, to, step] => {
                let (from, to) = (parse_bytes(from)?, parse_bytes(to)?);
                if from > to {
                    return Err(format!("range {item:?} runs backwards"));
                }
                let next: Box<dyn Fn(u64) -> Option<u64>> = if let Some(f) = step.strip_prefix('x')
                {
                    let f: u64 = f.parse().ok().filter(|f| *f >= 2).ok_or_else(|| {
                        format!("range {item:?}: expected a factor of at least 2 after 'x'")
                    })?;
                    if from == 0 {
                        return Err(format!(
                            "range {item:?}: a geometric range cannot start at 0"
                        ));
                    }
                    Box::new(move |v| v.checked_mul(f))
                } else if let Some(inc) = step.strip_prefix('+') {
                    let inc = parse_bytes(inc).ok().filter(|i| *i > 0).ok_or_else(|| {
                        format!("range {item:?}: expected a positive step after '+'")
                    })?;
                    Box::new(move |v| v.checked_add(inc))
                } else {
                    return Err(format!(
                        "range {item:?}: expected a step like x4 (times 4) or +1K (plus 1 KiB)"
                    ));
                };
                let mut v = Some(from);
                while let Some(x) = v.filter(|x| *x <= to) {
                    out.push(x);
                    if out.len() > 100_000 {
                        return Err(format!("range {item:?} has too many sizes"));
                    }
                    v = next(x);
                }
            }
            _ => return Err(format!("{item:?}: expected a size or FROM:TO:STEP")),
        }
        if let (Some(prev), Some(&first)) = (before, out.get(start)) {
            if first <= prev {
                return Err(format!(
                    "sizes must increase from left to right: {item:?} comes after {prev}"
                ));
            }
        }
    }
    if out.is_empty() {
        return Err("expected at least one size".into());
    }
    Ok(out)
}

/// `1536` → `1.5 KiB`; exact powers print without decimals (`4 MiB`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("8K"), Ok(8192));
        assert_eq!(parse_bytes("4MiB"), Ok(4 << 20));
        assert_eq!(parse_bytes(" 17 "), Ok(17));
        assert_eq!(parse_bytes("1g"), Ok(1 << 30));
        assert!(parse_bytes("-1").is_err());
        assert!(parse_bytes("3T").is_err());
        assert!(parse_bytes("").is_err());
    }

    #[test]
    fn size_lists_and_ranges() {
        assert_eq!(parse_size_list("1:4M:x4").unwrap().len(), 12);
        assert_eq!(parse_size_list("1, 8, 1K").unwrap(), [1, 8, 1024]);
        assert_eq!(
            parse_size_list("0:3K:+1K,4K").unwrap(),
            [0, 1024, 2048, 3072, 4096]
        );
        assert!(parse_size_list("8,1").is_err());
        assert!(parse_size_list("0:3K:+1K,2K").is_err());
        assert!(parse_size_list("4,4").is_err());
        assert!(parse_size_list("0:4M:x2").is_err());
        assert!(parse_size_list("8:1:x2").is_err());
        assert!(parse_size_list("1:8:y2").is_err());
        assert!(parse_size_list("").is_err());
    }

    #[test]
    fn sizes_format_compactly() {
        assert_eq!(format_bytes(1), "1 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(4 << 20), "4 MiB");
    }
}
