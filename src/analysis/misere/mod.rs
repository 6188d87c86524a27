//! Misère play of a heap game other than Nim (SPEC section 12): the sum is
//! decided by the game's misère quotient ([`crate::games::misere`]), one
//! pass over the input counting the heaps of each kind, the winner and the
//! move found from those counts.
//!
//! - [`kinds`]: the quotient and each heap's kind (its class and its
//!   options' classes), for heaps of any size;
//! - [`fold`]: the pass, on every source and every path of the driver
//!   (threads, `--memory` budgets, standard input), whose folds merge;
//! - [`decide`]: the product, the winner and the move's heap and option;
//!
//! The same over one byte range of a file, and the report of the merged
//! ranges (`--partial`, `merge`: SPEC section 11), are in
//! `sharded/range_passes.rs` and `sharded/whole_file.rs`.
//!
//! Everything misère play needs beyond the Grundy pass's machinery (sizes,
//! residues, holders, the move written out) is here, so the folder can
//! move as a unit.

pub(crate) mod decide;
pub(crate) mod fold;
pub(crate) mod kinds;

use crate::analysis::facts::{Facts, MisereFacts, MisereMoveFacts, Stats};
use crate::analysis::game::holders::Holder;
use crate::analysis::game::moves::{parts, written_move};
use crate::analysis::game::sums::{game_reads, GameShared};
use crate::analysis::options::Options;
use crate::analysis::rules::Player;
use crate::analysis::survey::Survey;
use crate::error::Error;
use crate::games::misere::MAX_HEAPS;
use crate::input::driver;
use crate::input::source::Input;
use crate::input::Format;
use crate::working_memory::MemoryMeter;
use kinds::{kinds_of, Kinds};
use std::ops::Range;
use std::time::Instant;

/// The heaps the quotient is computed for: `--max-values`, at most
/// [`MAX_HEAPS`].
pub(crate) fn max_heap(options: &Options) -> u64 {
    options.max_values.min(MAX_HEAPS)
}

/// Analyzes `input`, read as `format`, as a sum of heaps of the game of
/// `options` under misère play.
pub fn analyze_misere(
    input: &mut Input<'_>,
    format: Format,
    options: &Options,
) -> Result<Facts, Error> {
    let kinds = kinds_of(&options.game, max_heap(options))?;
    let plan = options.plan(input, format);
    let meter = MemoryMeter::start();
    let started = Instant::now();
    let (reads, mut cost) = game_reads(&plan);
    let stream = input.random_access().is_none();
    let shared = GameShared::new(&kinds.kinds, &plan, stream);
    let count = kinds.class.len();
    let folded = driver::run(input, format, &reads, || {
        fold::MisereSum::new(&shared, count)
    })?;
    cost.count_pass(&folded);
    let mut pass = folded.fold;
    if let Some(past) = pass.past_values {
        let message = past_heaps_message(past.pos.index, &kinds);
        return Err(input.error_at(format, past.pos.offset, message, past.line_col));
    }
    let no_lf = std::mem::take(&mut pass.long_tokens).in_order();
    let found = Found {
        survey: pass.survey,
        counts: &pass.counts,
        firsts: &pass.firsts,
    };
    let facts = found.facts(input, format, options, &kinds, &no_lf, &mut cost)?;
    input.check_unchanged()?;
    let mut facts = facts;
    facts.stats.working_memory_bytes = meter.peak_bytes();
    facts.stats.seconds = started.elapsed().as_secs_f64();
    Ok(facts)
}

/// The message of the error for heap `index` (of the whole file), past the
/// heaps the misère quotient of the game of `options` was computed for:
/// the words of a whole analysis.
pub(crate) fn past_heaps_error(index: u64, options: &Options) -> Result<String, Error> {
    let kinds = kinds_of(&options.game, max_heap(options))?;
    Ok(past_heaps_message(index, &kinds))
}

/// The number of kinds of heaps of the game of `options` under misère
/// play (what a partial's lists hold one entry for).
pub fn misere_kinds(options: &Options) -> Result<usize, Error> {
    Ok(kinds_of(&options.game, max_heap(options))?.class.len())
}

/// The error for heap `index`, past the heaps the quotient was computed
/// for, with no period proven.
pub(crate) fn past_heaps_message(index: u64, kinds: &Kinds) -> String {
    let q = &kinds.quotient;
    format!(
        "heap {index} is larger than {} tokens, the heaps the misère quotient of {} was \
         computed for (it stopped: {}), and no period is proven within them; no larger heap \
         has a known class",
        q.heaps_computed(),
        q.game(),
        q.stop().describe()
    )
}

/// What a pass over the whole input found: the survey, the counts of the
/// heaps of each kind and the first heap of each.
pub(crate) struct Found<'f> {
    pub(crate) survey: Survey,
    pub(crate) counts: &'f [u64],
    pub(crate) firsts: &'f [Option<Holder>],
}

impl Found<'_> {
    /// The facts: the winner, the product and (unless `--decide`) the move,
    /// written out; its reads counted in `cost`.
    pub(crate) fn facts(
        self,
        input: &Input<'_>,
        format: Format,
        options: &Options,
        kinds: &Kinds,
        no_lf: &[Range<u64>],
        cost: &mut Stats,
    ) -> Result<Facts, Error> {
        let q = &kinds.quotient;
        let product = decide::product(kinds, self.counts);
        let winner = match q.is_p(product) {
            true => Player::Second,
            false => Player::First,
        };
        let winning_move = match options.decide {
            true => None,
            false => decide::winning_move(kinds, self.counts, self.firsts)?,
        };
        let winning_move = match winning_move {
            None => None,
            Some(found) => {
                let leave = parts(&found.found.leave);
                let (line, from, leave) =
                    written_move(input, format, options, cost, found.heap, &leave, no_lf)?;
                Some(MisereMoveFacts {
                    heap: found.heap.pos.index,
                    offset: found.heap.pos.offset,
                    line,
                    from,
                    take: found.found.take,
                    leave,
                    to_product: q.names()[found.to_product as usize].clone(),
                })
            }
        };
        Ok(Facts {
            survey: self.survey,
            nim_sum: None,
            msb: None,
            winner,
            winning_moves: None,
            winning_move: None,
            game: None,
            misere: Some(MisereFacts {
                game: q.game().to_string(),
                order: q.order(),
                period: q.period(),
                heaps_computed: q.heaps_computed(),
                product: q.names()[product as usize].clone(),
                winning_move,
                stuck: decide::stuck(kinds, self.counts),
            }),
            stats: std::mem::take(cost),
        })
    }
}
