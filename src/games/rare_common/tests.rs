//! The engine's values against the plain mex, its shortfalls, and the
//! choice of the mask.

use super::*;

/// An engine with values pushed in by hand.
fn engine_with(game: &Game, values: &[u16]) -> ValueEngine {
    let mut engine = ValueEngine::for_game(game).unwrap();
    for (heap, &value) in (0u64..).zip(values) {
        engine.record(heap, value, Some(&values[..=heap as usize]));
    }
    engine
}

#[test]
fn a_value_past_65535_is_an_error_naming_the_heap() {
    // Splits without taking: g(a) = a − 1 up to a = 65536 and 0 past
    // it make the splits of heap 131073 take every value below 65536.
    let mut values = vec![0];
    values.extend(0..=u16::MAX);
    values.extend(std::iter::repeat_n(0, 65536));
    let game: Game = "octal:4.1".parse().unwrap();
    let mut engine = ValueEngine::for_game(&game).unwrap();
    engine.takes = Takes {
        nothing: vec![],
        one: vec![],
        two: vec![0],
        unequal: false,
    };
    for (heap, &value) in (0u64..).zip(&values) {
        engine.record(heap, value, None);
    }
    let error = engine.next_value(&values[..]).unwrap_err();
    assert_eq!(error, Shortfall::TooLarge { heap: 131_073 });
}

#[test]
fn a_value_not_kept_is_a_shortfall_naming_the_heap_it_needs() {
    /// The first `prefix` values and the last `last` ones.
    struct Gappy<'v> {
        values: &'v [u16],
        prefix: usize,
        last: usize,
    }
    impl KeptValues for Gappy<'_> {
        fn computed(&self) -> u64 {
            self.values.len() as u64
        }
        fn run_before(&self, end: u64) -> &[u16] {
            let start = self.values.len() - self.last;
            match end as usize {
                end if end <= self.prefix => &self.values[..end],
                end if end > start => &self.values[start..end],
                _ => &[],
            }
        }
        fn run_from(&self, start: u64) -> &[u16] {
            let start = start as usize;
            match start < self.prefix {
                true => &self.values[start..self.prefix],
                false if start >= self.values.len() - self.last => &self.values[start..],
                false => &[],
            }
        }
    }
    // Kayles (no sparse split): every value needs every split.
    let kayles: Game = "kayles".parse().unwrap();
    let values: Vec<u16> = vec![0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2];
    let mut engine = engine_with(&kayles, &values);
    let gappy = Gappy {
        values: &values,
        prefix: 4,
        last: 4,
    };
    let shortfall = engine.next_value(&gappy).unwrap_err();
    assert_eq!(shortfall, Shortfall::Forgotten { heap: 20, needs: 4 });
    assert_eq!(engine.next_value(&values[..]), Ok(1));
}

#[test]
fn the_mask_makes_the_fewest_heaps_rare() {
    // Values 2 and 3 common, 0 and 1 rare: mask 2 (3 would make 1 and
    // 2 common, 3 rare).
    assert_eq!(best_mask(&[1, 2, 50, 40]), 2);
    // Evenly spread values have no sparse split.
    assert_eq!(best_mask(&[10, 10, 10, 10]), 0);
    // No value holds bit 0: masks 2 and 3 make as few rare, and 3
    // makes a value 1 or 3, should one come, common.
    assert_eq!(best_mask(&[1, 0, 50, 0]), 3);
    assert_eq!(best_mask(&[5]), 0);
}

#[test]
fn the_mask_chosen_makes_larger_values_common() {
    let mut split = RareCommon {
        mask: 0,
        rare_heaps: Vec::new(),
        rare_values: Vec::new(),
        counts: vec![1, 2, 50, 40],
        next_review: 0,
        rare_at_review: 0,
        heaps_at_review: 0,
    };
    let values = [0, 2, 3, 2, 0, 1];
    assert_eq!(split.review(&values, 4), 0xFFFE);
    assert!(is_common(0xFFFE, 4) && is_common(0xFFFE, 129) && !is_common(0xFFFE, 6));
    assert_eq!(
        (split.rare_heaps, split.rare_values),
        (vec![4, 5], vec![0, 1])
    );
}
