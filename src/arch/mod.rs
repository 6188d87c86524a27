//! The hand-written kernels of the hot loops, each with a portable build,
//! and the one place that decides which builds this process runs.
//!
//! Each family of kernels is a folder: its `mod.rs` holds the interface,
//! the portable build (plain Rust or SWAR on 64-bit words, compiled for
//! every target and tested everywhere) and the dispatch; each build written
//! with `std::arch` intrinsics is a file of its own, named after the
//! features it needs (`avx2.rs`, `avx512.rs`).
//!
//! * [`token_end`]: where a `bits`, `hex` or `dec` token ends (the digit
//!   classes, the first non-digit; AVX2).
//! * [`hex_pack`]: a short `hex` token checked and packed into 64-bit
//!   groups in one pass (AVX2, AVX-512 VBMI).
//! * [`digits`]: any 64-bit limb of a binary or hex digit string or of
//!   little-endian bytes, and whole windows of them (AVX2).
//! * [`columns`]: per-bit-position counts of raw arrays with Harley–Seal
//!   carry-save adders (the portable loop recompiled with AVX2; AVX-512).
//! * [`raw_sums`]: the XOR, OR, zeros and ones of raw arrays' elements,
//!   and the holders of a bit (the portable loops recompiled with AVX2
//!   and AVX-512).
//! * [`grundy_words`]: the Grundy values of raw arrays' elements, from a
//!   table or modulo its period, XORed (AVX2, AVX-512 IFMA).
//! * [`grundy_pairs`]: the values of a heap's splits, eight heaps at once
//!   against a list of parts, and the walk of one heap's splits striking
//!   values off a target set (AVX-512, VBMI).
//! * [`xor_limbs`]: one limb slice XORed into another, with one loop exit
//!   (AVX-512).
//! * [`short_tokens`]: the short tokens of the text formats parsed 64
//!   bytes at a time into heaps and their offsets (AVX2; AVX-512 with
//!   VBMI2).
//! * `prefetch`: cache lines fetched ahead of their use (SSE, on every
//!   x86-64 CPU; nothing elsewhere).
//!
//! # Dispatch
//!
//! The CPU's features are detected once, on the first call of [`cpu`], and
//! cached for the life of the process; every dispatching function asks
//! [`cpu`] and calls the best build it allows, or the portable one. A SIMD
//! build is an `unsafe fn` whose `# Safety` section names the features it
//! needs, and [`cpu`] reports a feature only where the CPU has it, which is
//! the argument every dispatch's `SAFETY` comment makes.
//!
//! The environment variable `NIMSTREAM_SIMD` ([`SIMD_ENV`]), read once at
//! that detection, caps the builds used: `portable` (no SIMD), `avx2` (AVX2
//! at most) or `avx512` (everything the CPU has, the same as leaving it
//! unset or empty). A cap above what the CPU has changes nothing. The
//! library ignores a value it does not know (as if unset); the binary
//! checks the variable at start-up ([`simd_cap_from_env`]) and rejects such
//! a value as a usage error. The whole test suite runs under each cap in
//! CI; the kernel tests themselves run every build the CPU has
//! ([`Cpu::detected`]), whatever the cap.
//!
//! This module uses nothing else of the crate: the format scanners and the
//! accumulators call into it, never the other way round.
//!
//! [`token_end`]: crate::arch::token_end
//! [`hex_pack`]: crate::arch::hex_pack
//! [`digits`]: crate::arch::digits
//! [`columns`]: crate::arch::columns
//! [`grundy_words`]: crate::arch::grundy_words
//! [`grundy_pairs`]: crate::arch::grundy_pairs
//! [`raw_sums`]: crate::arch::raw_sums
//! [`xor_limbs`]: crate::arch::xor_limbs
//! [`short_tokens`]: crate::arch::short_tokens
//! [`cpu`]: crate::arch::cpu
//! [`SIMD_ENV`]: crate::arch::SIMD_ENV
//! [`simd_cap_from_env`]: crate::arch::simd_cap_from_env
//! [`Cpu::detected`]: crate::arch::Cpu::detected

pub mod columns;
pub mod digits;
pub mod grundy_pairs;
pub mod grundy_words;
pub mod hex_pack;
pub mod prefetch;
pub mod raw_sums;
pub mod short_tokens;
pub mod token_end;
pub mod xor_limbs;

use std::ffi::OsStr;
use std::sync::OnceLock;

/// The environment variable that caps the SIMD builds used.
pub const SIMD_ENV: &str = "NIMSTREAM_SIMD";

/// The most a process may use of the CPU's SIMD, from [`SIMD_ENV`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdCap {
    /// The portable builds only.
    Portable,
    /// AVX2 at most.
    Avx2,
    /// Everything the CPU has.
    Avx512,
}

impl SimdCap {
    /// Parses a value of [`SIMD_ENV`]: `portable`, `avx2` or `avx512`.
    pub fn parse(value: &str) -> Result<SimdCap, String> {
        match value {
            "portable" => Ok(SimdCap::Portable),
            "avx2" => Ok(SimdCap::Avx2),
            "avx512" => Ok(SimdCap::Avx512),
            _ => Err(format!(
                "unknown {SIMD_ENV} value '{value}': expected portable, avx2 or avx512"
            )),
        }
    }

    /// The cap a value of [`SIMD_ENV`] sets: none (`Avx512`) if it is
    /// unset or empty, an error if it is not one of the three names.
    fn from_setting(value: Option<&OsStr>) -> Result<SimdCap, String> {
        match value {
            None => Ok(SimdCap::Avx512),
            Some(value) if value.is_empty() => Ok(SimdCap::Avx512),
            Some(value) => SimdCap::parse(&value.to_string_lossy()),
        }
    }
}

/// The cap [`SIMD_ENV`] sets in this process's environment, or the error
/// for an unknown value (which the binary reports as a usage error; the
/// library goes on as if the variable were unset).
pub fn simd_cap_from_env() -> Result<SimdCap, String> {
    SimdCap::from_setting(std::env::var_os(SIMD_ENV).as_deref())
}

/// The SIMD features the kernels may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// SSE2: baseline on x86_64, so present there unless the cap is
    /// `portable`.
    pub sse2: bool,
    /// AVX2 with BMI1, BMI2, LZCNT and POPCNT, which every CPU with AVX2
    /// has beside it: the short-token blocks' AVX2 build uses both.
    pub avx2: bool,
    /// AVX-512 F and BW with POPCNT: what the column counter needs.
    pub avx512: bool,
    /// AVX-512 F and BW with VBMI (byte permutes): what the hex packer
    /// needs.
    pub avx512_vbmi: bool,
    /// AVX-512 F and BW with POPCNT and IFMA (52-bit multiplies): what the
    /// Grundy values' reduction needs.
    pub avx512_ifma: bool,
    /// AVX-512 F, BW and DQ with VBMI, VBMI2 (byte compress and expand)
    /// and IFMA, BMI1, BMI2, LZCNT and POPCNT: what the short-token blocks
    /// need (every CPU with VBMI2 has IFMA).
    pub avx512_vbmi2: bool,
}

impl Cpu {
    /// No SIMD at all: every kernel runs its portable build.
    pub const PORTABLE: Cpu = Cpu {
        sse2: false,
        avx2: false,
        avx512: false,
        avx512_vbmi: false,
        avx512_ifma: false,
        avx512_vbmi2: false,
    };

    /// What this CPU has, whatever the cap: for the tests and benchmarks
    /// that run every build side by side. The kernels use [`cpu`].
    pub fn detected() -> Cpu {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx512_base = has!("avx512f") && has!("avx512bw");
            Cpu {
                sse2: true,
                avx2: has!("avx2")
                    && has!("bmi1")
                    && has!("bmi2")
                    && has!("lzcnt")
                    && has!("popcnt"),
                avx512: avx512_base && has!("popcnt"),
                avx512_vbmi: avx512_base && has!("avx512vbmi"),
                avx512_ifma: avx512_base && has!("popcnt") && has!("avx512ifma"),
                avx512_vbmi2: avx512_base
                    && has!("avx512dq")
                    && has!("avx512vbmi")
                    && has!("avx512vbmi2")
                    && has!("avx512ifma")
                    && has!("bmi1")
                    && has!("bmi2")
                    && has!("lzcnt")
                    && has!("popcnt"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Cpu::PORTABLE
    }

    /// The features of `self` that `cap` allows: a cap only ever takes
    /// features away, so whatever the result reports, the CPU has.
    pub fn capped(self, cap: SimdCap) -> Cpu {
        Cpu {
            sse2: self.sse2 && cap >= SimdCap::Avx2,
            avx2: self.avx2 && cap >= SimdCap::Avx2,
            avx512: self.avx512 && cap >= SimdCap::Avx512,
            avx512_vbmi: self.avx512_vbmi && cap >= SimdCap::Avx512,
            avx512_ifma: self.avx512_ifma && cap >= SimdCap::Avx512,
            avx512_vbmi2: self.avx512_vbmi2 && cap >= SimdCap::Avx512,
        }
    }
}

/// The features the kernels use: the CPU's, capped by [`SIMD_ENV`],
/// detected on the first call and cached.
#[inline]
pub fn cpu() -> Cpu {
    static USED: OnceLock<Cpu> = OnceLock::new();
    *USED.get_or_init(|| {
        let cap = simd_cap_from_env().unwrap_or(SimdCap::Avx512);
        Cpu::detected().capped(cap)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination of the six features.
    fn every_cpu() -> impl Iterator<Item = Cpu> {
        (0..64).map(|bits: u8| Cpu {
            avx2: bits & 1 != 0,
            avx512: bits & 2 != 0,
            avx512_vbmi: bits & 4 != 0,
            avx512_ifma: bits & 8 != 0,
            sse2: bits & 16 != 0,
            avx512_vbmi2: bits & 32 != 0,
        })
    }

    const CAPS: [SimdCap; 3] = [SimdCap::Portable, SimdCap::Avx2, SimdCap::Avx512];

    #[test]
    fn a_cap_never_adds_a_feature_the_cpu_lacks() {
        for detected in every_cpu() {
            for cap in CAPS {
                let used = detected.capped(cap);
                assert!(!used.sse2 || detected.sse2, "{detected:?} {cap:?}");
                assert!(!used.avx2 || detected.avx2, "{detected:?} {cap:?}");
                assert!(!used.avx512 || detected.avx512, "{detected:?} {cap:?}");
                assert!(
                    !used.avx512_vbmi || detected.avx512_vbmi,
                    "{detected:?} {cap:?}"
                );
                assert!(
                    !used.avx512_ifma || detected.avx512_ifma,
                    "{detected:?} {cap:?}"
                );
                assert!(
                    !used.avx512_vbmi2 || detected.avx512_vbmi2,
                    "{detected:?} {cap:?}"
                );
            }
        }
    }

    #[test]
    fn each_cap_keeps_what_it_names_and_drops_what_is_above() {
        for detected in every_cpu() {
            assert_eq!(detected.capped(SimdCap::Portable), Cpu::PORTABLE);
            assert_eq!(
                detected.capped(SimdCap::Avx2),
                Cpu {
                    sse2: detected.sse2,
                    avx2: detected.avx2,
                    ..Cpu::PORTABLE
                }
            );
            assert_eq!(detected.capped(SimdCap::Avx512), detected);
        }
    }

    #[test]
    fn the_features_used_are_the_detected_ones_capped() {
        let cap = simd_cap_from_env().unwrap_or(SimdCap::Avx512);
        assert_eq!(cpu(), Cpu::detected().capped(cap));
    }

    #[test]
    fn the_three_names_parse_and_others_are_errors_naming_the_variable() {
        assert_eq!(SimdCap::parse("portable"), Ok(SimdCap::Portable));
        assert_eq!(SimdCap::parse("avx2"), Ok(SimdCap::Avx2));
        assert_eq!(SimdCap::parse("avx512"), Ok(SimdCap::Avx512));
        for bad in ["AVX2", "sse2", "avx-512", " avx2", "none"] {
            let error = SimdCap::parse(bad).unwrap_err();
            assert_eq!(
                error,
                format!("unknown NIMSTREAM_SIMD value '{bad}': expected portable, avx2 or avx512")
            );
        }
    }

    #[test]
    fn an_unset_or_empty_variable_caps_nothing() {
        assert_eq!(SimdCap::from_setting(None), Ok(SimdCap::Avx512));
        assert_eq!(
            SimdCap::from_setting(Some(OsStr::new(""))),
            Ok(SimdCap::Avx512)
        );
        assert_eq!(
            SimdCap::from_setting(Some(OsStr::new("avx2"))),
            Ok(SimdCap::Avx2)
        );
        assert!(SimdCap::from_setting(Some(OsStr::new("bogus"))).is_err());
    }
}
