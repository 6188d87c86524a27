//! The quotient in the papers' notation: its elements numbered in a
//! canonical order and named by their normal forms, and a presentation
//! ⟨a, b, … | relations⟩.
//!
//! **Generators.** The heaps' classes, heap by heap: a heap's class is a
//! new generator (a, b, c, …) when the generators before it do not make
//! it.
//!
//! **Normal forms.** A word in the generators is an exponent vector;
//! words are ordered by degree, then by the exponent of the last
//! generator, then of the one before, … (a monomial order: it is kept by
//! multiplication). An element's normal form is its least word. The least
//! word of an element f is nf(e)·g for some e·g = f (replacing a word's
//! prefix by its normal form never makes it larger), so a search in this
//! order from 1, multiplying by each generator, meets every element first
//! at its normal form.
//!
//! **Relations.** A word that is not a normal form but whose every divisor
//! by one generator is (a minimal non-normal word) gives the relation
//! word = its normal form. Every non-normal word has such a divisor, so
//! these rewrite any word down to its normal form (the order is a
//! well-order kept by multiplication): two words are equal in the
//! quotient iff they rewrite to the same normal form, and the relations
//! present the quotient.

use super::table::Table;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The canonical form of a quotient.
pub(crate) struct Presented {
    /// The product, elements in canonical order (1 first).
    pub(crate) table: Table,
    /// Each old element's canonical number.
    pub(crate) number: Vec<u16>,
    /// The elements' names, in canonical order.
    pub(crate) names: Vec<String>,
    /// The generators: each one's name and the first heap of its class.
    pub(crate) generators: Vec<(String, u64)>,
    /// ⟨generators | relations⟩.
    pub(crate) presentation: String,
}

/// A word: an exponent for each generator.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Word(Vec<u32>);

impl Ord for Word {
    fn cmp(&self, other: &Self) -> Ordering {
        let degree = |w: &Word| w.0.iter().map(|&e| u64::from(e)).sum::<u64>();
        degree(self)
            .cmp(&degree(other))
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Word {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The canonical form of the quotient `table` whose heaps have the
/// classes `pretending`.
pub(crate) fn present(table: &Table, pretending: &[u16]) -> Presented {
    let generators = generators(table, pretending);
    let classes: Vec<u16> = generators.iter().map(|&(class, _)| class).collect();
    let normal = normal_forms(table, &classes);
    // Canonical numbers: elements ordered by their normal forms.
    let mut order: Vec<usize> = (0..table.order()).collect();
    order.sort_by(|&i, &j| normal[i].cmp(&normal[j]));
    let mut number = vec![0u16; table.order()];
    for (new, &old) in order.iter().enumerate() {
        number[old] = new as u16;
    }
    let canonical = Table::from_fn(table.order(), |i, j| {
        number[table.mul(order[i] as u16, order[j] as u16) as usize] as usize
    });
    let letters: Vec<String> = (0..classes.len()).map(letter).collect();
    let names = order.iter().map(|&e| name(&normal[e], &letters)).collect();
    let relations = relations(table, &classes, &normal)
        .iter()
        .map(|(word, e)| {
            format!(
                "{} = {}",
                name(word, &letters),
                name(&normal[*e as usize], &letters)
            )
        })
        .collect::<Vec<String>>();
    let presentation = match (letters.is_empty(), relations.is_empty()) {
        (true, _) => "⟨ ⟩".to_string(),
        (false, true) => format!("⟨{}⟩", letters.join(", ")),
        (false, false) => format!("⟨{} | {}⟩", letters.join(", "), relations.join(", ")),
    };
    Presented {
        table: canonical,
        number,
        names,
        generators: letters
            .into_iter()
            .zip(generators.iter().map(|&(_, heap)| heap))
            .collect(),
        presentation,
    }
}

/// The heaps' classes that the classes before them do not make, with the
/// first heap of each.
fn generators(table: &Table, pretending: &[u16]) -> Vec<(u16, u64)> {
    let mut made = vec![false; table.order()];
    made[0] = true;
    let mut generators: Vec<(u16, u64)> = Vec::new();
    for (heap, &class) in (0u64..).zip(pretending) {
        if made[class as usize] {
            continue;
        }
        generators.push((class, heap));
        // The submonoid made so far, closed again under every generator.
        let mut frontier: Vec<u16> = (0..table.order() as u16)
            .filter(|&e| made[e as usize])
            .collect();
        while let Some(e) = frontier.pop() {
            for &(g, _) in &generators {
                let next = table.mul(e, g);
                if !made[next as usize] {
                    made[next as usize] = true;
                    frontier.push(next);
                }
            }
        }
    }
    generators
}

/// Each element's least word (see the module docs).
fn normal_forms(table: &Table, generators: &[u16]) -> Vec<Word> {
    let mut normal: Vec<Option<Word>> = vec![None; table.order()];
    let mut queue = BinaryHeap::from([Reverse((Word(vec![0; generators.len()]), 0u16))]);
    while let Some(Reverse((word, e))) = queue.pop() {
        if normal[e as usize].is_some() {
            continue;
        }
        for (i, &g) in generators.iter().enumerate() {
            let next = table.mul(e, g);
            if normal[next as usize].is_none() {
                let mut longer = word.clone();
                longer.0[i] += 1;
                queue.push(Reverse((longer, next)));
            }
        }
        normal[e as usize] = Some(word);
    }
    normal
        .into_iter()
        .map(|word| word.expect("the generators make every element"))
        .collect()
}

/// The minimal non-normal words and the elements they equal, in word
/// order.
fn relations(table: &Table, generators: &[u16], normal: &[Word]) -> Vec<(Word, u16)> {
    let value = |word: &Word| {
        word.0
            .iter()
            .zip(generators)
            .fold(0, |e, (&k, &g)| table.mul(e, table.pow(g, u64::from(k))))
    };
    let mut found: Vec<(Word, u16)> = Vec::new();
    for word in normal {
        for i in 0..generators.len() {
            let mut longer = word.clone();
            longer.0[i] += 1;
            let e = value(&longer);
            if normal[e as usize] == longer {
                continue;
            }
            let minimal = (0..generators.len()).all(|j| {
                let mut shorter = longer.clone();
                match shorter.0[j] {
                    0 => true,
                    _ => {
                        shorter.0[j] -= 1;
                        normal[value(&shorter) as usize] == shorter
                    }
                }
            });
            if minimal && !found.iter().any(|(w, _)| *w == longer) {
                found.push((longer, e));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The `i`-th generator's letter: a … z, then g27, g28, ….
fn letter(i: usize) -> String {
    match u8::try_from(i).ok().filter(|&i| i < 26) {
        Some(i) => char::from(b'a' + i).to_string(),
        None => format!("g{}", i + 1),
    }
}

/// A word written with `letters` and superscript exponents; 1 if empty.
fn name(word: &Word, letters: &[String]) -> String {
    const SUPERSCRIPTS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut text = String::new();
    for (&k, letter) in word.0.iter().zip(letters) {
        if k == 0 {
            continue;
        }
        text.push_str(letter);
        if k > 1 {
            text.extend(
                k.to_string()
                    .bytes()
                    .map(|d| SUPERSCRIPTS[(d - b'0') as usize]),
            );
        }
    }
    match text.is_empty() {
        true => "1".to_string(),
        false => text,
    }
}
