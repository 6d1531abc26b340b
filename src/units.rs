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
    fn sizes_format_compactly() {
        assert_eq!(format_bytes(1), "1 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(4 << 20), "4 MiB");
    }
}
