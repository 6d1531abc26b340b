//! Release binaries carry line tables for this project's code only
//! (Cargo.toml), which the linker compresses (zlib; Rust's backtraces read
//! them), and drop the local symbols: a panic's backtrace still names our
//! functions, files and lines from the line tables, while dependencies'
//! frames lose their names, in a binary a fourteenth the size
//! (experiments/binary_size.md).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // GNU ld's and lld's flags: Linux only (macOS's linker has neither).
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if linux && std::env::var("PROFILE").as_deref() == Ok("release") {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
        println!("cargo:rustc-link-arg-bins=-Wl,--discard-all");
    }
}
