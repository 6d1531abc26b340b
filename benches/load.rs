//! Loading speed of the benchmark CSV loader: a campaign file of
//! `data/` (default `data/local-2core.csv`; `LOAD=path` another, e.g. a
//! public campaign of 13,755 rows, whose target was < 200 ms in a release
//! build). Prints the figures; asserts nothing. Run: cargo bench --bench load

use collsel::data::load::load_file;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let path = PathBuf::from(std::env::var("LOAD").unwrap_or("data/local-2core.csv".into()));
    let runs = 20;
    let mut times = Vec::with_capacity(runs);
    let mut rows = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let loaded = load_file(&path).expect("the file must load");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        rows = loaded.dataset.rows;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "load {} ({rows} rows): median {:.2} ms, min {:.2} ms, max {:.2} ms over {runs} runs",
        path.display(),
        times[runs / 2],
        times[0],
        times[runs - 1]
    );
}
