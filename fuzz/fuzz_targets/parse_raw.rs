//! The raw array scanner on arbitrary bytes, the first byte choosing the
//! width (u8, u16le, u32le, u64le): no panic, and every heap it yields
//! agrees with num-bigint limb by limb and window by window.
#![no_main]

mod common;

use nimstream::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&choice, data)) = data.split_first() else {
        return;
    };
    let widths = [Format::U8, Format::U16le, Format::U32le, Format::U64le];
    common::check_scanner(widths[usize::from(choice) % widths.len()], data);
});
