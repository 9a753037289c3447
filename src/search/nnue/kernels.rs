//! The network's vector loops (accumulator updates and the output layer), each compiled twice:
//! plain, and for AVX2, chosen at run time when the CPU has it. The accumulator loops are plain
//! Rust written so the compiler vectorises them. The output layer's AVX2 copy is written with
//! intrinsics (the compiler's own version multiplied in 32 bits, a fifth of the search's time):
//! it squares the clipped neurons in 16 bits and multiplies with `vpmaddwd`, exactly (see
//! `avx2::output`). The generic copies are the reference the AVX2 ones must match.

use super::{HIDDEN, QA};

#[inline(always)]
fn add_generic(acc: &mut [i16], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline(always)]
fn sub_generic(acc: &mut [i16], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

/// `out = before + add - sub`, in one pass.
#[inline(always)]
fn add_sub_generic(out: &mut [i16], before: &[i16], add: &[i16], sub: &[i16]) {
    for (((o, &b), &a), &s) in out.iter_mut().zip(before).zip(add).zip(sub) {
        *o = b.wrapping_add(a).wrapping_sub(s);
    }
}

/// `out = before + add - sub1 - sub2`, in one pass.
#[inline(always)]
fn add_sub2_generic(out: &mut [i16], before: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    let rows = before.iter().zip(add).zip(sub1).zip(sub2);
    for (o, (((&b, &a), &s1), &s2)) in out.iter_mut().zip(rows) {
        *o = b.wrapping_add(a).wrapping_sub(s1).wrapping_sub(s2);
    }
}

/// Σ clamp(v, 0, QA)² · w, exactly for any weights: each product fits in `i32` (QA² · 2¹⁵ <
/// 2³¹) and they are summed in `i64`.
#[inline(always)]
fn output_generic(acc: &[i16], weights: &[i16]) -> i64 {
    acc.iter()
        .zip(weights)
        .map(|(&v, &w)| {
            let c = i32::from(v.clamp(0, QA as i16));
            i64::from(c * c * i32::from(w))
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    #[target_feature(enable = "avx2")]
    pub unsafe fn add(acc: &mut [i16], row: &[i16]) {
        super::add_generic(acc, row)
    }
    #[target_feature(enable = "avx2")]
    pub unsafe fn sub(acc: &mut [i16], row: &[i16]) {
        super::sub_generic(acc, row)
    }
    #[target_feature(enable = "avx2")]
    pub unsafe fn add_sub(out: &mut [i16], before: &[i16], add: &[i16], sub: &[i16]) {
        super::add_sub_generic(out, before, add, sub)
    }
    #[target_feature(enable = "avx2")]
    pub unsafe fn add_sub2(
        out: &mut [i16],
        before: &[i16],
        add: &[i16],
        sub1: &[i16],
        sub2: &[i16],
    ) {
        super::add_sub2_generic(out, before, add, sub1, sub2)
    }
    /// Σ clamp(v, 0, QA)² · w, sixteen neurons at a time. With c = clamp(v, 0, QA) ≤ 255, c²
    /// ≤ 65025 is exact in the low 16 bits of `vpmullw`, and x = c² − 32767 fits in `i16`
    /// (−32767 to 32258), so `vpmaddwd` gives x·w summed in pairs without overflow (at most
    /// 2 · 32767 · 32768 < 2³¹). Then Σ c²·w = Σ x·w + 32767 · Σ w, with Σ w from a second
    /// `vpmaddwd` against ones (each lane grows by at most 2¹⁶ a step). The pair sums go to
    /// `i64` lanes every step, so any number of neurons and any weights are exact.
    #[target_feature(enable = "avx2")]
    pub unsafe fn output(acc: &[i16], weights: &[i16]) -> i64 {
        use std::arch::x86_64::*;
        const OFFSET: i16 = i16::MAX;
        let n = acc.len().min(weights.len()) / 16 * 16;
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(super::QA as i16);
        let offset = _mm256_set1_epi16(OFFSET);
        let ones = _mm256_set1_epi16(1);
        let mut total = _mm256_setzero_si256();
        let mut weight_sum = _mm256_setzero_si256();
        for i in (0..n).step_by(16) {
            // SAFETY: i + 16 <= n <= both lengths; unaligned loads.
            let v = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
            let w = _mm256_loadu_si256(weights.as_ptr().add(i).cast());
            let c = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            let x = _mm256_sub_epi16(_mm256_mullo_epi16(c, c), offset);
            let pairs = _mm256_madd_epi16(x, w);
            let low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(pairs));
            let high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(pairs));
            total = _mm256_add_epi64(total, _mm256_add_epi64(low, high));
            weight_sum = _mm256_add_epi32(weight_sum, _mm256_madd_epi16(w, ones));
        }
        let mut lanes = [0i64; 4];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), total);
        let mut sums = [0i32; 8];
        _mm256_storeu_si256(sums.as_mut_ptr().cast(), weight_sum);
        let sum_w: i64 = sums.iter().map(|&s| i64::from(s)).sum();
        lanes.iter().sum::<i64>()
            + i64::from(OFFSET) * sum_w
            + super::output_generic(&acc[n..], &weights[n..])
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[inline]
pub fn add(acc: &mut [i16; HIDDEN], row: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::add(acc, row) };
    }
    add_generic(acc, row)
}

#[inline]
pub fn sub(acc: &mut [i16; HIDDEN], row: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::sub(acc, row) };
    }
    sub_generic(acc, row)
}

#[inline]
pub fn add_sub(out: &mut [i16; HIDDEN], before: &[i16; HIDDEN], add: &[i16], sub: &[i16]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::add_sub(out, before, add, sub) };
    }
    add_sub_generic(out, before, add, sub)
}

#[inline]
pub fn add_sub2(
    out: &mut [i16; HIDDEN],
    before: &[i16; HIDDEN],
    add: &[i16],
    sub1: &[i16],
    sub2: &[i16],
) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::add_sub2(out, before, add, sub1, sub2) };
    }
    add_sub2_generic(out, before, add, sub1, sub2)
}

#[inline]
pub fn output(acc: &[i16; HIDDEN], weights: &[i16]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::output(acc, weights) };
    }
    output_generic(acc, weights)
}

/// Which build of the loops runs on this CPU, for the engine's banner.
pub fn name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        return "avx2";
    }
    "generic"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_loops_are_exact_at_the_extremes() {
        // Neurons below zero, in range and above QA; weights at both ends of `i16`.
        let acc: [i16; HIDDEN] = std::array::from_fn(|i| match i % 5 {
            0 => i16::MIN,
            1 => 0,
            2 => QA as i16,
            3 => i16::MAX,
            _ => (i as i16 * 7) % 300 - 20,
        });
        for weights in [
            [i16::MIN; HIDDEN],
            [i16::MAX; HIDDEN],
            std::array::from_fn(|i| if i % 2 == 0 { i16::MIN } else { i16::MAX }),
            std::array::from_fn(|i| (i as i16).wrapping_mul(12_345)),
        ] {
            let exact: i64 = acc
                .iter()
                .zip(&weights)
                .map(|(&v, &w)| {
                    let c = i64::from(v.clamp(0, QA as i16));
                    c * c * i64::from(w)
                })
                .sum();
            assert_eq!(output_generic(&acc, &weights), exact);
            assert_eq!(output(&acc, &weights), exact);
        }
    }

    #[test]
    fn one_pass_updates_match_the_step_by_step_ones() {
        let row = |seed: i32| -> Vec<i16> {
            (0..HIDDEN as i32)
                .map(|i| ((i * 37 + seed * 101) % 4001 - 2000) as i16)
                .collect()
        };
        let before: [i16; HIDDEN] = std::array::from_fn(|i| (i as i16).wrapping_mul(251));
        let (a, s1, s2) = (row(1), row(2), row(3));
        let mut expected = before;
        add(&mut expected, &a);
        sub(&mut expected, &s1);
        let mut out = [0i16; HIDDEN];
        add_sub(&mut out, &before, &a, &s1);
        assert_eq!(out, expected);
        let mut plain = [0i16; HIDDEN];
        add_sub_generic(&mut plain, &before, &a, &s1);
        assert_eq!(plain, expected);
        sub(&mut expected, &s2);
        add_sub2(&mut out, &before, &a, &s1, &s2);
        assert_eq!(out, expected);
        add_sub2_generic(&mut plain, &before, &a, &s1, &s2);
        assert_eq!(plain, expected);
    }
}
