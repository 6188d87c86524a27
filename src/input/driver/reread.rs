//! Reading one heap again, where an earlier pass found it: the move's heap
//! when the first pass did not keep it whole; or one byte of it (a digit
//! of a long token the first pass left in the file).

use super::fold::{At, Fold};
use super::pass::{Reads, Stop};
use super::positioned::Positioned;
use crate::error::Error;
use crate::input::format::Format;
use crate::input::formats::any::Scanner;
use crate::input::heap::{Heap, HeapValue};
use crate::input::long::pieces::LongHeap;
use crate::input::scanner::HeapScanner;
use crate::input::source::file_changes;
use crate::input::source::page_release::PageReleaser;
use crate::input::source::{FileInput, Input, RandomAccess};

/// A heap read again, where an earlier pass found it.
pub struct Reread<'a> {
    /// The heap.
    pub heap: Heap<'a>,
    /// Releases the pages it lies in, when it lies in a map.
    pub pages: PageReleaser<'a>,
    /// The bytes read to find it.
    pub bytes_read: u64,
}

/// The byte at `offset` of an input read at any offset (one digit of a
/// heap an earlier pass left in the file).
pub(crate) fn byte_at(input: &Input<'_>, offset: u64) -> Result<u8, Error> {
    let mut byte = [0u8];
    input
        .random_access()
        .expect("only an input read again holds heaps to reread")
        .read_exact_at(&mut byte, offset)?;
    Ok(byte[0])
}

/// Reads the heap that starts at `offset` again (an earlier pass found it
/// there), as `reads` say a pass reads: in place from bytes in memory or
/// the map, else with positioned reads into limbs (a `bits` or `hex` token
/// in pieces).
pub fn heap_at<'a>(
    input: &'a Input<'_>,
    format: Format,
    offset: u64,
    reads: &Reads,
) -> Result<Reread<'a>, Error> {
    let source = input
        .random_access()
        .expect("only an input read again holds heaps to reread");
    let (data, pages) = match (source.in_place(reads.heaps_in_place), source) {
        (Some(place), _) => (place.bytes, place.pages),
        (None, RandomAccess::File(file)) => {
            return reread_positioned(input, file, format, offset, reads)
        }
        (None, RandomAccess::Memory(_)) => unreachable!("bytes in memory are read in place"),
    };
    let mut scanner = Scanner::new(format, &data[offset as usize..], offset).releasing(pages);
    let gone = || file_changes::changed(input.name(), "a heap read before is gone");
    let heap = scanner
        .next_heap()
        .map_err(|e| input.parse_error(format, e))?
        .ok_or_else(gone)?;
    Ok(Reread {
        heap,
        pages,
        bytes_read: scanner.consumed() as u64,
    })
}

/// [`heap_at`] with positioned reads: the heap's limbs.
pub(super) fn reread_positioned<'a>(
    input: &'a Input<'_>,
    file: &FileInput,
    format: Format,
    offset: u64,
    reads: &Reads,
) -> Result<Reread<'a>, Error> {
    let mut first = FirstHeap(None);
    let range = offset..file.stamp().len_at_open();
    let read = Positioned::new(file, format, reads).read(range, &mut first, &mut 0);
    let bytes_read = match read {
        Ok(bytes) | Err((Stop::Done, bytes)) => bytes,
        Err((Stop::Parse(error), _)) => return Err(input.parse_error(format, error)),
        Err((Stop::Failed(error), _)) => return Err(error),
    };
    let gone = || file_changes::changed(input.name(), "a heap read before is gone");
    let value = HeapValue::Limbs(first.0.ok_or_else(gone)?);
    Ok(Reread {
        heap: Heap { offset, value },
        pages: PageReleaser::NONE,
        bytes_read,
    })
}

/// Keeps the first heap of a range, as limbs, and stops.
struct FirstHeap(Option<Vec<u64>>);

impl Fold for FirstHeap {
    fn heap(&mut self, _: u64, heap: &Heap<'_>, _: &mut At<'_>) -> Result<(), Error> {
        self.0 = Some(heap.value.to_limbs());
        Ok(())
    }

    /// Keeps a token read in pieces as its limbs, turned in place.
    fn long_heap(&mut self, _: u64, long: LongHeap, _: &mut At<'_>) -> Result<Vec<u64>, Error> {
        self.0 = Some(long.into_limbs());
        Ok(Vec::new())
    }

    fn done(&self) -> bool {
        self.0.is_some()
    }

    fn merge(&mut self, _: Self, _: u64) -> Result<(), Error> {
        unreachable!("one range is read")
    }
}
