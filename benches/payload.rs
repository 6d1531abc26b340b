//! Cost of filling and checking a payload, paid on every rank in every
//! timed iteration of `bench`, `tune` and `verify` (untimed, but it is
//! wall time of the budget): a byte pattern and a reduction's
//! contribution, 4 MiB each. Prints the figures; asserts nothing. Run:
//! cargo bench --bench payload

use collsel::bench::payload;
use std::time::Instant;

/// Median microseconds of `f` over `runs` calls.
fn median_us(runs: usize, mut f: impl FnMut(u64)) -> f64 {
    let mut times: Vec<f64> = (0..runs as u64)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let mut buf = vec![0u8; 4 << 20];
    let runs = 50;
    let fill = median_us(runs, |i| payload::fill(&mut buf, i));
    payload::fill(&mut buf, 7);
    let check = median_us(runs, |_| {
        assert!(std::hint::black_box(payload::first_mismatch(&buf, 7)).is_none())
    });
    let contribution = median_us(runs, |i| payload::fill_contribution(&mut buf, i, 3, 0));
    payload::fill_contribution(&mut buf, 7, 0, 0);
    let sum = median_us(runs, |_| {
        let wrong = payload::first_sum_mismatch(&buf, 7, 1, 0);
        assert!(std::hint::black_box(wrong).is_none())
    });
    println!(
        "payload of 4 MiB, median of {runs}: fill {fill:.0} us, check {check:.0} us; \
         reduction contribution {contribution:.0} us, sum check {sum:.0} us"
    );
}
