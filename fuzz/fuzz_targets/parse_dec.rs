//! The `dec` scanner on arbitrary bytes: no panic, and every heap it
//! yields agrees with num-bigint limb by limb and window by window.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check_scanner(nimstream::Format::Dec, data);
});
