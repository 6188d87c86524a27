//! The winning move of SPEC section 1 on the heap the rules chose: the
//! value to leave there and the number of tokens taken, written to
//! `--move-out` as they are found.
//!
//! The move of normal play (and of misère with two heaps ≥ 2 or more)
//! leaves x ⊕ g on the first holder x of the nim-sum's msb. Both may be
//! longer than memory, so [`XorMove`] takes the nim-sum a window at a
//! time, most significant first, as the windowed passes produce it (the
//! one pass hands over the whole nim-sum as one window): the target's limbs
//! stream to `--move-out`, its low limbs are kept for the report, and the
//! removed amount's bit length is found on the way ([`RemoveLength`]). A
//! heap left in the file by the one pass is read only when its top limbs do
//! not already decide what the report needs ([`lengths_from_top`]).
//! Misère's other moves leave 0 or 1 ([`small_move`]).

use super::candidates::HeapInFile;
use super::streamed_values::{subtract_low_limbs, RemoveLength, TopDownValue};
use crate::analysis::facts::{MoveFacts, Number};
use crate::analysis::options::Options;
use crate::error::Error;
use crate::input::source::page_release::PageReleaser;
use crate::input::{HeapPos, HeapValue};
use crate::output::BitsFile;
use std::convert::Infallible;

/// The move x → x ⊕ g, built as the windows of g arrive.
pub struct XorMove<'x> {
    pos: HeapPos,
    x: HeapValue<'x>,
    /// Releases the pages behind x when it lies in a map.
    pages: PageReleaser<'x>,
    target: TopDownValue,
    remove: RemoveLength,
}

impl<'x> XorMove<'x> {
    /// Starts the move on heap `x` at `pos`, whose limbs from `above` up
    /// lie above every window of the nim-sum still to come (the nim-sum is
    /// 0 there, so they are the target's); `capture` bits of the target
    /// are kept for the report.
    pub fn start(
        pos: HeapPos,
        x: HeapValue<'x>,
        pages: PageReleaser<'x>,
        capture: u64,
        options: &Options,
        above: u64,
    ) -> Result<XorMove<'x>, Error> {
        let file = options
            .move_out
            .as_deref()
            .map(BitsFile::create)
            .transpose()?;
        let mut target = TopDownValue::new(capture, file);
        pages.in_steps(&x, above..x.bit_length().div_ceil(64), |limbs| {
            limbs.rev().try_for_each(|i| target.push(i, x.limb(i)))
        })?;
        Ok(XorMove {
            pos,
            x,
            pages,
            target,
            remove: RemoveLength::default(),
        })
    }

    /// Takes the nim-sum's limbs `first ..` (windows come top-down): the
    /// target's limbs there are g ⊕ x.
    pub fn absorb(&mut self, first: u64, g: &[u64]) -> Result<(), Error> {
        let limbs = first..first + g.len() as u64;
        let XorMove {
            x, target, remove, ..
        } = self;
        self.pages.in_steps(x, limbs, |step| {
            step.rev().try_for_each(|index| {
                let g = g[(index - first) as usize];
                let x = x.limb(index);
                remove.feed(index, g, x);
                target.push(index, g ^ x)
            })
        })
    }

    /// The move, once every window has been absorbed.
    pub fn finish(self, inline: u64) -> Result<MoveFacts, Error> {
        let remove_bits = self.remove.finish();
        let remove = if remove_bits <= inline {
            let used = remove_bits.div_ceil(64);
            let x_low: Vec<u64> = (0..used).map(|i| self.x.limb(i)).collect();
            let difference = subtract_low_limbs(&x_low, self.target.low_limbs());
            Number::new(remove_bits, &difference, inline)
        } else {
            Number::long(remove_bits)
        };
        Ok(MoveFacts {
            heap: self.pos.index,
            offset: self.pos.offset,
            line: None,
            from: Number::of_heap(&self.x, inline),
            to: self.target.finish(inline)?,
            remove,
        })
    }
}

/// The move x → x ⊕ g on a heap left in the file, from its top limbs
/// alone: `None` unless they decide it. They do when the report needs
/// only bit lengths (no `--move-out`, every value longer than
/// `--inline-bits`) and the lengths show within them, as they do but for
/// rare instances: the target's where x ⊕ g first has a set bit from the
/// top, the removed amount's within a few set bits of g below its msb.
pub fn lengths_from_top(heap: &HeapInFile, g: &[u64], options: &Options) -> Option<MoveFacts> {
    let inline = options.inline_bits;
    if options.move_out.is_some() || heap.bits <= inline {
        return None;
    }
    let limbs = heap.bits.div_ceil(64) as usize;
    let low = limbs - heap.top.len();
    let x = |j: usize| heap.top[j - low];
    let g_limb = |j: usize| g.get(j).copied().unwrap_or(0);
    let mut remove = RemoveLength::default();
    for j in (low..limbs).rev() {
        remove.feed(j as u64, g_limb(j), x(j));
    }
    let remove_bits = remove.decided().filter(|&bits| bits > inline)?;
    let to_bits = (low..limbs).rev().find_map(|j| {
        let t = x(j) ^ g_limb(j);
        (t != 0).then(|| 64 * j as u64 + 64 - u64::from(t.leading_zeros()))
    });
    let to_bits = to_bits.filter(|&bits| bits > inline)?;
    Some(MoveFacts {
        heap: heap.pos.index,
        offset: heap.pos.offset,
        line: None,
        from: Number::long(heap.bits),
        to: Number::long(to_bits),
        remove: Number::long(remove_bits),
    })
}

/// The misère move leaving `target` (0 or 1) on heap `x` at `pos`, written
/// to `--move-out`; `pages` releases the input behind a long heap.
pub fn small_move(
    pos: HeapPos,
    x: &HeapValue<'_>,
    pages: PageReleaser<'_>,
    target: u64,
    options: &Options,
) -> Result<MoveFacts, Error> {
    let inline = options.inline_bits;
    if let Some(path) = &options.move_out {
        let mut file = BitsFile::create(path)?;
        file.push(target)?;
        file.finish()?;
    }
    let x_bits = x.bit_length();
    let remove_bits = match target == 1 && is_power_of_two(x, pages) {
        true => x_bits - 1,
        false => x_bits,
    };
    let remove = match remove_bits <= inline {
        true => Number::new(
            remove_bits,
            &subtract_low_limbs(&x.to_limbs(), &[target]),
            inline,
        ),
        false => Number::long(remove_bits),
    };
    Ok(MoveFacts {
        heap: pos.index,
        offset: pos.offset,
        line: None,
        from: Number::of_heap(x, inline),
        to: Number::new(64 - u64::from(target.leading_zeros()), &[target], inline),
        remove,
    })
}

/// True when exactly one bit of `x` is set (read in steps, releasing the
/// input behind).
fn is_power_of_two(x: &HeapValue<'_>, pages: PageReleaser<'_>) -> bool {
    let mut ones = 0u64;
    let counted = pages.in_steps(x, 0..x.bit_length().div_ceil(64), |step| {
        ones += step.map(|i| u64::from(x.limb(i).count_ones())).sum::<u64>();
        Ok::<(), Infallible>(())
    });
    counted.unwrap_or_else(|never| match never {});
    ones == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn big(limbs: &[u64]) -> BigUint {
        BigUint::from_slice(
            &limbs
                .iter()
                .flat_map(|&l| [l as u32, (l >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn number(n: &Number) -> BigUint {
        big(n.limbs.as_deref().expect("short enough to keep"))
    }

    #[test]
    fn windows_of_any_size_give_the_xor_move() {
        let x = vec![0x1234_5678_9abc_def0, 0xffff_0000_ffff_0000, 0b1011];
        let g = vec![0xdead_beef, 0x0f0f_0f0f_0f0f_0f0f, 0b1000];
        let options = Options::default();
        let expected_to = big(&x) ^ big(&g);
        let pos = HeapPos {
            index: 3,
            offset: 9,
        };
        for window in 1..=3usize {
            let top = g.len().div_ceil(window) * window;
            let mut mover = XorMove::start(
                pos,
                HeapValue::Limbs(x.clone()),
                PageReleaser::NONE,
                4096,
                &options,
                top as u64,
            )
            .unwrap();
            for first in (0..g.len()).step_by(window).rev() {
                let end = (first + window).min(g.len());
                mover.absorb(first as u64, &g[first..end]).unwrap();
            }
            let found = mover.finish(4096).unwrap();
            assert_eq!(number(&found.to), expected_to, "{window}");
            assert_eq!(number(&found.remove), big(&x) - &expected_to, "{window}");
            assert_eq!(number(&found.from), big(&x));
        }
    }

    #[test]
    fn small_moves_leave_zero_or_one() {
        let options = Options::default();
        let pos = HeapPos {
            index: 0,
            offset: 0,
        };
        let eight = HeapValue::Word(8);
        let found = small_move(pos, &eight, PageReleaser::NONE, 1, &options).unwrap();
        assert_eq!(
            (number(&found.to), number(&found.remove)),
            (BigUint::from(1u8), BigUint::from(7u8))
        );
        assert_eq!(found.remove.bit_length, 3);
        let found = small_move(pos, &eight, PageReleaser::NONE, 0, &options).unwrap();
        assert_eq!(number(&found.remove), BigUint::from(8u8));
    }
}
