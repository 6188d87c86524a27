//! The two plain loops over a block of raw-array elements (`u8`,
//! `u16le`, `u32le`, `u64le`): [`sums`] (their XOR, and the tally of their
//! OR, zeros and ones) and [`holders`] (how many have a given bit set).
//!
//! Both are portable Rust that the compiler vectorises; the x86_64 builds
//! are the same loops recompiled for AVX2 and for AVX-512, because the
//! baseline's SSE2 has no 64-bit compare: a `u64le` pass through a map ran
//! at about half of `cat`'s throughput on the instruction count alone.

use super::columns::{load, BlockTally};

/// The XOR of the elements of `data` (each `width` bytes, little-endian;
/// `width` is 1, 2, 4 or 8), and the tally of their OR, zeros and ones.
pub fn sums(data: &[u8], width: usize) -> (u64, BlockTally) {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512 {
            // SAFETY: `cpu()` reports AVX-512 (F and BW) only where the CPU
            // has it; the build only differs from the portable one in the
            // instructions it may use.
            return unsafe { sums_avx512(data, width) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it; the
            // build only differs from the portable one in its instructions.
            return unsafe { sums_avx2(data, width) };
        }
    }
    sums_portable(data, width)
}

/// How many elements of `data` (each `width` bytes) have a bit of `mask`.
pub fn holders(data: &[u8], width: usize, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512 {
            // SAFETY: as in `sums`: AVX-512 F and BW are on this CPU.
            return unsafe { holders_avx512(data, width, mask) };
        }
        if cpu.avx2 {
            // SAFETY: as in `sums`: AVX2 is on this CPU.
            return unsafe { holders_avx2(data, width, mask) };
        }
    }
    holders_portable(data, width, mask)
}

/// [`sums`] without SIMD beyond the target's baseline; the builds below
/// are this loop recompiled.
#[inline(always)]
fn sums_portable(data: &[u8], width: usize) -> (u64, BlockTally) {
    match width {
        1 => sums_width::<1>(data),
        2 => sums_width::<2>(data),
        4 => sums_width::<4>(data),
        _ => sums_width::<8>(data),
    }
}

/// [`sums`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sums_avx2(data: &[u8], width: usize) -> (u64, BlockTally) {
    sums_portable(data, width)
}

/// [`sums`] compiled for AVX-512.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn sums_avx512(data: &[u8], width: usize) -> (u64, BlockTally) {
    sums_portable(data, width)
}

/// [`holders`] without SIMD beyond the target's baseline; the builds
/// below are this loop recompiled.
#[inline(always)]
fn holders_portable(data: &[u8], width: usize, mask: u64) -> u64 {
    match width {
        1 => holders_width::<1>(data, mask),
        2 => holders_width::<2>(data, mask),
        4 => holders_width::<4>(data, mask),
        _ => holders_width::<8>(data, mask),
    }
}

/// [`holders`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn holders_avx2(data: &[u8], width: usize, mask: u64) -> u64 {
    holders_portable(data, width, mask)
}

/// [`holders`] compiled for AVX-512.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn holders_avx512(data: &[u8], width: usize, mask: u64) -> u64 {
    holders_portable(data, width, mask)
}

/// The loop of [`sums`], monomorphised per width so that it vectorises.
#[inline(always)]
fn sums_width<const W: usize>(data: &[u8]) -> (u64, BlockTally) {
    let (mut xor, mut tally) = (0, BlockTally::default());
    for chunk in data.chunks_exact(W) {
        let v = load::<W>(chunk);
        xor ^= v;
        tally.or |= v;
        tally.zeros += u64::from(v == 0);
        tally.ones += u64::from(v == 1);
    }
    (xor, tally)
}

/// The loop of [`holders`], monomorphised per width so that it vectorises.
#[inline(always)]
fn holders_width<const W: usize>(data: &[u8], mask: u64) -> u64 {
    data.chunks_exact(W)
        .map(|chunk| u64::from(load::<W>(chunk) & mask != 0))
        .sum()
}

#[cfg(test)]
mod tests;
