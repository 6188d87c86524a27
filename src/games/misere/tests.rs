//! The quotients against exhaustive misère search, and their algebra.

use super::Quotient;
use crate::games::Game;
use crate::workbench::game_tree::GameTree;
use crate::workbench::misere_check::{pairs_apart, sums, sweep};
use crate::Rule;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The games checked against the search: Kayles, Dawson's Kayles,
/// Daisies (4.7), subtraction and octal games of both kinds, with and
/// without splits.
const GAMES: [&str; 9] = [
    "kayles",
    "dawsons-kayles",
    "octal:4.7",
    "sub:1,3,4",
    "octal:0.75",
    "octal:0.52",
    "octal:0.31",
    "octal:0.73",
    "sub:2,3",
];

/// Q_n of `game` for n = 30, or n = 16 for Dawson's Kayles and 10 for 4.7, whose
/// quotients grow fast (or the whole quotient, once its period is
/// proven): exact for every sum of heaps ≤ n.
fn quotient(game: &str) -> (Game, Quotient) {
    let game: Game = game.parse().unwrap();
    let n = match game.to_string().as_str() {
        "octal:0.07" => 16,
        "octal:4.7" => 10,
        _ => 30,
    };
    let q = Quotient::compute(&game, n).unwrap();
    assert!(
        q.heaps_computed() == n || q.period().is_some(),
        "{game}: {:?}",
        q.stop()
    );
    (game, q)
}

/// Random positions of up to `tokens` tokens in all, heaps up to `largest`.
fn random_position(rng: &mut ChaCha8Rng, tokens: u64, largest: u64) -> Vec<u64> {
    let mut left = rng.random_range(0..=tokens);
    let mut heaps = Vec::new();
    while left > 0 {
        let h = rng.random_range(1..=left.min(largest));
        heaps.push(h);
        left -= h;
    }
    heaps
}

#[test]
fn quotients_decide_random_positions_as_the_search_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for name in GAMES {
        let (game, q) = quotient(name);
        let mut tree = GameTree::new(&game, Rule::Misere);
        for _ in 0..300 {
            let heaps = random_position(&mut rng, 30, q.heaps_computed().min(30));
            let wins = tree.player_to_move_wins(&heaps);
            let p = q.is_p_position(&heaps).expect("heaps within the quotient");
            assert_eq!(p, !wins, "{name} {heaps:?}");
        }
    }
}

#[test]
fn heaps_of_one_class_are_interchangeable_beside_small_positions() {
    for name in ["kayles", "octal:0.75", "sub:1,3,4"] {
        let (game, q) = quotient(name);
        let mut tree = GameTree::new(&game, Rule::Misere);
        let beside: Vec<Vec<u64>> = (0..=6u64)
            .flat_map(|a| (a..=6).map(move |b| vec![a, b]))
            .collect();
        for h in 1..=14u64 {
            for g in (h + 1)..=14 {
                if q.class_of(h) != q.class_of(g) {
                    continue;
                }
                for x in &beside {
                    let with = |heap: u64| [x.as_slice(), &[heap]].concat();
                    assert_eq!(
                        tree.player_to_move_wins(&with(h)),
                        tree.player_to_move_wins(&with(g)),
                        "{name}: heaps {h} and {g} beside {x:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn product_tables_are_commutative_monoids() {
    for name in GAMES {
        let (_, q) = quotient(name);
        let n = q.order() as u16;
        for i in 0..n {
            assert_eq!(q.mul(0, i), i, "{name}: identity");
            for j in 0..n {
                assert_eq!(q.mul(i, j), q.mul(j, i), "{name}: commutative");
                for k in 0..n {
                    assert_eq!(
                        q.mul(q.mul(i, j), k),
                        q.mul(i, q.mul(j, k)),
                        "{name}: associative"
                    );
                }
            }
        }
        // Impartial misère quotients have even order (Plambeck–Siegel).
        assert!(
            q.order() % 2 == 0 || q.order() == 1,
            "{name}: {}",
            q.order()
        );
        assert!(!q.is_p(0), "{name}: the empty sum is an N-position");
    }
}

#[test]
fn classes_past_the_period_follow_the_residue() {
    let game: Game = "octal:0.75".parse().unwrap();
    let q = Quotient::compute(&game, 200).unwrap();
    let period = q.period().expect("0.75 has a proven period");
    let mut tree = GameTree::new(&game, Rule::Misere);
    // Heaps past the ones computed decide as the search does.
    let n = q.heaps_computed();
    for h in (n + 1)..=(n + 3).min(40) {
        for x in 0..=4u64 {
            assert_eq!(
                q.is_p_position(&[h, x]).unwrap(),
                !tree.player_to_move_wins(&[h, x]),
                "heap {h} beside {x}"
            );
        }
    }
    assert!(period.period >= 1);
}

#[test]
fn every_small_sum_is_decided_as_the_search_does() {
    for name in GAMES {
        let (_, q) = quotient(name);
        assert_eq!(sweep(&q, 12), Vec::<Vec<u64>>::new(), "{name}");
    }
}

/// Every pair of elements told apart by search: the order is a lower
/// bound as well as the proven upper bound.
#[test]
fn every_element_is_apart_from_every_other_by_search() {
    for (name, n, tokens) in [
        ("kayles", 9, 30),
        ("octal:0.75", 4096, 24),
        ("sub:1,3,4", 4096, 24),
        ("dawsons-kayles", 12, 30),
        ("octal:4.7", 9, 26),
    ] {
        let q = Quotient::compute(&name.parse().unwrap(), n).unwrap();
        let apart = pairs_apart(&q, tokens);
        assert_eq!(apart.not_apart, Vec::<(String, String)>::new(), "{name}");
        assert_eq!(apart.wrong, Vec::<Vec<u64>>::new(), "{name}");
    }
}

/// A larger heap splits classes of the smaller ones: in misère Kayles two
/// rows of 5 pins are ≡ no pins among rows ≤ 8, and a row of 9 tells them
/// apart (the search finds a sum X with a row of 9 such that 5 + 5 + X
/// and X have different outcomes, and none of rows ≤ 8 up to 16 pins).
#[test]
fn a_larger_heap_splits_classes_of_smaller_heaps() {
    let kayles: Game = "kayles".parse().unwrap();
    let q8 = Quotient::compute(&kayles, 8).unwrap();
    let q9 = Quotient::compute(&kayles, 9).unwrap();
    let five = |q: &Quotient| q.class_of(5).unwrap();
    assert_eq!(q8.mul(five(&q8), five(&q8)), 0);
    assert_ne!(q9.mul(five(&q9), five(&q9)), 0);
    assert_eq!((q8.order(), q9.order()), (12, 18));
    let mut tree = GameTree::new(&kayles, Rule::Misere);
    let mut apart = |x: &Vec<u64>| {
        tree.player_to_move_wins(&[&[5, 5], x.as_slice()].concat()) != tree.player_to_move_wins(x)
    };
    assert!(!sums(8, 16).iter().any(&mut apart));
    let nine = sums(9, 16).into_iter().find(|x| x.contains(&9) && apart(x));
    assert!(nine.is_some());
}

#[test]
fn nim_is_refused() {
    assert!(Quotient::compute(&Game::Nim, 10).is_err());
}

/// Misère Kayles: its period 12 from 71 proven, its 40 elements each
/// apart from every other by search (release, from .ci/run).
#[test]
#[ignore]
fn kayles_period_is_proven() {
    let game: Game = "kayles".parse().unwrap();
    let q = Quotient::compute(&game, 4096).unwrap();
    let period = q.period().expect("a proven period");
    assert_eq!((period.preperiod, period.period), (71, 12));
    assert_eq!(q.order(), 40);
    let apart = pairs_apart(&Quotient::compute(&game, 52).unwrap(), 70);
    assert_eq!((apart.apart, apart.pairs), (780, 780));
    assert_eq!(apart.wrong, Vec::<Vec<u64>>::new());
    let mut tree = GameTree::new(&game, Rule::Misere);
    let mut rng = ChaCha8Rng::seed_from_u64(71);
    for _ in 0..2000 {
        let heaps = random_position(&mut rng, 30, 30);
        assert_eq!(
            q.is_p_position(&heaps),
            Some(!tree.player_to_move_wins(&heaps))
        );
    }
}

/// Dawson's Kayles: Q_30 has 360 elements, as MisereSolver found (A.
/// Siegel, miseregames.wordpress.com, 28 August 2007), and Q_24's 24
/// elements are each apart from every other by search (release, from
/// .ci/run).
#[test]
#[ignore]
fn dawsons_kayles_quotients_are_exact() {
    let game: Game = "dawsons-kayles".parse().unwrap();
    let q30 = Quotient::compute_within(&game, 30, 1 << 36).unwrap();
    assert_eq!((q30.heaps_computed(), q30.order()), (30, 360));
    let q = Quotient::compute(&game, 24).unwrap();
    assert_eq!(q.order(), 24);
    let apart = pairs_apart(&q, 60);
    assert_eq!((apart.apart, apart.pairs), (276, 276));
    assert_eq!(apart.wrong, Vec::<Vec<u64>>::new());
}

/// Daisies (4.7): Q_16 has 70 elements, each apart from every other by
/// search (release, from .ci/run).
#[test]
#[ignore]
fn daisies_quotient_is_exact_to_16() {
    let game: Game = "octal:4.7".parse().unwrap();
    let q = Quotient::compute_within(&game, 16, 1 << 36).unwrap();
    assert_eq!((q.heaps_computed(), q.order()), (16, 70));
    let apart = pairs_apart(&q, 50);
    assert_eq!((apart.apart, apart.pairs), (2415, 2415));
    assert_eq!(apart.wrong, Vec::<Vec<u64>>::new());
}
