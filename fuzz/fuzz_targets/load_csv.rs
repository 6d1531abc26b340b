//! The benchmark-CSV loader must turn any bytes into a dataset or an error,
//! never a panic. Run: cargo fuzz run load_csv (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = collsel::data::load::parse_csv(Path::new("fuzz.csv"), data);
});
