//! The bytes every collective carries: a pattern that depends on the root,
//! the iteration and the message size, so a stale buffer, a shifted segment
//! or a message from another iteration all fail verification. A reduction's
//! contributions are floats built from the same pattern.

/// The pattern's seed for one broadcast.
pub fn seed(root: u32, iteration: u64, msg_bytes: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(u64::from(root)) ^ iteration) ^ msg_bytes)
}

/// Writes the pattern of `seed` into `buf`.
pub fn fill(buf: &mut [u8], seed: u64) {
    let mut words = buf.chunks_exact_mut(8);
    for (word, chunk) in (&mut words).enumerate() {
        chunk.copy_from_slice(&pattern_word(seed, word).to_le_bytes());
    }
    let whole = (buf.len() / 8) * 8;
    let tail = &mut buf[whole..];
    let last = pattern_word(seed, whole / 8).to_le_bytes();
    let n = tail.len();
    tail.copy_from_slice(&last[..n]);
}

/// The first byte of `buf` that differs from the pattern: (offset, expected,
/// found). Whole words compare as integers; only a word that differs is
/// searched byte by byte (every call of a timed point is checked, so the
/// check must cost no more than the fill).
pub fn first_mismatch(buf: &[u8], seed: u64) -> Option<(usize, u8, u8)> {
    let differs = |word: usize, chunk: &[u8]| {
        let expected = pattern_word(seed, word).to_le_bytes();
        chunk
            .iter()
            .zip(expected)
            .position(|(&found, want)| found != want)
            .map(|i| (word * 8 + i, expected[i], chunk[i]))
    };
    let whole = (buf.len() / 8) * 8;
    let (body, tail) = buf.split_at(whole);
    let wrong = body.chunks_exact(8).enumerate().find(|(word, chunk)| {
        let found = u64::from_le_bytes((*chunk).try_into().expect("8 bytes"));
        found != pattern_word(seed, *word)
    });
    match wrong {
        Some((word, chunk)) => differs(word, chunk),
        None => differs(whole / 8, tail),
    }
}

/// Rank `rank`'s contribution to a reduction, from float `first` of the
/// vector on (a reduce-scatter's block starts further in): float i is
/// nibble i mod 16 of pattern word i / 16 (one hash per 16 floats, as a
/// byte pattern has one per 8 bytes) + `rank mod 64`. Small whole numbers:
/// every sum of up to 200 000 ranks is exact in `f32` whatever the order
/// of additions, so the root can demand the exact result; the rank term
/// makes a missing or doubled contribution show.
pub fn fill_contribution(buf: &mut [u8], seed: u64, rank: u32, first: usize) {
    let value: [f32; 16] = std::array::from_fn(|n| (n as u32 + rank % 64) as f32);
    let mut word = pattern_word(seed, first / 16);
    for (k, float) in buf.chunks_exact_mut(4).enumerate() {
        let i = first + k;
        if i.is_multiple_of(16) {
            word = pattern_word(seed, i / 16);
        }
        float.copy_from_slice(&value[((word >> (4 * (i % 16))) & 0xf) as usize].to_ne_bytes());
    }
}

/// The first float of a reduction's result (from float `first` of the
/// vector on) that is not the sum of `procs` contributions: (float index
/// in the vector, expected, found).
pub fn first_sum_mismatch(
    buf: &[u8],
    seed: u64,
    procs: u32,
    first: usize,
) -> Option<(usize, f32, f32)> {
    let ranks: u64 = (0..procs).map(|r| u64::from(r % 64)).sum();
    let sum: [f32; 16] = std::array::from_fn(|n| (u64::from(procs) * n as u64 + ranks) as f32);
    let mut word = pattern_word(seed, first / 16);
    for (k, float) in buf.chunks_exact(4).enumerate() {
        let found = f32::from_ne_bytes(float.try_into().expect("4 bytes"));
        let i = first + k;
        if i.is_multiple_of(16) {
            word = pattern_word(seed, i / 16);
        }
        let expected = sum[((word >> (4 * (i % 16))) & 0xf) as usize];
        if found != expected {
            return Some((i, expected, found));
        }
    }
    None
}

fn pattern_word(seed: u64, word: usize) -> u64 {
    splitmix64(seed.wrapping_add(word as u64))
}

/// Steele et al.'s SplitMix64 finalizer: every input bit affects every
/// output bit, at about a nanosecond per word.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_buffer_verifies() {
        let mut buf = vec![0u8; 1003];
        fill(&mut buf, seed(3, 7, 1003));
        assert_eq!(first_mismatch(&buf, seed(3, 7, 1003)), None);
    }

    #[test]
    fn corruption_is_located() {
        let s = seed(0, 1, 4096);
        let mut buf = vec![0u8; 4096];
        fill(&mut buf, s);
        buf[2049] ^= 0x10;
        let (offset, expected, found) = first_mismatch(&buf, s).expect("mismatch");
        assert_eq!(offset, 2049);
        assert_eq!(expected ^ found, 0x10);
    }

    #[test]
    fn sums_of_contributions_verify_and_a_lost_one_is_found() {
        let (seed, procs, n) = (seed(2, 3, 64), 5u32, 64);
        let mut sum = vec![0f32; n / 4];
        for rank in 0..procs {
            let mut mine = vec![0u8; n];
            fill_contribution(&mut mine, seed, rank, 0);
            for (s, c) in sum.iter_mut().zip(mine.chunks_exact(4)) {
                *s += f32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        let bytes: Vec<u8> = sum.iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(first_sum_mismatch(&bytes, seed, procs, 0), None);
        // One rank short: every float is off by that rank's contribution.
        assert!(first_sum_mismatch(&bytes, seed, procs + 1, 0).is_some());
        // The same floats read as a later block of the vector.
        assert!(first_sum_mismatch(&bytes, seed, procs, 4).is_some());
        let mut doubled = bytes.clone();
        doubled[8..12].copy_from_slice(&(sum[2] + 1.0).to_ne_bytes());
        assert_eq!(
            first_sum_mismatch(&doubled, seed, procs, 0).map(|m| m.0),
            Some(2)
        );
    }

    #[test]
    fn stale_or_shifted_data_fails() {
        let n = 64 * 1024;
        let mut previous = vec![0u8; n];
        fill(&mut previous, seed(0, 4, n as u64));
        // The buffer of the previous iteration, another root, another size.
        assert!(first_mismatch(&previous, seed(0, 5, n as u64)).is_some());
        assert!(first_mismatch(&previous, seed(1, 4, n as u64)).is_some());
        assert!(first_mismatch(&previous, seed(0, 4, n as u64 + 1)).is_some());
        // A segment written 8 KiB too far.
        let mut shifted = previous.clone();
        shifted.copy_within(0..8192, 8192);
        assert_eq!(
            first_mismatch(&shifted, seed(0, 4, n as u64)).map(|m| m.0 / 8192),
            Some(1)
        );
    }
}
